import { useState } from 'preact/hooks';
import { api, post } from '../../api';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { TableScroll } from '../../components/TableScroll';
import { fleet } from '../../fleet/fleet';
import { loadGroups, type SavedGroup, useGroups } from '../../groups/groups';
import { t } from '../../i18n';
import { may, useServer } from '../../plugins';
import { useStore } from '../../store';
import { useRequest } from '../scheduler/useRequest';
import { groupFilterWords } from './groupWords';

type Step = { kind: 'rename' | 'replace' | 'delete'; group: SavedGroup };

/**
 * The saved groups listed with what each finds now; an admin renames one, gives it the fleet's
 * current search and place as its filter, or deletes it (the server refuses, naming them,
 * while a schedule or power calendar uses it). One step at a time inside the one dialog.
 */
export function GroupManager(props: { fleetFilter: SavedGroup['filter'] | null; onClose(): void }) {
  const info = useServer();
  const list = useGroups();
  const { model } = useStore(fleet);
  const [step, setStep] = useState<Step | null>(null);
  const [done, setDone] = useState('');
  const admin = may(info, 'POST /groups/:id', 'DELETE /groups/:id');
  const finish = async (message: string) => {
    await loadGroups();
    setStep(null);
    setDone(message);
  };
  const back = () => setStep(null);

  if (step) {
    const { group } = step;
    const title =
      step.kind === 'rename'
        ? t('groups.renameTitle', { name: group.name })
        : step.kind === 'replace'
          ? t('groups.replaceTitle', { name: group.name })
          : t('groups.deleteTitle', { name: group.name });
    return (
      <Dialog title={title} onClose={back}>
        {step.kind === 'rename' && <RenameGroup group={group} back={back} done={finish} />}
        {step.kind === 'replace' && props.fleetFilter && (
          <ReplaceFilter
            group={group}
            now={groupFilterWords(group.filter, model)}
            then={groupFilterWords(props.fleetFilter, model)}
            filter={props.fleetFilter}
            back={back}
            done={finish}
          />
        )}
        {step.kind === 'delete' && <DeleteGroup group={group} back={back} done={finish} />}
      </Dialog>
    );
  }
  return (
    <Dialog title={t('groups.savedGroups')} onClose={props.onClose} wide>
      {done && (
        <p role="status" class="saved">
          {done}
        </p>
      )}
      <TableScroll>
        <table class="grid saved-groups">
          <thead>
            <tr>
              <th>{t('field.name')}</th>
              <th>{t('groups.finds')}</th>
              <th>{t('groups.pcsNow')}</th>
              {admin && <th>{t('actions.toolbar')}</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((g) => (
              <tr key={g.id} data-group={g.id}>
                <td>{g.name}</td>
                <td>{groupFilterWords(g.filter, model)}</td>
                <td>{g.count}</td>
                {admin && (
                  <td class="row-actions">
                    <button type="button" onClick={() => setStep({ kind: 'rename', group: g })}>
                      {t('groups.rename')}
                    </button>
                    {props.fleetFilter && (
                      <button type="button" onClick={() => setStep({ kind: 'replace', group: g })}>
                        {t('groups.replace')}
                      </button>
                    )}
                    <button type="button" class="danger-outline" onClick={() => setStep({ kind: 'delete', group: g })}>
                      {t('node.delete')}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {admin && !props.fleetFilter && <p class="hint">{t('groups.noFleetFilter')}</p>}
    </Dialog>
  );
}

type StepProps = { group: SavedGroup; back(): void; done(message: string): Promise<void> };

function Cancel(props: { back(): void }) {
  return (
    <button type="button" onClick={props.back}>
      {t('cancel')}
    </button>
  );
}

function RenameGroup(props: StepProps) {
  const { group } = props;
  const [name, setName] = useState(group.name);
  const s = useRequest();
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        const message = t('groups.renamed', { old: group.name, name: name.trim() });
        const ok = await s.run(async () => {
          await post(`/groups/${group.id}`, { name, filter: group.filter });
          return message;
        });
        if (ok) await props.done(message);
      }}
    >
      <Field label={t('field.name')} name="name" value={name} onInput={setName} error={s.error} required />
      {s.note(['name'])}
      <div class="buttons">
        <Cancel back={props.back} />
        <button type="submit" class="primary">
          {t('groups.rename')}
        </button>
      </div>
    </form>
  );
}

function ReplaceFilter(props: StepProps & { now: string; then: string; filter: SavedGroup['filter'] }) {
  const { group } = props;
  const s = useRequest();
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        let message = '';
        const ok = await s.run(async () => {
          const saved = await post<{ clients: string[] }>(`/groups/${group.id}`, { name: group.name, filter: props.filter });
          message = t('groups.replaced', { name: group.name, count: saved.clients.length });
          return message;
        });
        if (ok) await props.done(message);
      }}
    >
      <p>{t('groups.filterNow', { what: props.now })}</p>
      <p>{t('groups.filterThen', { what: props.then })}</p>
      <p class="hint">{t('groups.resolvedHint')}</p>
      {s.note([])}
      <div class="buttons">
        <Cancel back={props.back} />
        <button type="submit" class="primary">
          {t('groups.replaceButton')}
        </button>
      </div>
    </form>
  );
}

function DeleteGroup(props: StepProps) {
  const { group } = props;
  const s = useRequest();
  const message = t('groups.deleted', { name: group.name });
  return (
    <>
      <p class="warning">{t('groups.confirmDelete', { name: group.name })}</p>
      {s.note([])}
      <div class="buttons">
        <Cancel back={props.back} />
        <button
          type="button"
          class="danger"
          onClick={async () => {
            const ok = await s.run(async () => {
              await api('DELETE', `/groups/${group.id}`);
              return message;
            });
            if (ok) await props.done(message);
          }}
        >
          {t('node.delete')}
        </button>
      </div>
    </>
  );
}
