import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { fleet } from '../fleet/fleet';
import { t } from '../i18n';
import { useStore } from '../store';
import { useAsync } from '../useAsync';
import { type Catalogue, SchedulerCatalogue } from './SchedulerCatalogue';
import { TableScroll } from '../components/TableScroll';

interface Schedule {
  id: number;
  task: number;
  name: string;
  type: string;
  years: number[];
  months: number;
  days: number;
  hours: number;
  am_pm: number;
  minutes: number;
}

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

/** A date and time as the reference's masks: one year, one month, one day, one hour, a minute. */
export function whenOf(local: string) {
  const date = new Date(local);
  const hour = date.getHours();
  return {
    years: date.getFullYear(),
    months: 1 << date.getMonth(),
    days: 1 << (date.getDate() - 1),
    hours: 1 << (hour % 12),
    am_pm: hour >= 12 ? 1 : 0,
    minutes: date.getMinutes(),
  };
}

const bits = (mask: number) => [...Array(32).keys()].filter((i) => mask & (1 << i));

function describeWhen(s: Schedule): string {
  const hours = bits(s.hours).map((h) => h + 12 * s.am_pm);
  return `${s.years.join(',')} · ${t('scheduler.monthsDays', {
    months: bits(s.months)
      .map((m) => m + 1)
      .join(','),
    days: bits(s.days)
      .map((d) => d + 1)
      .join(','),
  })} · ${hours.map((h) => `${String(h).padStart(2, '0')}:${String(s.minutes).padStart(2, '0')}`).join(', ')}`;
}

/** Results of the forms below, each said under its form. */
function useRequest() {
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [message, setMessage] = useState('');
  const send = async (path: string, body: unknown, success: (answer: Record<string, unknown>) => string) => {
    setError(null);
    setMessage('');
    try {
      setMessage(success(await post(path, body)));
      return true;
    } catch (e) {
      setError(e as Error);
      return false;
    }
  };
  const note = (fields: string[]) => (
    <>
      <ErrorNote error={error && !fields.includes(error.field ?? '') ? error : null} />
      {message && (
        <p role="status" class="saved">
          {message}
        </p>
      )}
    </>
  );
  return { error, send, note };
}

/** The scheduler (when enabled): schedules listed and deleted; procedures and tasks created, run and deleted. */
export function Scheduler() {
  const schedules = useAsync(() => post<{ schedule: Schedule[] }>('/schedule/get', {}));
  const catalogue = useAsync(async (): Promise<Catalogue> => {
    const [procedures, tasks] = await Promise.all([
      get<Pick<Catalogue, 'procedures'>>('/procedures'),
      get<Pick<Catalogue, 'tasks'>>('/tasks'),
    ]);
    return { ...procedures, ...tasks };
  });
  const { model, selection } = useStore(fleet);
  const centers = (model?.roots ?? []).map((c) => ({ value: String(c.id), label: c.name }));
  const [procedure, setProcedure] = useState({ center: '', name: '', description: '', steps: 'wol' });
  const [task, setTask] = useState({ center: '', name: '', procedures: '', scopeType: 'center', scopeId: '' });
  const [schedule, setSchedule] = useState({ task: '', name: '', type: 'task', when: '' });
  const [run, setRun] = useState({ procedure: '', task: '', deleteProcedure: '' });
  const p = useRequest();
  const k = useRequest();
  const s = useRequest();
  const r = useRequest();
  const center = (value: string) => value || centers[0]?.value || '';
  return (
    <section aria-labelledby="scheduler-title" class="scheduler">
      <h1 id="scheduler-title">{t('nav.scheduler')}</h1>
      <h2>{t('scheduler.schedules')}</h2>
      <ErrorNote error={schedules.error} />
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">{t('field.name')}</th>
              <th scope="col">{t('scheduler.kind')}</th>
              <th scope="col">{t('scheduler.target')}</th>
              <th scope="col">{t('scheduler.when')}</th>
              <th scope="col">
                <span class="sr-only">{t('actions.toolbar')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(schedules.value?.schedule ?? []).map((row) => (
              <tr key={row.id} data-schedule={row.id}>
                <td>{row.id}</td>
                <td>{row.name}</td>
                <td>{row.type}</td>
                <td>{row.task}</td>
                <td>{describeWhen(row)}</td>
                <td>
                  <button
                    type="button"
                    class="danger-outline"
                    aria-label={`${t('node.delete')} ${row.name}`}
                    onClick={async () => {
                      if (await s.send('/schedule/delete', { id: row.id }, () => t('scheduler.deleted'))) schedules.reload();
                    }}
                  >
                    {t('node.delete')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <SchedulerCatalogue
        catalogue={catalogue.value}
        error={catalogue.error}
        centerName={(id) => centers.find((c) => c.value === String(id))?.label ?? String(id)}
      />

      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const body = {
            task: schedule.task,
            name: schedule.name,
            type: schedule.type,
            ...(schedule.when ? { when: whenOf(schedule.when) } : {}),
          };
          if (await s.send('/schedule/create', body, (a) => t('scheduler.created', { id: String(a.id) }))) schedules.reload();
        }}
      >
        <fieldset>
          <legend>{t('scheduler.newSchedule')}</legend>
          <div class="form-grid">
            <Field
              label={t('field.name')}
              name="name"
              value={schedule.name}
              onInput={(v) => setSchedule({ ...schedule, name: v })}
              error={s.error}
              required
            />
            <Field
              label={t('scheduler.kind')}
              name="type"
              value={schedule.type}
              onInput={(v) => setSchedule({ ...schedule, type: v })}
              options={[
                { value: 'task', label: t('scheduler.task') },
                { value: 'procedure', label: t('scheduler.procedure') },
              ]}
              error={s.error}
            />
            <Field
              label={t('scheduler.targetId')}
              name="task"
              value={schedule.task}
              onInput={(v) => setSchedule({ ...schedule, task: v })}
              error={s.error}
              required
            />
            <Field
              label={t('scheduler.when')}
              name="when"
              type="datetime-local"
              value={schedule.when}
              onInput={(v) => setSchedule({ ...schedule, when: v })}
              error={s.error}
              hint={t('scheduler.nowHint')}
            />
          </div>
        </fieldset>
        {s.note(['name', 'type', 'task', 'when'])}
        <div class="buttons">
          <button type="submit" class="primary">
            {t('scheduler.createSchedule')}
          </button>
        </div>
      </form>

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
          const steps = task.procedures
            .split(/[\s,]+/)
            .filter(Boolean)
            .map((id) => ({ procedure: id }));
          const added = await k.send(
            '/task/add',
            {
              center: center(task.center),
              name: task.name,
              steps,
              ...(task.scopeId ? { scope: { type: task.scopeType, id: task.scopeId } } : {}),
            },
            (a) => t('scheduler.created', { id: String(a.id) }),
          );
          if (added) catalogue.reload();
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
            <Field
              label={t('scheduler.procedureIds')}
              name="steps"
              value={task.procedures}
              onInput={(v) => setTask({ ...task, procedures: v })}
              error={k.error}
            />
            <Field
              label={t('scheduler.scopeType')}
              name="scope.type"
              value={task.scopeType}
              onInput={(v) => setTask({ ...task, scopeType: v })}
              options={[
                { value: 'center', label: t('kind.center') },
                { value: 'room', label: t('kind.room') },
                { value: 'client', label: t('kind.computer') },
              ]}
              error={k.error}
            />
            <Field
              label={t('scheduler.scopeId')}
              name="scope.id"
              value={task.scopeId}
              onInput={(v) => setTask({ ...task, scopeId: v })}
              error={k.error}
            />
          </div>
        </fieldset>
        {k.note(['center', 'name', 'steps', 'scope.type', 'scope.id'])}
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
            label={t('scheduler.procedureId')}
            name="procedure"
            value={run.procedure}
            onInput={(v) => setRun({ ...run, procedure: v })}
            error={r.error}
          />
          <Field label={t('scheduler.taskId')} name="task" value={run.task} onInput={(v) => setRun({ ...run, task: v })} error={r.error} />
        </div>
        <div class="buttons">
          <button
            type="button"
            disabled={!run.procedure || selection.size === 0}
            onClick={() =>
              r.send('/procedure/run', { procedure: run.procedure, clients: [...selection] }, () =>
                t('scheduler.ran', { count: selection.size }),
              )
            }
          >
            {t('scheduler.runProcedure', { count: selection.size })}
          </button>
          <button type="button" disabled={!run.task} onClick={() => r.send('/task/run', { task: run.task }, () => t('scheduler.taskRan'))}>
            {t('scheduler.runTask')}
          </button>
          <button
            type="button"
            class="danger-outline"
            disabled={!run.procedure}
            onClick={async () => {
              if (await r.send('/procedure/delete', { id: run.procedure }, () => t('scheduler.deleted'))) catalogue.reload();
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
