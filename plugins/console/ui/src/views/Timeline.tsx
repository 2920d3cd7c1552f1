import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { StateBadge } from '../components/StateBadge';
import { dateOnly, timeOfDay } from '../format';
import { type MessageKey, t } from '../i18n';
import { href } from '../router';
import type { HistoryEntry } from '../types';
import { askerText, kindLabel, outcomeText, whatText } from './jobWords';
import { AuditDetails } from './AuditDetails';
import { hardwareName } from '../hardwareNames';

/** One entry of GET /client/timeline (the history plugin's answer, each plugin's records). */
interface Entry {
  time: string;
  kind: string;
  summary: string;
  who: string | null;
  source: string | null;
  state: string | null;
  job: number | null;
  data: Record<string, unknown>;
}

/** What the timeline can be narrowed to: a job's wakes apart from its commands. */
const shownKinds = ['job', 'wake', 'power', 'session', 'boot', 'change', 'audit'] as const;
type ShownKind = (typeof shownKinds)[number];
const kindOf = (e: Entry): ShownKind | string => (e.kind === 'job' && e.data.kind === 'wol' ? 'wake' : e.kind);

const chipLabel: Record<ShownKind, MessageKey> = {
  job: 'timeline.jobs',
  wake: 'timeline.wakes',
  power: 'timeline.power',
  session: 'timeline.sessions',
  boot: 'timeline.boots',
  change: 'timeline.changes',
  audit: 'timeline.audit',
};

/** Whether an entry went wrong: red, as a failure is everywhere. */
const wrong = (e: Entry) => e.state === 'failed' || e.state === 'timed_out' || e.state === 'alert';

/** An entry in words: what happened, how it ended, with its details. */
function EntryText({ entry }: { entry: Entry }) {
  const { data } = entry;
  switch (kindOf(entry)) {
    case 'wake':
      return (
        <>
          <strong>{t('action.wake')}</strong>: <span class={`job-state job-${entry.state}`}>{outcomeText(String(data.outcome || ''))}</span>
        </>
      );
    case 'job': {
      const what = whatText(String(data.kind), data.params as Record<string, unknown> | null);
      return (
        <>
          <strong>{kindLabel(String(data.kind))}</strong>
          {what && ` · ${what}`}: <span class={`job-state job-${entry.state}`}>{t(`jobState.${entry.state}` as MessageKey)}</span>
          {data.outcome && entry.state !== 'sent' ? ` · ${outcomeText(String(data.outcome))}` : ''}
        </>
      );
    }
    case 'power':
      return (
        <>
          <strong>{t('timeline.powerState')}</strong>: {t(`timeline.power.${entry.state}` as MessageKey)}
          {data.ended ? ` ${t('timeline.until', { time: timeOfDay(String(data.ended)) })}` : ''}
        </>
      );
    case 'session':
      return (
        <>
          <strong>{t(entry.state === 'start' ? 'timeline.signIn' : 'timeline.signOut')}</strong>:{' '}
          <span class="session-user">{String(data.user)}</span>
          {data.os ? ` · ${String(data.os)}` : ''}
        </>
      );
    case 'boot': {
      const stages = data.stages as { stage: string; at: string; state?: string; cut_short?: boolean }[];
      const up = stages.find((s) => s.stage === 'agent');
      return (
        <>
          <strong>{t('timeline.boot')}</strong>: {stages.map((s) => t(`bootStage.${s.stage}` as MessageKey)).join(' → ')}
          {up?.state && (
            <>
              {' '}
              <StateBadge state={up.state} />
            </>
          )}
          {stages.some((s) => s.cut_short) && <span class="result-failure"> · {t('boot.cutShort')}</span>}
        </>
      );
    }
    case 'change': {
      const changes = data.changes as HistoryEntry[];
      return (
        <>
          <strong>
            {data.inventory === 'hardware'
              ? t('timeline.hardware')
              : t('timeline.software', { disk: String(data.disk), partition: String(data.partition) })}
          </strong>
          :{' '}
          {changes
            .map((c) => {
              const what = c.kind === 'hardware' ? hardwareName(c.type ?? c.type_name ?? '') : c.package || t('timeline.os');
              const change = t(`history.change.${c.change}` as MessageKey);
              return c.before && c.after
                ? `${what} ${change}: ${c.before} → ${c.after}`
                : `${what} ${change}: ${c.after ?? c.before ?? ''}`;
            })
            .join('; ')}
        </>
      );
    }
    case 'audit':
      return (data.changes as unknown[]).length > 0 ? (
        <>
          <strong>{t('timeline.record', { path: String(data.path) })}</strong>
          <AuditDetails entry={{ changes: data.changes } as never} />
        </>
      ) : (
        <strong>{t('timeline.asked', { path: `${String(data.method)} ${String(data.path)}` })}</strong>
      );
    default:
      return <>{entry.summary}</>;
  }
}

/**
 * A PC's timeline (GET /client/timeline): what was done to it and what happened to it, newest
 * first, from every plugin that keeps records of PCs: commands and their outcomes, wakes and
 * whether it woke, power states, sign-ins and sign-outs by user, network boots, inventory
 * changes, changes of its record, each with who asked; by day on the site's clock, a page at a time, narrowed by kind.
 */
export function ClientTimeline(props: { ip: string }) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [missing, setMissing] = useState<string[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const load = async (before?: number) => {
    try {
      const query = new URLSearchParams({ client: props.ip });
      if (before !== undefined) query.set('before', String(before));
      const page = await get<{ entries: Entry[]; next: number | null; missing: string[] }>(`/client/timeline?${query}`);
      setEntries(before === undefined ? page.entries : [...(entries ?? []), ...page.entries]);
      setNext(page.next);
      setMissing(page.missing);
      setError(null);
    } catch (e) {
      setError(e as Error);
    }
  };
  useEffect(() => {
    void load();
  }, [props.ip]);

  const shown = (entries ?? []).filter((e) => !hidden.has(kindOf(e)));
  const present = new Set((entries ?? []).map(kindOf));
  const days = new Map<string, Entry[]>();
  for (const entry of shown) {
    const day = dateOnly(entry.time);
    days.set(day, [...(days.get(day) ?? []), entry]);
  }
  return (
    <section aria-labelledby="timeline-title" class="timeline">
      <h2 id="timeline-title">{t('timeline.title')}</h2>
      <ErrorNote error={error} />
      {missing.length > 0 && <p class="warning">{t('timeline.missing', { plugins: missing.join(', ') })}</p>}
      {present.size > 1 && (
        <fieldset class="chips bare">
          <legend class="sr-only">{t('timeline.show')}</legend>
          {shownKinds
            .filter((k) => present.has(k))
            .map((k) => (
              <button
                key={k}
                type="button"
                class="chip"
                data-kind={k}
                aria-pressed={!hidden.has(k)}
                onClick={() => {
                  const next = new Set(hidden);
                  if (next.has(k)) next.delete(k);
                  else next.add(k);
                  setHidden(next);
                }}
              >
                {t(chipLabel[k])}
              </button>
            ))}
        </fieldset>
      )}
      {entries && entries.length === 0 && <p class="hint">{t('timeline.none')}</p>}
      {[...days].map(([day, list]) => (
        <section key={day} class="timeline-day" aria-label={day}>
          <h3>{day}</h3>
          <ol class="timeline-list">
            {list.map((entry, i) => (
              <li
                key={`${entry.time}-${entry.kind}-${entry.job ?? i}`}
                data-kind={kindOf(entry)}
                data-state={entry.state ?? undefined}
                class={wrong(entry) ? 'timeline-entry wrong' : 'timeline-entry'}
              >
                <time dateTime={entry.time}>{timeOfDay(entry.time)}</time>
                <div class="timeline-text">
                  <EntryText entry={entry} />
                  {/* A session's who is its user, named in its text already. */}
                  {((entry.who !== null && entry.kind !== 'session') || entry.job !== null) && (
                    <p class="timeline-who">
                      {entry.who !== null && entry.kind !== 'session' && t('timeline.by', { who: askerText(entry.who, entry.source) })}
                      {entry.job !== null && (
                        <>
                          {' '}
                          <a href={href('job', String(entry.job))}>{t('runs.job', { id: entry.job })}</a>
                        </>
                      )}
                    </p>
                  )}
                </div>
              </li>
            ))}
          </ol>
        </section>
      ))}
      {next !== null && (
        <div class="buttons">
          <button type="button" onClick={() => void load(next)}>
            {t('timeline.older')}
          </button>
        </div>
      )}
    </section>
  );
}
