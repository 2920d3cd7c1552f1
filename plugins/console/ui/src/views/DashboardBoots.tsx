import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { TableScroll } from '../components/TableScroll';
import { patchFleet } from '../fleet/fleet';
import type { ClientSet } from '../fleet/tree';
import { t } from '../i18n';
import { go } from '../router';

/** A PC's last network boot as GET /boot/stages answers it. */
interface LastStage {
  client: string;
  stage: 'loader' | 'script' | 'kernel' | 'initrd' | 'root' | 'agent';
  cut_short: boolean;
}

const stages = ['loader', 'script', 'kernel', 'initrd', 'root', 'agent'] as const;
/** The boots of a lab come over minutes: reading again twice a minute follows them closely enough. */
const pollMs = 30_000;

/** Open the fleet narrowed to `ips`, the chip saying why. */
function showClients(only: ClientSet): void {
  patchFleet({ query: '', filters: { states: new Set(), result: '', only } });
  go('fleet');
}

/**
 * The dashboard's network boots of the last 24 hours (the boot plugin's GET /boot/stages): how
 * many PCs stopped at each stage, each number opening the fleet narrowed to those PCs.
 */
export function DashboardBoots() {
  const [last, setLast] = useState<LastStage[] | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const load = async () => {
      const answer = await get<{ clients: LastStage[] }>('/boot/stages').catch(() => null);
      if (stopped) return;
      if (answer) setLast(answer.clients);
      timer = setTimeout(() => void load(), pollMs);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  if (!last) return null;
  const cell = (clients: LastStage[], label: string, key: string) =>
    clients.length === 0 ? (
      '0'
    ) : (
      <button type="button" class="link" data-boot={key} onClick={() => showClients({ label, ips: new Set(clients.map((c) => c.client)) })}>
        {clients.length}
      </button>
    );
  const cutShort = last.filter((c) => c.cut_short);
  return (
    <section aria-labelledby="dashboard-boots">
      <h2 id="dashboard-boots">{t('dashboard.boots')}</h2>
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              {stages.map((stage) => (
                <th scope="col" key={stage}>
                  {t(`bootStage.${stage}`)}
                </th>
              ))}
              <th scope="col">{t('boot.cutShort')}</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              {stages.map((stage) => (
                <td key={stage}>
                  {cell(
                    last.filter((c) => c.stage === stage),
                    t('dashboard.bootStoppedAt', { stage: t(`bootStage.${stage}`) }),
                    stage,
                  )}
                </td>
              ))}
              <td>{cell(cutShort, t('dashboard.bootCutShort'), 'cut_short')}</td>
            </tr>
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
