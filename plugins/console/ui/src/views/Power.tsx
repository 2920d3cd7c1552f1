import { useEffect, useState } from 'preact/hooks';
import { api, get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Checkbox, Field } from '../components/Field';
import { TableScroll } from '../components/TableScroll';
import { fleet } from '../fleet/fleet';
import { type SavedGroup, useGroups } from '../groups/groups';
import type { TreeModel, TreeNode } from '../fleet/tree';
import { type MessageKey, t } from '../i18n';
import { useStore } from '../store';

const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Weekday = (typeof weekdays)[number];
type Times = { on?: string; off?: string };
type Holiday = { from: string; to: string; label: string };

interface Calendar {
  id: number;
  target: { type: 'center' | 'room' | 'folder' | 'group'; id: number };
  week: Partial<Record<Weekday, Times>>;
  holidays: Holiday[];
  force_off: boolean;
}

interface Planned {
  at: string;
  action: 'on' | 'off';
  calendar: number;
  clients: string[];
}

/** The form's state: every time as typed ('' for none), the target id as text. */
interface Draft {
  id?: number;
  type: Calendar['target']['type'];
  target: string;
  week: Record<Weekday, { on: string; off: string }>;
  holidays: Holiday[];
  force_off: boolean;
}

const blank = (): Draft => ({
  type: 'room',
  target: '',
  week: Object.fromEntries(weekdays.map((d) => [d, { on: '', off: '' }])) as Draft['week'],
  holidays: [],
  force_off: false,
});

function draftOf(c: Calendar): Draft {
  const week = blank().week;
  for (const d of weekdays) week[d] = { on: c.week[d]?.on ?? '', off: c.week[d]?.off ?? '' };
  return { id: c.id, type: c.target.type, target: String(c.target.id), week, holidays: c.holidays, force_off: c.force_off };
}

/** The request body: days with no time left out, the id as a number (the server names what is wrong). */
function bodyOf(d: Draft) {
  const week: Partial<Record<Weekday, Times>> = {};
  for (const day of weekdays) {
    const times: Times = {};
    if (d.week[day].on) times.on = d.week[day].on;
    if (d.week[day].off) times.off = d.week[day].off;
    if (times.on || times.off) week[day] = times;
  }
  return { target: { type: d.type, id: Number(d.target) }, week, holidays: d.holidays, force_off: d.force_off };
}

const dayKey = (d: Weekday) => `power.day.${d}` as MessageKey;

/** A folder of PCs (under a room), not of rooms: a calendar may target it. */
const holdsPcs = (node: TreeNode): boolean => {
  for (let at = node.parent; at; at = at.parent) if (at.type === 'room') return true;
  return false;
};

/** Where a node is, by name: "Lab 1 › Back row". */
function pathOf(node: TreeNode): string {
  const names: string[] = [];
  for (let at: TreeNode | undefined = node; at && at.type !== 'center'; at = at.parent)
    if (at.type !== 'folder' || holdsPcs(at)) names.unshift(at.name);
  return names.join(' › ');
}

/** What a calendar may govern, by name: each center whole, its rooms, its folders of PCs (one group per center), and the saved groups. */
function calendarTargets(model: TreeModel | null, groups: SavedGroup[]) {
  const saved = groups.map((g) => ({ value: `group:${g.id}`, label: g.name }));
  const places = (model?.roots ?? []).map((center) => {
    const options = [{ value: `center:${center.id}`, label: t('scheduler.wholeCenter', { name: center.name }) }];
    const walk = (node: TreeNode) => {
      for (const child of node.children) {
        if (child.type === 'room') options.push({ value: `room:${child.id}`, label: pathOf(child) });
        else if (child.type === 'folder' && holdsPcs(child)) options.push({ value: `folder:${child.id}`, label: pathOf(child) });
        if (child.type !== 'computer') walk(child);
      }
    };
    walk(center);
    return { group: center.name, options };
  });
  return saved.length > 0 ? [...places, { group: t('groups.savedGroups'), options: saved }] : places;
}

/** A calendar's target by name ("Lab 1 (School)"), or its kind and id when the tree does not hold it. */
function targetName(model: TreeModel | null, groups: SavedGroup[], target: Calendar['target']): string {
  if (target.type === 'group') return groups.find((g) => g.id === target.id)?.name ?? t('power.type.group', { id: target.id });
  const node = model?.byKey.get(`${target.type}:${target.id}`);
  if (!node) return t(`power.type.${target.type}` as MessageKey, { id: target.id });
  if (node.type === 'center') return node.name;
  let center: TreeNode | undefined = node.parent;
  while (center?.parent) center = center.parent;
  return center ? `${pathOf(node)} (${center.name})` : pathOf(node);
}

/** Power calendars (the power plugin): the list, one calendar's weekday grid and holidays, and what the next week holds. */
export function Power() {
  const [calendars, setCalendars] = useState<Calendar[] | null>(null);
  const [zone, setZone] = useState<{ zone: string; source: string; site: string } | null>(null);
  const [preview, setPreview] = useState<Planned[]>([]);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [note, setNote] = useState('');
  const { model } = useStore(fleet);
  const groups = useGroups();

  const load = async () => {
    try {
      const list = await get<{ time_zone: string; time_zone_source: string; site_time_zone: string; calendars: Calendar[] }>(
        '/power/calendars',
      );
      setCalendars(list.calendars);
      setZone({ zone: list.time_zone, source: list.time_zone_source, site: list.site_time_zone });
      setPreview((await get<{ actions: Planned[] }>('/power/calendar/preview?days=7')).actions);
    } catch (e) {
      setError(e as Error);
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const save = async () => {
    if (!draft) return;
    setError(null);
    try {
      const saved = await post<Calendar>(draft.id ? `/power/calendars/${draft.id}` : '/power/calendars', bodyOf(draft));
      setDraft(draftOf(saved));
      setNote(t('saved'));
      await load();
    } catch (e) {
      setError(e as Error);
    }
  };
  const remove = async (id: number) => {
    setError(null);
    try {
      await api('DELETE', `/power/calendars/${id}`);
      setDraft(null);
      await load();
    } catch (e) {
      setError(e as Error);
    }
  };
  const edit = (next: Draft | null) => {
    setNote('');
    setError(null);
    setDraft(next);
  };

  return (
    <section aria-labelledby="power-title">
      <h1 id="power-title">{t('nav.power')}</h1>
      {zone && <ZoneNote {...zone} />}
      {calendars && calendars.length === 0 && <p class="hint">{t('power.none')}</p>}
      {calendars && calendars.length > 0 && (
        <TableScroll>
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">{t('power.target')}</th>
                {weekdays.map((d) => (
                  <th scope="col" key={d}>
                    {t(dayKey(d))}
                  </th>
                ))}
                <th scope="col">{t('power.holidays')}</th>
                <th scope="col">{t('power.forceOff')}</th>
                <td />
              </tr>
            </thead>
            <tbody>
              {calendars.map((c) => (
                <tr key={c.id} data-calendar={c.id}>
                  <td data-target={`${c.target.type}:${c.target.id}`}>{targetName(model, groups, c.target)}</td>
                  {weekdays.map((d) => (
                    <td key={d}>
                      {[c.week[d]?.on && `↑ ${c.week[d]!.on}`, c.week[d]?.off && `↓ ${c.week[d]!.off}`].filter(Boolean).join(' ')}
                    </td>
                  ))}
                  <td>{c.holidays.length}</td>
                  <td>{c.force_off ? t('yes') : t('no')}</td>
                  <td>
                    <button type="button" onClick={() => edit(draftOf(c))}>
                      {t('power.edit')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <div class="buttons">
        <button type="button" class="primary" onClick={() => edit(blank())}>
          {t('power.new')}
        </button>
      </div>
      {draft && (
        <Editor draft={draft} zone={zone} onChange={setDraft} error={error} onSave={save} onRemove={remove} onCancel={() => edit(null)} />
      )}
      {!draft && <ErrorNote error={error} />}
      {note && (
        <p class="hint" role="status">
          {note}
        </p>
      )}
      <h2>{t('power.next')}</h2>
      {preview.length === 0 ? (
        <p class="hint">{t('power.nothingNext')}</p>
      ) : (
        <TableScroll>
          <table class="grid power-preview">
            <thead>
              <tr>
                <th scope="col">{t('power.when')}</th>
                <th scope="col">{t('power.action')}</th>
                <th scope="col">{t('power.clients')}</th>
              </tr>
            </thead>
            <tbody>
              {preview.map((p) => (
                <tr key={`${p.calendar}-${p.at}-${p.action}`}>
                  <td>{p.at.replace('T', ' ').slice(0, 16)}</td>
                  <td>{p.action === 'on' ? t('power.on') : t('power.off')}</td>
                  <td title={p.clients.join(', ')}>{p.clients.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

/** Which clock the calendars' times are on: the site's, or power.time_zone's override of it, said as such. */
function ZoneNote(props: { zone: string; source: string; site: string }) {
  return (
    <p class="hint zone-note" data-zone={props.zone} data-source={props.source}>
      {props.source === 'power.time_zone'
        ? t('zone.powerOverride', { zone: props.zone, site: props.site })
        : t('zone.forms', { zone: props.zone })}
    </p>
  );
}

function Editor(props: {
  draft: Draft;
  zone: { zone: string; source: string; site: string } | null;
  onChange: (d: Draft) => void;
  error: { field?: string; message: string } | null;
  onSave: () => void;
  onRemove: (id: number) => void;
  onCancel: () => void;
}) {
  const { draft, error } = props;
  const { model } = useStore(fleet);
  const groups = useGroups();
  const set = (patch: Partial<Draft>) => props.onChange({ ...draft, ...patch });
  const setTime = (day: Weekday, which: 'on' | 'off', value: string) =>
    set({ week: { ...draft.week, [day]: { ...draft.week[day], [which]: value } } });
  const setHoliday = (i: number, patch: Partial<Holiday>) =>
    set({ holidays: draft.holidays.map((h, k) => (k === i ? { ...h, ...patch } : h)) });
  const named = ['target.type', 'target.id', ...weekdays.flatMap((d) => [`week.${d}.on`, `week.${d}.off`])];
  const shownElsewhere = error?.field && (named.includes(error.field) || error.field.startsWith('holidays['));
  return (
    <form
      class="power-editor"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSave();
      }}
    >
      <h2>{draft.id ? t('power.editing', { id: draft.id }) : t('power.new')}</h2>
      <div class="form-grid">
        <Field
          label={t('power.calendarOf')}
          name="target.id"
          value={draft.target ? `${draft.type}:${draft.target}` : ''}
          options={[{ value: '', label: t('power.pickTarget') }, ...calendarTargets(model, groups)]}
          onInput={(v) => {
            const [type = 'room', id = ''] = v.split(':');
            set({ type: type as Draft['type'], target: id });
          }}
          error={error?.field === 'target.type' ? { ...error, field: 'target.id' } : error}
        />
      </div>
      {props.zone && <ZoneNote {...props.zone} />}
      <table class="grid power-week">
        <thead>
          <tr>
            <td />
            <th scope="col">{t('power.on')}</th>
            <th scope="col">{t('power.off')}</th>
          </tr>
        </thead>
        <tbody>
          {weekdays.map((d) => (
            <tr key={d} data-day={d}>
              <th scope="row">{t(dayKey(d))}</th>
              {(['on', 'off'] as const).map((which) => (
                <td key={which}>
                  <Field
                    label={`${t(dayKey(d))}: ${which === 'on' ? t('power.on') : t('power.off')}`}
                    name={`week.${d}.${which}`}
                    type="time"
                    value={draft.week[d][which]}
                    onInput={(v) => setTime(d, which, v)}
                    error={error}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <h3>{t('power.holidays')}</h3>
      {draft.holidays.map((h, i) => (
        <div class="form-grid power-holiday" key={i} data-holiday={i}>
          <Field
            label={t('power.from')}
            name={`holidays[${i}].from`}
            type="date"
            value={h.from}
            onInput={(v) => setHoliday(i, { from: v })}
            error={error}
          />
          <Field
            label={t('power.to')}
            name={`holidays[${i}].to`}
            type="date"
            value={h.to}
            onInput={(v) => setHoliday(i, { to: v })}
            error={error}
          />
          <Field
            label={t('power.label')}
            name={`holidays[${i}].label`}
            value={h.label}
            onInput={(v) => setHoliday(i, { label: v })}
            error={error}
          />
          <button type="button" onClick={() => set({ holidays: draft.holidays.filter((_, k) => k !== i) })}>
            {t('remove')}
          </button>
        </div>
      ))}
      <div class="buttons">
        <button type="button" onClick={() => set({ holidays: [...draft.holidays, { from: '', to: '', label: '' }] })}>
          {t('power.addHoliday')}
        </button>
      </div>
      <Checkbox label={t('power.forceOffLong')} name="force_off" checked={draft.force_off} onChange={(v) => set({ force_off: v })} />
      <ErrorNote error={error && !shownElsewhere ? error : null} />
      <div class="buttons">
        <button type="submit" class="primary">
          {t('save')}
        </button>
        {draft.id !== undefined && (
          <button type="button" class="danger" onClick={() => props.onRemove(draft.id!)}>
            {t('power.delete')}
          </button>
        )}
        <button type="button" onClick={props.onCancel}>
          {t('cancel')}
        </button>
      </div>
    </form>
  );
}
