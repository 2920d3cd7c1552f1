import { useEffect, useState } from 'preact/hooks';
import { api, get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { TableScroll } from '../components/TableScroll';
import { humanBytes } from '../format';
import { t } from '../i18n';
import { enabled, may, useServer } from '../plugins';
import { go, href } from '../router';
import type { JobDetail, MulticastSession } from '../types';

/** How often a running session is read again (its rate and bytes are not sent as events). */
const pollMs = 2000;

/** PC states the image did not reach: the multicast plugin's retry sends them it again. */
const unreached = new Set(['dropped', 'missing', 'cancelled', 'failed']);

/** Whether a job is a multicast restore: its session(s) are shown on its page. */
export function isMulticastJob(job: JobDetail): boolean {
  const type = (job.params as { type?: unknown } | null)?.type;
  return job.kind === 'image/restore' && typeof type === 'string' && type.toUpperCase() === 'MULTICAST';
}

/** A multicast restore's sessions on its job's page: joined of expected, rate, drops, each PC's part; cancel, and the PCs it did not reach sent the image again by unicast. */
export function JobMulticast(props: { job: JobDetail }) {
  const info = useServer();
  const [sessions, setSessions] = useState<MulticastSession[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  const show = enabled(info, 'multicast') && isMulticastJob(props.job);
  useEffect(() => {
    if (!show) return;
    let gone = false;
    void (async () => {
      try {
        const listed = await get<{ sessions: { id: number }[] }>(`/multicast/sessions?job=${props.job.id}`);
        const read = await Promise.all(listed.sessions.map((s) => get<MulticastSession>(`/multicast/sessions/${s.id}`)));
        if (!gone) {
          setSessions(read);
          setError(null);
        }
      } catch (e) {
        if (!gone) setError(e as Error);
      }
    })();
    return () => {
      gone = true;
    };
  }, [show, props.job.id, tick]);
  const running = sessions.some((s) => s.state === 'waiting' || s.state === 'sending');
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(() => setTick((n) => n + 1), pollMs);
    return () => clearTimeout(timer);
  }, [running, sessions]);
  if (!show) return null;
  return (
    <section class="multicast" aria-label={t('multicast.sessions')}>
      <ErrorNote error={error} />
      {sessions.map((session) => (
        <Session
          key={session.id}
          session={session}
          cancel={may(info, 'DELETE /multicast/sessions/:id')}
          retry={may(info, 'POST /multicast/sessions/:id/retry')}
          changed={() => setTick((n) => n + 1)}
          failed={setError}
        />
      ))}
    </section>
  );
}

function Session(props: { session: MulticastSession; cancel: boolean; retry: boolean; changed(): void; failed(e: Error): void }) {
  const { session: s } = props;
  const live = s.state === 'waiting' || s.state === 'sending';
  const missed = s.clients.filter((c) => unreached.has(c.state)).map((c) => c.addr);
  const dropped = s.clients.filter((c) => c.state === 'dropped').length;
  const act = async (what: () => Promise<unknown>) => {
    try {
      await what();
      props.changed();
    } catch (e) {
      props.failed(e as Error);
    }
  };
  return (
    <div class="multicast-session" data-session={s.id} data-state={s.state}>
      <h2>{t('multicast.session', { id: s.id, room: s.room.name, state: t(`multicastState.${s.state}`) })}</h2>
      <p>
        {t('multicast.summary', {
          joined: s.joined,
          expected: s.expected,
          dropped,
          rate: `${humanBytes(s.rate)}/s`,
          address: `${s.address}:${s.port}`,
        })}
        {s.reason && ` ${s.reason}`}
      </p>
      <progress max={s.size} value={s.bytes} aria-label={t('multicast.bytes', { bytes: humanBytes(s.bytes), size: humanBytes(s.size) })} />{' '}
      {t('multicast.bytes', { bytes: humanBytes(s.bytes), size: humanBytes(s.size) })}
      <div class="buttons">
        {live && props.cancel && (
          <button type="button" onClick={() => void act(() => api('DELETE', `/multicast/sessions/${s.id}`))}>
            {t('multicast.cancel')}
          </button>
        )}
        {!live && missed.length > 0 && props.retry && (
          <button
            type="button"
            class="primary"
            onClick={() =>
              void act(async () => {
                const answer = await post<{ job?: number }>(`/multicast/sessions/${s.id}/retry`, { type: 'UNICAST' });
                if (answer.job !== undefined) go('job', String(answer.job));
              })
            }
          >
            {t('multicast.retry', { count: missed.length })}
          </button>
        )}
      </div>
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">{t('job.client')}</th>
              <th scope="col">{t('multicast.part')}</th>
              <th scope="col">{t('multicast.received')}</th>
              <th scope="col">{t('multicast.slow')}</th>
            </tr>
          </thead>
          <tbody>
            {s.clients.map((c) => (
              <tr key={c.addr} data-ip={c.addr} data-state={c.state}>
                <td>
                  <a href={href('client', c.addr)}>{c.addr}</a>
                </td>
                <td class={`multicast-${c.state}`}>
                  {t(`multicastClient.${c.state}`)}
                  {c.reason && ` (${c.reason})`}
                </td>
                <td>{humanBytes(c.bytes)}</td>
                <td>{c.slow}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </div>
  );
}
