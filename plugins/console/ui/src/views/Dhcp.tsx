import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { Dialog } from '../components/Dialog';
import { ErrorNote } from '../components/ErrorNote';
import { TableScroll } from '../components/TableScroll';
import { dateTime } from '../format';
import { t } from '../i18n';
import { may, useServer } from '../plugins';
import { useAsync } from '../useAsync';

/** A reservation as GET /dhcp/status lists a difference. */
interface Reservation {
  mac: string;
  ip: string;
  hostname: string;
  subnet: string;
}

/** GET /dhcp/status (the dhcp plugin's answer). */
interface Status {
  control_agent: string;
  reachable: boolean;
  in_step: boolean;
  pending: boolean;
  last_push: { at: string; changed: boolean; backup?: number } | null;
  last_error: { at: string; reason: string; message: string } | null;
  differences: {
    missing: Reservation[];
    extra: Reservation[];
    different: { mac: string; inventory: Reservation; kea: Reservation }[];
  } | null;
}

interface Backup {
  id: number;
  taken_at: string;
  reason: string;
  subnets: number;
  reservations: number;
}

/**
 * DHCP (with the dhcp plugin): whether Kea serves what the inventory says, the reservations
 * that differ, a push now (POST /dhcp/sync), and the configurations ogserve replaced, each
 * one click (and a confirmation) from being given back to Kea (POST /dhcp/restore).
 */
export function Dhcp() {
  const info = useServer();
  const status = useAsync(() => get<Status>('/dhcp/status'));
  const backups = useAsync(() => get<{ backups: Backup[] }>('/dhcp/backups'));
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const reload = () => {
    status.reload();
    backups.reload();
  };
  const sync = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await post<{ changed: boolean; backup?: number; leases_deleted: number }>('/dhcp/sync');
      setNote(answer.changed ? t('dhcp.synced', { backup: answer.backup ?? '' }) : t('dhcp.nothingToSync'));
      reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const s = status.value;
  const d = s?.differences;
  return (
    <section aria-labelledby="dhcp-title">
      <h1 id="dhcp-title">{t('dhcp.title')}</h1>
      <ErrorNote error={status.error ?? error} />
      {s && (
        <dl class="facts">
          <dt>{t('dhcp.agent')}</dt>
          <dd>{s.control_agent}</dd>
          <dt>{t('dhcp.state')}</dt>
          <dd data-in-step={String(s.in_step)} class={s.in_step ? 'result-success' : 'warning-text'}>
            {!s.reachable ? t('dhcp.unreachable') : s.in_step ? t('dhcp.inStep') : s.pending ? t('dhcp.pending') : t('dhcp.apart')}
          </dd>
          <dt>{t('dhcp.lastPush')}</dt>
          <dd>{s.last_push ? dateTime(s.last_push.at) : t('dhcp.never')}</dd>
          {s.last_error && (
            <>
              <dt>{t('dhcp.lastError')}</dt>
              <dd class="result-failure">
                {dateTime(s.last_error.at)}: {s.last_error.message}
              </dd>
            </>
          )}
        </dl>
      )}
      {may(info, 'POST /dhcp/sync') && (
        <div class="buttons">
          <button type="button" class="primary" disabled={busy} onClick={() => void sync()}>
            {t('dhcp.sync')}
          </button>
          {note && (
            <span role="status" class="saved">
              {note}
            </span>
          )}
        </div>
      )}
      {d && d.missing.length + d.extra.length + d.different.length > 0 && (
        <>
          <h2>{t('dhcp.differences')}</h2>
          <TableScroll>
            <table class="grid dhcp-differences">
              <thead>
                <tr>
                  <th scope="col">{t('dhcp.what')}</th>
                  <th scope="col">MAC</th>
                  <th scope="col">{t('dhcp.inventory')}</th>
                  <th scope="col">Kea</th>
                </tr>
              </thead>
              <tbody>
                {d.missing.map((r) => (
                  <tr key={`m${r.mac}`} data-difference="missing">
                    <td>{t('dhcp.missing')}</td>
                    <td>{r.mac}</td>
                    <td>{`${r.hostname} ${r.ip} (${r.subnet})`}</td>
                    <td />
                  </tr>
                ))}
                {d.extra.map((r) => (
                  <tr key={`e${r.mac}`} data-difference="extra">
                    <td>{t('dhcp.extra')}</td>
                    <td>{r.mac}</td>
                    <td />
                    <td>{`${r.hostname} ${r.ip} (${r.subnet})`}</td>
                  </tr>
                ))}
                {d.different.map((r) => (
                  <tr key={`d${r.mac}`} data-difference="different">
                    <td>{t('dhcp.different')}</td>
                    <td>{r.mac}</td>
                    <td>{`${r.inventory.hostname} ${r.inventory.ip}`}</td>
                    <td>{`${r.kea.hostname} ${r.kea.ip}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
      <h2>{t('dhcp.backups')}</h2>
      <ErrorNote error={backups.error} />
      {backups.value && backups.value.backups.length === 0 && <p class="hint">{t('dhcp.noBackups')}</p>}
      {backups.value && backups.value.backups.length > 0 && (
        <TableScroll>
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">{t('dhcp.backup')}</th>
                <th scope="col">{t('dhcp.takenAt')}</th>
                <th scope="col">{t('dhcp.reason')}</th>
                <th scope="col">{t('dhcp.reservations')}</th>
                <th scope="col">
                  <span class="sr-only">{t('actions.toolbar')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {backups.value.backups.map((b) => (
                <tr key={b.id} data-backup={b.id}>
                  <td>{b.id}</td>
                  <td>{dateTime(b.taken_at)}</td>
                  <td>{b.reason}</td>
                  <td>{t('dhcp.counts', { subnets: b.subnets, reservations: b.reservations })}</td>
                  <td>
                    {may(info, 'POST /dhcp/restore') && (
                      <button type="button" aria-label={t('dhcp.restoreOne', { id: b.id })} onClick={() => setRestoring(b)}>
                        {t('dhcp.restore')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {restoring && (
        <Dialog title={t('dhcp.restoreOne', { id: restoring.id })} onClose={() => setRestoring(null)}>
          <p class="warning">{t('dhcp.restoreWarning', { time: dateTime(restoring.taken_at) })}</p>
          <div class="buttons">
            <button
              type="button"
              class="danger"
              onClick={async () => {
                try {
                  await post('/dhcp/restore', { id: restoring.id });
                  setNote(t('dhcp.restored', { id: restoring.id }));
                  setRestoring(null);
                  reload();
                } catch (e) {
                  setError(e);
                  setRestoring(null);
                }
              }}
            >
              {t('dhcp.restore')}
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
