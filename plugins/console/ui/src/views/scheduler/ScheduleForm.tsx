import { siteZone } from '../../format';
import { useState } from 'preact/hooks';
import { post } from '../../api';
import { Field } from '../../components/Field';
import type { TreeModel } from '../../fleet/tree';
import { t } from '../../i18n';
import type { Catalogue } from '../SchedulerCatalogue';
import { type Scope, scopeName, targetOf, targetOptions } from './targets';
import { useRequest } from './useRequest';
import { onceAt, weekdayKeys, weeklyAt } from './when';

/**
 * A new schedule: a task or a procedure picked by name, once (a date and time, or now) or
 * every week (weekdays and a time). A task runs for its own scope; a procedure for a center,
 * room or computer picked from the tree, through a task of the schedule's name written for it
 * (the reference's schedules run tasks, or sessions already queued, never a procedure alone).
 */
export function ScheduleForm(props: { catalogue?: Catalogue; model: TreeModel | null; onCreated(): void }) {
  const tasks = props.catalogue?.tasks ?? [];
  const procedures = props.catalogue?.procedures ?? [];
  const runs = [
    { group: t('scheduler.tasks'), options: tasks.map((k) => ({ value: `task:${k.id}`, label: k.name })) },
    { group: t('scheduler.procedures'), options: procedures.map((p) => ({ value: `procedure:${p.id}`, label: p.name })) },
  ].filter((g) => g.options.length > 0);
  const [form, setForm] = useState({ name: '', runs: '', target: '', repeat: 'weekly', at: '', time: '08:00', find: '' });
  const targets = targetOptions(props.model, form.find, form.target);
  const [weekdays, setWeekdays] = useState<number[]>([]);
  const s = useRequest();
  const chosen = form.runs || runs[0]?.options[0]?.value || '';
  const target = form.target || targets[0]?.options[0]?.value || '';
  const [kind, id] = chosen.split(':');
  const task = kind === 'task' ? tasks.find((k) => String(k.id) === id) : undefined;

  const submit = async () => {
    if (!chosen) return s.refuse('task', t('scheduler.pickRuns'));
    if (form.repeat === 'weekly' && weekdays.length === 0) return s.refuse('when.week_days', t('scheduler.pickDays'));
    const when = form.repeat === 'weekly' ? weeklyAt(weekdays, form.time) : form.at ? onceAt(form.at) : undefined;
    const on = targetOf(props.model, target);
    if (kind === 'procedure' && !on) return s.refuse('target', t('scheduler.pickTarget'));
    return s.run(async () => {
      let taskId = Number(id);
      if (kind === 'procedure' && on) {
        const steps = [{ procedure: taskId }];
        taskId = (await post<{ id: number }>('/task/add', { center: on.center, name: form.name, steps, scope: on.scope })).id;
      }
      const created = await post<{ id: number }>('/schedule/create', {
        task: taskId,
        name: form.name,
        type: 'task',
        ...(when ? { when } : {}),
      });
      return t('scheduler.created', { id: String(created.id) });
    });
  };

  return (
    <form
      class="schedule-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await submit()) props.onCreated();
      }}
    >
      <fieldset>
        <legend>{t('scheduler.newSchedule')}</legend>
        <div class="form-grid">
          <Field
            label={t('field.name')}
            name="name"
            value={form.name}
            onInput={(v) => setForm({ ...form, name: v })}
            error={s.error}
            required
          />
          <Field
            label={t('scheduler.runs')}
            name="task"
            value={chosen}
            onInput={(v) => setForm({ ...form, runs: v })}
            options={runs}
            error={s.error}
          />
          {kind === 'procedure' ? (
            <>
              <Field
                label={t('scheduler.find')}
                name="find"
                type="search"
                value={form.find}
                onInput={(v) => setForm({ ...form, find: v })}
                hint={t('scheduler.findHint')}
              />
              <Field
                label={t('scheduler.on')}
                name="target"
                value={target}
                onInput={(v) => setForm({ ...form, target: v })}
                options={targets}
                error={s.error}
              />
            </>
          ) : (
            task && (
              <p class="hint">
                {task.scope ? t('scheduler.taskOn', { scope: scopeName(props.model, task.scope as Scope) }) : t('scheduler.taskNowhere')}
              </p>
            )
          )}
          <Field
            label={t('scheduler.repeat')}
            name="repeat"
            value={form.repeat}
            onInput={(v) => setForm({ ...form, repeat: v })}
            options={[
              { value: 'weekly', label: t('scheduler.weekly') },
              { value: 'once', label: t('scheduler.once') },
            ]}
          />
          {form.repeat === 'once' ? (
            <Field
              label={t('scheduler.when')}
              name="when"
              type="datetime-local"
              value={form.at}
              onInput={(v) => setForm({ ...form, at: v })}
              error={s.error}
              hint={
                <>
                  {t('scheduler.nowHint')} {zoneHint()}
                </>
              }
            />
          ) : (
            <Field
              label={t('scheduler.time')}
              name="when.hours"
              type="time"
              value={form.time}
              onInput={(v) => setForm({ ...form, time: v })}
              error={s.error}
              hint={zoneHint()}
              required
            />
          )}
        </div>
        {form.repeat === 'weekly' && (
          <fieldset class="weekdays" aria-describedby={s.error?.field === 'when.week_days' ? 'weekdays-error' : undefined}>
            <legend>{t('scheduler.days')}</legend>
            {weekdayKeys.map((key, day) => (
              <label key={key} class="checkbox">
                <input
                  type="checkbox"
                  name="week_days"
                  checked={weekdays.includes(day)}
                  onChange={(e) =>
                    setWeekdays(e.currentTarget.checked ? [...weekdays, day].sort((a, b) => a - b) : weekdays.filter((d) => d !== day))
                  }
                />
                {t(key)}
              </label>
            ))}
            {s.error?.field === 'when.week_days' && (
              <small class="error" id="weekdays-error" role="alert">
                {s.error.message}
              </small>
            )}
          </fieldset>
        )}
      </fieldset>
      {s.note(['name', 'task', 'target', 'when', 'when.hours', 'when.week_days'])}
      <div class="buttons">
        <button type="submit" class="primary">
          {t('scheduler.createSchedule')}
        </button>
      </div>
    </form>
  );
}

/** Which clock a time typed here is on: the site's (the server runs schedules on it). */
function zoneHint(): string {
  const zone = siteZone();
  return zone ? t('zone.forms', { zone }) : '';
}
