import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { humanBytes } from '../format';
import { t } from '../i18n';
import { href } from '../router';
import type { ImageTransfer } from '../types';

/** How often a running restore's bars are read again. */
const pollMs = 2000;

/**
 * A restore job's image transfers, one bar per PC (the images plugin's GET /images/transfers?job=):
 * where each PC is in the file, its rate, since when it stands still, done. Read again every 2 s
 * while the job runs; PCs that restore through the share (UNICAST) have no line.
 */
export function ImageTransfers(props: { job: number; running: boolean }) {
  const [lines, setLines] = useState<ImageTransfer[] | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      const answer = await get<{ transfers: ImageTransfer[] }>(`/images/transfers?job=${props.job}`).catch(() => null);
      if (stopped) return;
      if (answer) setLines(answer.transfers);
      if (props.running) timer = setTimeout(() => void load(), pollMs);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.job, props.running]);
  if (lines === null) return null;
  return (
    <section aria-labelledby="job-transfers" class="image-transfers">
      <h2 id="job-transfers">{t('job.transfers')}</h2>
      {lines.length === 0 && <p class="hint">{t('job.noTransfers')}</p>}
      <ul class="transfer-bars">
        {lines.map((l) => (
          <li key={`${l.client}|${l.file}`} data-client={l.client ?? ''} data-done={String(l.done)}>
            <span class="transfer-pc">{l.client ? <a href={href('client', l.client)}>{l.client}</a> : '-'}</span>{' '}
            <progress max={l.size} value={l.bytes} aria-label={`${l.client ?? ''} ${l.file}`} />{' '}
            <span class="transfer-figures">
              {t('job.transferOf', { bytes: humanBytes(l.bytes), size: humanBytes(l.size) })}
              {l.rate > 0 && ` · ${t('job.transferRate', { rate: humanBytes(l.rate) })}`}
              {l.done && ` · ${t('job.transferDone')}`}
              {!l.done && l.stalled_since && (
                <span class="warning"> · {t('job.stalledSince', { time: new Date(l.stalled_since).toLocaleTimeString() })}</span>
              )}
              {!l.done && l.cut_short && l.ended && <span class="warning"> · {t('job.transferCut')}</span>}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
