import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { patchFleet } from '../fleet/fleet';
import type { ClientSet } from '../fleet/tree';
import { t } from '../i18n';
import { enabled, useServer } from '../plugins';
import { go } from '../router';

/** The PCs each count stands for: those that did not wake, those on with nobody using them, Secure Boot PCs with an unsigned ogLive; and Kea's state. */
interface Attention {
  notWoken: string[] | null;
  idle: string[] | null;
  unsignedLive: string[] | null;
  dhcp: DhcpState | null;
  repository: RepositoryState | null;
}

/** What the images plugin's GET /images/repository says, as the dashboard reads it: damaged images, the share. */
interface RepositoryState {
  images: { damaged: string[] };
  share: { enabled: boolean; problems: string[] };
}

/** What the dhcp plugin's GET /dhcp/status says, as the dashboard reads it. */
interface DhcpState {
  in_step: boolean;
  pending: boolean;
  last_error: { reason: 'refused' | 'unreachable'; message: string } | null;
  differences: { missing: unknown[]; extra: unknown[]; different: unknown[] } | null;
}

/** Kea's state in a sentence: in step, not answering, refusing, or how far apart it is. */
function dhcpSentence(state: DhcpState): string {
  if (state.in_step) return t('dashboard.dhcpInStep');
  if (state.last_error)
    return t(state.last_error.reason === 'unreachable' ? 'dashboard.dhcpUnreachable' : 'dashboard.dhcpRefused', state.last_error);
  const { missing = [], extra = [], different = [] } = state.differences ?? {};
  return t(state.pending ? 'dashboard.dhcpPending' : 'dashboard.dhcpApart', {
    missing: missing.length,
    extra: extra.length,
    different: different.length,
  });
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
 * each number opening the fleet narrowed to them; the Secure Boot PCs set to an ogLive whose
 * kernel is not signed (the tftp plugin's GET /tftp/secure-boot), a warning, when there are
 * any; whether Kea serves what the inventory says (the dhcp plugin's GET /dhcp/status), the
 * warning a refused or unsent change raises; damaged images and the ogimages share's problems
 * (the images plugin's GET /images/repository). Shown with whichever of those plugins is on.
 */
export function DashboardAttention() {
  const info = useServer();
  const [seen, setSeen] = useState<Attention | null>(null);
  const wol = enabled(info, 'wol');
  const energy = enabled(info, 'energy');
  const dhcp = enabled(info, 'dhcp');
  const tftp = enabled(info, 'tftp');
  const images = enabled(info, 'images');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const load = async () => {
      const [failed, now, kea, secureBoot, repository] = await Promise.all([
        wol ? get<{ clients: { addr: string }[] }>('/wol/failed').catch(() => null) : null,
        energy ? get<{ rooms: { pcs: { ip: string; state: string }[] }[] }>('/energy/now').catch(() => null) : null,
        dhcp ? get<DhcpState>('/dhcp/status').catch(() => null) : null,
        tftp ? get<{ unsigned: { client: string }[] }>('/tftp/secure-boot').catch(() => null) : null,
        images ? get<RepositoryState>('/images/repository').catch(() => null) : null,
      ]);
      if (stopped) return;
      setSeen({
        notWoken: failed?.clients.map((c) => c.addr) ?? null,
        idle: now?.rooms.flatMap((room) => room.pcs.filter((pc) => pc.state === 'idle').map((pc) => pc.ip)) ?? null,
        // Said only when some PC is in that case: a site without Secure Boot rooms sees nothing of it.
        unsignedLive: secureBoot?.unsigned.length ? secureBoot.unsigned.map((u) => u.client) : null,
        dhcp: kea,
        repository,
      });
      timer = setTimeout(() => void load(), pollMs);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [wol, energy, dhcp, tftp, images]);
  if (
    !seen ||
    (seen.notWoken === null && seen.idle === null && seen.unsignedLive === null && seen.dhcp === null && seen.repository === null)
  )
    return null;
  const damaged = seen.repository?.images.damaged ?? [];
  const share = seen.repository?.share;
  const line = (ips: string[] | null, label: string, key: string, warning = false) =>
    ips && (
      <li data-attention={key} class={warning ? 'warning' : undefined}>
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
        {line(seen.unsignedLive, t('dashboard.unsignedLive'), 'unsigned-live', true)}
        {seen.dhcp && (
          <li data-attention="dhcp" data-in-step={String(seen.dhcp.in_step)} class={seen.dhcp.in_step ? undefined : 'warning'}>
            {t('dashboard.dhcp')}: {dhcpSentence(seen.dhcp)}
          </li>
        )}
        {share?.enabled && (
          <li data-attention="share" class={share.problems.length ? 'warning' : undefined}>
            {t('dashboard.share')}: {share.problems.length ? share.problems.join('; ') : t('dashboard.shareWell')}
          </li>
        )}
        {damaged.length > 0 && (
          <li data-attention="damaged" class="warning">
            {t('dashboard.damaged')}:{' '}
            <button type="button" class="link" onClick={() => go('images')} title={damaged.join(', ')}>
              {damaged.length}
            </button>
          </li>
        )}
      </ul>
    </section>
  );
}
