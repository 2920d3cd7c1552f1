import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Checkbox, Field } from '../components/Field';
import { fleet } from '../fleet/fleet';
import { useGroups } from '../groups/groups';
import { t } from '../i18n';
import { useStore } from '../store';
import { useAsync } from '../useAsync';
import { ScheduleForm } from './scheduler/ScheduleForm';
import { ScheduleList, type ScheduleRow } from './scheduler/ScheduleList';
import { targetOf, targetOptions } from './scheduler/targets';
import { useRequest } from './scheduler/useRequest';
import { type Catalogue, SchedulerCatalogue } from './SchedulerCatalogue';

const commands = [
  'wol',
  'poweroff',
  'reboot',
  'refresh',
  'hardware',
  'software',
  'session',
  'run',
  'image_create',
  'image_restore',
  'setup',
];

/**
 * The scheduler (when enabled): schedules listed, created, suspended and deleted; procedures
 * and tasks created, run and deleted. Everything is picked by name: procedures and tasks from
 * the catalogue, centers, rooms and computers from the tree.
 */
export function Scheduler() {
  const schedules = useAsync(() => post<{ schedule: ScheduleRow[] }>('/schedule/get', {}));
  const catalogue = useAsync(async (): Promise<Catalogue> => {
    const [procedures, tasks] = await Promise.all([
      get<Pick<Catalogue, 'procedures'>>('/procedures'),
      get<Pick<Catalogue, 'tasks'>>('/tasks'),
    ]);
    return { ...procedures, ...tasks };
  });
  const { model, selection } = useStore(fleet);
  // The saved groups, among the targets of tasks and schedules (the page follows their store).
  useGroups();
  const centers = (model?.roots ?? []).map((c) => ({ value: String(c.id), label: c.name }));
  const procedures = catalogue.value?.procedures ?? [];
  const tasks = catalogue.value?.tasks ?? [];
  const [procedure, setProcedure] = useState({ center: '', name: '', description: '', steps: 'wol' });
  const [task, setTask] = useState({ center: '', name: '', target: '' });
  const [find, setFind] = useState('');
  /** The procedures of the new task, in the order they were ticked. */
  const [taskSteps, setTaskSteps] = useState<number[]>([]);
  const [run, setRun] = useState({ procedure: '', task: '' });
  const p = useRequest();
  const k = useRequest();
  const r = useRequest();
  const center = (value: string) => value || centers[0]?.value || '';
  const runProcedure = run.procedure || String(procedures[0]?.id ?? '');
  const runTask = run.task || String(tasks[0]?.id ?? '');
  const procedureName = (id: number) => procedures.find((x) => x.id === id)?.name ?? String(id);
  const reloadAll = () => {
    schedules.reload();
    catalogue.reload();
  };
  return (
    <section aria-labelledby="scheduler-title" class="scheduler">
      <h1 id="scheduler-title">{t('nav.scheduler')}</h1>
      <h2>{t('scheduler.schedules')}</h2>
      <ErrorNote error={schedules.error} />
      <ScheduleList schedules={schedules.value?.schedule ?? []} catalogue={catalogue.value} model={model} onChanged={schedules.reload} />
      <ScheduleForm catalogue={catalogue.value} model={model} onCreated={reloadAll} />
      <SchedulerCatalogue
        catalogue={catalogue.value}
        error={catalogue.error}
        model={model}
        centerName={(id) => centers.find((c) => c.value === String(id))?.label ?? String(id)}
      />

      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const steps = procedure.steps
            .split(/[\s,]+/)
            .filter(Boolean)
            .map((command) => ({ command }));
          const body = { center: center(procedure.center), name: procedure.name, description: procedure.description, steps };
          if (await p.send('/procedure/add', body, (a) => t('scheduler.created', { id: String(a.id) }))) catalogue.reload();
        }}
      >
        <fieldset>
          <legend>{t('scheduler.newProcedure')}</legend>
          <div class="form-grid">
            <Field
              label={t('kind.center')}
              name="center"
              value={center(procedure.center)}
              onInput={(v) => setProcedure({ ...procedure, center: v })}
              options={centers}
              error={p.error}
            />
            <Field
              label={t('field.name')}
              name="name"
              value={procedure.name}
              onInput={(v) => setProcedure({ ...procedure, name: v })}
              error={p.error}
              required
            />
            <Field
              label={t('scheduler.description')}
              name="description"
              value={procedure.description}
              onInput={(v) => setProcedure({ ...procedure, description: v })}
              error={p.error}
            />
            <Field
              label={t('scheduler.steps')}
              name="steps"
              value={procedure.steps}
              onInput={(v) => setProcedure({ ...procedure, steps: v })}
              error={p.error}
              hint={commands.join(', ')}
            />
          </div>
        </fieldset>
        {p.note(['center', 'name', 'description', 'steps'])}
        <div class="buttons">
          <button type="submit" class="primary">
            {t('scheduler.createProcedure')}
          </button>
        </div>
      </form>

      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const on = task.target ? targetOf(model, task.target) : null;
          const added = await k.send(
            '/task/add',
            {
              center: center(task.center),
              name: task.name,
              steps: taskSteps.map((id) => ({ procedure: id })),
              ...(on ? { scope: on.scope } : {}),
            },
            (a) => t('scheduler.created', { id: String(a.id) }),
          );
          if (added) {
            setTaskSteps([]);
            catalogue.reload();
          }
        }}
      >
        <fieldset>
          <legend>{t('scheduler.newTask')}</legend>
          <div class="form-grid">
            <Field
              label={t('kind.center')}
              name="center"
              value={center(task.center)}
              onInput={(v) => setTask({ ...task, center: v })}
              options={centers}
              error={k.error}
            />
            <Field
              label={t('field.name')}
              name="name"
              value={task.name}
              onInput={(v) => setTask({ ...task, name: v })}
              error={k.error}
              required
            />
            <Field label={t('scheduler.find')} name="find" type="search" value={find} onInput={setFind} hint={t('scheduler.findHint')} />
            <Field
              label={t('scheduler.on')}
              name="scope.id"
              value={task.target}
              onInput={(v) => setTask({ ...task, target: v })}
              options={[{ value: '', label: t('scheduler.nowhere') }, ...targetOptions(model, find, task.target)]}
              error={k.error}
            />
          </div>
          <fieldset class="bare task-steps">
            <legend>{t('scheduler.taskProcedures')}</legend>
            {procedures.map((x) => (
              <Checkbox
                key={x.id}
                label={x.name}
                name="steps"
                checked={taskSteps.includes(x.id)}
                onChange={(on) => setTaskSteps(on ? [...taskSteps, x.id] : taskSteps.filter((id) => id !== x.id))}
              />
            ))}
            {taskSteps.length > 0 && <p class="hint">{t('scheduler.order', { names: taskSteps.map(procedureName).join(', ') })}</p>}
          </fieldset>
        </fieldset>
        {k.note(['center', 'name', 'scope.id'])}
        <div class="buttons">
          <button type="submit" class="primary">
            {t('scheduler.createTask')}
          </button>
        </div>
      </form>

      <fieldset>
        <legend>{t('scheduler.runDelete')}</legend>
        <div class="form-grid">
          <Field
            label={t('scheduler.procedureLabel')}
            name="procedure"
            value={runProcedure}
            onInput={(v) => setRun({ ...run, procedure: v })}
            options={procedures.map((x) => ({ value: String(x.id), label: x.name }))}
            error={r.error}
          />
          <Field
            label={t('scheduler.taskLabel')}
            name="task"
            value={runTask}
            onInput={(v) => setRun({ ...run, task: v })}
            options={tasks.map((x) => ({ value: String(x.id), label: x.name }))}
            error={r.error}
          />
        </div>
        <div class="buttons">
          <button
            type="button"
            disabled={!runProcedure || selection.size === 0}
            onClick={() =>
              r.send('/procedure/run', { procedure: runProcedure, clients: [...selection] }, () =>
                t('scheduler.ran', { count: selection.size }),
              )
            }
          >
            {t('scheduler.runProcedure', { count: selection.size })}
          </button>
          <button type="button" disabled={!runTask} onClick={() => r.send('/task/run', { task: runTask }, () => t('scheduler.taskRan'))}>
            {t('scheduler.runTask')}
          </button>
          <button
            type="button"
            class="danger-outline"
            disabled={!runProcedure}
            onClick={async () => {
              if (await r.send('/procedure/delete', { id: runProcedure }, () => t('scheduler.deleted'))) {
                setRun({ ...run, procedure: '' });
                catalogue.reload();
              }
            }}
          >
            {t('scheduler.deleteProcedure')}
          </button>
        </div>
        {r.note(['procedure', 'task', 'clients'])}
      </fieldset>
    </section>
  );
}
