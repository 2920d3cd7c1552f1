import { dateTime } from '../../format';
import { useEffect, useState } from 'preact/hooks';
import { TableScroll } from '../../components/TableScroll';
import type { TreeModel } from '../../fleet/tree';
import { t } from '../../i18n';
import type { Catalogue } from '../SchedulerCatalogue';
import { type Scope, scopeName } from './targets';
import { useRequest } from './useRequest';
import { type When, describeWhen } from './when';

/** A schedule as POST /schedule/get lists it. */
export interface ScheduleRow extends When {
  id: number;
  task: number;
  name: string;
  type: 'task' | 'procedure' | 'command';
  suspended: number;
  next?: number;
}

/**
 * The schedules: what each runs and on what, by name; when, as people say it; when next; a
 * switch that suspends or resumes it (POST /schedule/update with its own time and `suspended`)
 * and a delete button.
 */
export function ScheduleList(props: { schedules: ScheduleRow[]; catalogue?: Catalogue; model: TreeModel | null; onChanged(): void }) {
  const r = useRequest();
  /** Switches flipped and not yet read back: shown as flipped, not as the list still says, until it is read again. */
  const [flipped, setFlipped] = useState<Record<number, boolean>>({});
  useEffect(() => setFlipped({}), [props.schedules]);
  const enabled = (row: ScheduleRow) => flipped[row.id] ?? !row.suspended;
  const taskOf = (row: ScheduleRow) => (row.type === 'task' ? props.catalogue?.tasks.find((k) => k.id === row.task) : undefined);
  const procedureName = (id: number) => props.catalogue?.procedures.find((p) => p.id === id)?.name ?? String(id);
  /** A task's name; for the task written for a procedure schedule (the schedule's name), its procedures'. */
  const runs = (row: ScheduleRow) => {
    if (row.type !== 'task') return t('scheduler.session', { id: row.task });
    const task = taskOf(row);
    if (!task) return `${t('scheduler.taskLabel')} ${row.task}`;
    if (task.name !== row.name) return task.name;
    return task.steps
      .map((step) => ('procedure' in step ? procedureName(step.procedure) : ''))
      .filter(Boolean)
      .join(', ');
  };
  const toggle = async (row: ScheduleRow) => {
    const { id, task, name, type, years, months, weeks, week_days, days, hours, am_pm, minutes } = row;
    const when = { years, months, weeks, week_days, days, hours, am_pm, minutes };
    const suspended = enabled(row) ? 1 : 0;
    setFlipped({ ...flipped, [id]: !suspended });
    const done = await r.send('/schedule/update', { id, task, name, type, when, suspended }, () =>
      t(suspended ? 'scheduler.disabledOne' : 'scheduler.enabledOne', { name }),
    );
    if (done) props.onChanged();
    else setFlipped(flipped); // refused: back to what it was before the click
  };
  return (
    <>
      <TableScroll>
        <table class="grid schedules">
          <thead>
            <tr>
              <th scope="col">{t('field.name')}</th>
              <th scope="col">{t('scheduler.runs')}</th>
              <th scope="col">{t('scheduler.on')}</th>
              <th scope="col">{t('scheduler.when')}</th>
              <th scope="col">{t('scheduler.next')}</th>
              <th scope="col">{t('scheduler.enabled')}</th>
              <th scope="col">
                <span class="sr-only">{t('actions.toolbar')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.schedules.map((row) => (
              <tr key={row.id} data-schedule={row.id} class={row.suspended ? 'suspended' : undefined}>
                <td>{row.name}</td>
                <td>{runs(row)}</td>
                <td>{scopeName(props.model, (taskOf(row)?.scope as Scope | null) ?? null)}</td>
                <td>{describeWhen(row)}</td>
                <td>{row.next === undefined ? '' : dateTime(row.next)}</td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${t('scheduler.enabled')}: ${row.name}`}
                    checked={enabled(row)}
                    onChange={() => toggle(row)}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    class="danger-outline"
                    aria-label={`${t('node.delete')} ${row.name}`}
                    onClick={async () => {
                      if (await r.send('/schedule/delete', { id: row.id }, () => t('scheduler.deleted'))) props.onChanged();
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
      {r.note([])}
    </>
  );
}
