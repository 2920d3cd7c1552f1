import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { t } from '../i18n';
import { href } from '../router';

/** A PC nobody registered, as the enrol plugin's GET /discovered answers it (what the dashboard shows of it). */
interface NewPc {
  mac: string;
  ip: string;
  model: string;
  state: 'booted' | 'discovered';
}

/** PCs turn up as a new lab is switched on: reading again every half minute follows them closely enough. */
const pollMs = 30_000;
/** The newest shown; the rest are on the New PCs page. */
const shown = 5;

/**
 * The dashboard's new PCs (the enrol plugin's GET /discovered): how many wait to be put in a
 * room, the newest few with their model, and a link to the New PCs page, where that is done.
 */
export function DashboardNewPcs() {
  const [pcs, setPcs] = useState<NewPc[] | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const load = async () => {
      const answer = await get<{ discovered: NewPc[] }>('/discovered').catch(() => null);
      if (stopped) return;
      if (answer) setPcs(answer.discovered);
      timer = setTimeout(() => void load(), pollMs);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  if (!pcs || pcs.length === 0) return null;
  return (
    <section aria-labelledby="dashboard-new-pcs" data-new-pcs={pcs.length}>
      <h2 id="dashboard-new-pcs">{t('dashboard.newPcs', { count: pcs.length })}</h2>
      <ul class="attention">
        {pcs
          .slice(-shown)
          .reverse()
          .map((pc) => (
            <li key={pc.mac} data-mac={pc.mac}>
              {pc.model || t('dashboard.newPcNoReport')} ({pc.mac}, {pc.ip})
            </li>
          ))}
      </ul>
      <a href={href('plugin', 'enrol')}>{t('dashboard.newPcsOpen')}</a>
    </section>
  );
}
