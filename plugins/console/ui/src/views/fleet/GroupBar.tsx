import { useState } from 'preact/hooks';
import { post } from '../../api';
import { Dialog } from '../../components/Dialog';
import { ErrorNote } from '../../components/ErrorNote';
import { Field } from '../../components/Field';
import { fleet, patchFleet, setSelection } from '../../fleet/fleet';
import { groupClients, loadGroups, type SavedGroup, useGroups } from '../../groups/groups';
import { t } from '../../i18n';
import { may, useServer } from '../../plugins';
import { useStore } from '../../store';
import { useRequest } from '../scheduler/useRequest';
import { GroupManager } from './GroupManager';
import { groupFilterWords } from './groupWords';

/** The fleet's search and place as a saved group's filter; null when neither is set (a group of everything is not offered). */
function filterOf(query: string, within: string | undefined): SavedGroup['filter'] | null {
  const text = query.trim();
  const [type, id] = (within ?? '').split(':');
  const place =
    type === 'center' || type === 'room' || type === 'folder' ? { type: type as 'center' | 'room' | 'folder', id: Number(id) } : undefined;
  if (!text && !place) return null;
  return { ...(place ? { within: place } : {}), ...(text ? { text } : {}) };
}

/**
 * Saved groups in the fleet: pick one to select its PCs as they are now (its filter is
 * resolved by the server at that moment), ready for any action; save the fleet's search and
 * place as a new group. Live states, the last result and an image are not part of a group.
 */
export function GroupBar() {
  const info = useServer();
  const list = useGroups();
  const { query, filters, model } = useStore(fleet);
  const [saving, setSaving] = useState(false);
  const [managing, setManaging] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [saved, setSaved] = useState('');
  const filter = filterOf(query, filters.within);
  const canSave = may(info, 'POST /groups') && filter !== null;
  if (!may(info, 'GET /groups')) return null;

  const pick = async (id: string) => {
    setError(null);
    const group = list.find((g) => String(g.id) === id);
    if (!group) return;
    try {
      const { clients } = await groupClients(group.id);
      const ips = new Set(clients.filter((ip) => model?.byIp.has(ip)));
      patchFleet({ query: '', filters: { states: new Set(), result: '', only: { label: t('groups.chip', { name: group.name }), ips } } });
      setSelection(ips);
    } catch (e) {
      setError(e as Error);
    }
  };

  return (
    <>
      {list.length > 0 && (
        <label class="result-filter">
          {t('groups.group')}{' '}
          <select value="" aria-label={t('groups.group')} onInput={(e) => void pick(e.currentTarget.value)}>
            <option value="">{t('groups.pick')}</option>
            {list.map((g) => (
              <option key={g.id} value={String(g.id)}>
                {t('groups.option', { name: g.name, count: g.count })}
              </option>
            ))}
          </select>
        </label>
      )}
      {canSave && (
        <button type="button" onClick={() => setSaving(true)}>
          {t('groups.save')}
        </button>
      )}
      {list.length > 0 && (
        <button type="button" onClick={() => setManaging(true)}>
          {t('groups.manage')}
        </button>
      )}
      <ErrorNote error={error} />
      {saved && (
        <p role="status" class="saved">
          {saved}
        </p>
      )}
      {saving && filter && (
        <Dialog title={t('groups.save')} onClose={() => setSaving(false)}>
          <SaveGroup
            filter={filter}
            what={groupFilterWords(filter, model)}
            leftOut={filters.states.size > 0 || !!filters.result || !!filters.only}
            done={(message) => {
              setSaving(false);
              setSaved(message);
            }}
          />
        </Dialog>
      )}
      {managing && <GroupManager fleetFilter={filter} onClose={() => setManaging(false)} />}
    </>
  );
}

function SaveGroup(props: { filter: SavedGroup['filter']; what: string; leftOut: boolean; done(message: string): void }) {
  const [name, setName] = useState('');
  const s = useRequest();
  const { filter } = props;
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        let message = '';
        const ok = await s.run(async () => {
          const group = await post<{ name: string; clients: string[] }>('/groups', { name, filter });
          message = t('groups.saved', { name: group.name, count: group.clients.length });
          return message;
        });
        if (ok) {
          await loadGroups();
          props.done(message);
        }
      }}
    >
      <p>{props.what}</p>
      <p class="hint">{t('groups.resolvedHint')}</p>
      {props.leftOut && <p class="hint">{t('groups.leftOut')}</p>}
      <Field label={t('field.name')} name="name" value={name} onInput={setName} error={s.error} required />
      {s.note(['name'])}
      <div class="buttons">
        <button type="submit" class="primary">
          {t('groups.saveButton')}
        </button>
      </div>
    </form>
  );
}
