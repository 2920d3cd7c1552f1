import { useState } from 'preact/hooks';
import { Checkbox } from '../../components/Field';
import { fleet } from '../../fleet/fleet';
import { stateOf } from '../../fleet/states';
import { t } from '../../i18n';
import { useStore } from '../../store';
import type { ClientListing } from '../../types';

/** How many addresses a list names before "and N more": the dialog stays readable for 300 PCs. */
const shown = 12;

/**
 * The clients among `clients` that work would hurt or miss, by their live state: someone is
 * working in a user session (it would be cut), or the PC is off (nothing would answer).
 */
export function clientsAtRisk(clients: readonly string[], states: ReadonlyMap<string, ClientListing>) {
  const state = (ip: string) => stateOf(states.get(ip)?.state);
  return {
    session: clients.filter((ip) => ['LNXS', 'WINS'].includes(state(ip))),
    off: clients.filter((ip) => state(ip) === 'off'),
  };
}

/**
 * Before a restore, a partitioning, a power off or a reboot: the PCs in a user session or
 * switched off, and a box to send to them anyway. `ready` is false until that box is ticked
 * (or while there are none), so the form's button waits for it.
 */
export function useAtRisk(clients: readonly string[]) {
  const { states } = useStore(fleet);
  const [accepted, setAccepted] = useState(false);
  const { session, off } = clientsAtRisk(clients, states);
  const any = session.length + off.length > 0;
  const note = any ? (
    <div class="warning at-risk" role="alert">
      <p>{t('risk.title')}</p>
      {session.length > 0 && <Addresses label={t('risk.session', { count: session.length })} ips={session} kind="session" />}
      {off.length > 0 && <Addresses label={t('risk.off', { count: off.length })} ips={off} kind="off" />}
      <Checkbox label={t('risk.accept')} name="at-risk" checked={accepted} onChange={setAccepted} />
    </div>
  ) : null;
  return { ready: !any || accepted, note };
}

function Addresses(props: { label: string; ips: string[]; kind: string }) {
  const rest = props.ips.length - shown;
  return (
    <p data-at-risk={props.kind}>
      <strong>{props.label}:</strong> {props.ips.slice(0, shown).join(', ')}
      {rest > 0 && ` ${t('risk.more', { count: rest })}`}
    </p>
  );
}
