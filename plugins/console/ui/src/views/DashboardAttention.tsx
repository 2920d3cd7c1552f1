import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { patchFleet } from '../fleet/fleet';
import type { ClientSet } from '../fleet/tree';
import { t } from '../i18n';
import { enabled, useServer } from '../plugins';
import { go } from '../router';

/** The PCs each count stands for: those that did not wake, those on with nobody using them. */
interface Attention {
  notWoken: string[] | null;
  idle: string[] | null;
}

/** Wake runs end and PCs go idle over minutes: reading again twice a minute is close enough. */
const pollMs = 30_000;

/** Open the fleet narrowed to `only`, the chip saying why. */
function showClients(only: ClientSet): void {
  patchFleet({ query: '', filters: { states: new Set(), result: '', only } });
  go('fleet');
}

/**
 * The dashboard's PCs that need a look: those whose last wake-up failed (the wol plugin's
 * GET /wol/failed) and those on with nobody using them (the energy plugin's GET /energy/now),
 * each number opening the fleet narrowed to them. Shown with whichever of those plugins is on.
 */
export function DashboardAttention() {
  const info = useServer();
  const [seen, setSeen] = useState<Attention | null>(null);
  const wol = enabled(info, 'wol');
  const energy = enabled(info, 'energy');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const load = async () => {
      const [failed, now] = await Promise.all([
        wol ? get<{ clients: { addr: string }[] }>('/wol/failed').catch(() => null) : null,
        energy ? get<{ rooms: { pcs: { ip: string; state: string }[] }[] }>('/energy/now').catch(() => null) : null,
      ]);
      if (stopped) return;
      setSeen({
        notWoken: failed?.clients.map((c) => c.addr) ?? null,
        idle: now?.rooms.flatMap((room) => room.pcs.filter((pc) => pc.state === 'idle').map((pc) => pc.ip)) ?? null,
      });
      timer = setTimeout(() => void load(), pollMs);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [wol, energy]);
  if (!seen || (seen.notWoken === null && seen.idle === null)) return null;
  const line = (ips: string[] | null, label: string, key: string) =>
    ips && (
      <li data-attention={key}>
        {label}:{' '}
        {ips.length === 0 ? (
          '0'
        ) : (
          <button type="button" class="link" onClick={() => showClients({ label, ips: new Set(ips) })}>
            {ips.length}
          </button>
        )}
      </li>
    );
  return (
    <section aria-labelledby="dashboard-attention">
      <h2 id="dashboard-attention">{t('dashboard.attention')}</h2>
      <ul class="attention">
        {line(seen.notWoken, t('dashboard.notWoken'), 'not-woken')}
        {line(seen.idle, t('dashboard.idle'), 'idle')}
      </ul>
    </section>
  );
}
