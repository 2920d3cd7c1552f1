import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { StateBadge } from '../components/StateBadge';
import { humanBytes, timeOfDay } from '../format';
import { t } from '../i18n';

interface Stage {
  stage: 'loader' | 'script' | 'kernel' | 'initrd' | 'root' | 'agent';
  at: string;
  bytes?: number;
  ms?: number;
  cut_short?: boolean;
  state?: string;
}
interface Timeline {
  boots: { started: string; stages: Stage[] }[];
}

/** How often the page asks again: a boot under way moves a stage every few seconds. */
const pollMs = 3000;

/** A client's last network boot (GET /boot/timeline, the boot plugin's): each stage, seconds from its first, live. */
export function LastBoot(props: { ip: string }) {
  const [boot, setBoot] = useState<Timeline['boots'][number] | null | undefined>(undefined);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const load = async () => {
      const answer = await get<Timeline>(`/boot/timeline?client=${encodeURIComponent(props.ip)}&boots=1`).catch(() => undefined);
      if (stopped) return;
      if (answer) setBoot(answer.boots[0] ?? null);
      timer = setTimeout(() => void load(), pollMs);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.ip]);
  if (boot === undefined) return null;
  const started = boot ? Date.parse(boot.started) : 0;
  return (
    <section aria-labelledby="last-boot">
      <h2 id="last-boot">{t('boot.lastBoot')}</h2>
      {boot === null ? (
        <p class="hint">{t('boot.none')}</p>
      ) : (
        <ol class="boot-timeline">
          {boot.stages.map((s) => (
            <li key={`${s.stage}-${s.at}`} data-stage={s.stage}>
              <strong>{t(`bootStage.${s.stage}`)}</strong> <time dateTime={s.at}>{timeOfDay(s.at)}</time>{' '}
              <span class="hint">+{Math.round((Date.parse(s.at) - started) / 1000)} s</span>
              {s.bytes !== undefined && ` · ${humanBytes(s.bytes)}`}
              {s.ms !== undefined && ` ${t('boot.inSeconds', { seconds: (s.ms / 1000).toFixed(1) })}`}
              {s.cut_short && <span class="result-failure"> · {t('boot.cutShort')}</span>}
              {s.state && (
                <>
                  {' '}
                  <StateBadge state={s.state} />
                </>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
