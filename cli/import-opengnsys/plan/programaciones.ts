import { bundledParts } from '../parts';
import type { LegacyAction, LegacySchedule } from '../model';
import { refusalFromError, refusalOf } from './body-check';
import { alreadyThere, decide, idRefusal, label, type Planning } from './context';
import type { ActionRecord, ScheduleRecord } from './records';
import { commandStep } from './scheduler-steps';

const {
  bodies: { ScheduleCreate },
  oneClientMessage,
  readWhen,
} = bundledParts.scheduler;

const table = 'programaciones';
const columns = {
  task: 'identificador',
  name: 'nombrebloque',
  'when.years': 'annos',
  'when.months': 'meses',
  'when.weeks': 'semanas',
  'when.week_days': 'dias',
  'when.days': 'diario',
  'when.hours': 'horas',
  'when.am_pm': 'ampm',
  'when.minutes': 'minutos',
};
/** `programaciones.tipoaccion`. */
const kinds: Record<number, ScheduleRecord['kind']> = { 1: 'command', 2: 'procedure', 3: 'task' };

/**
 * Schedules, by POST /schedule/create's rules: a name, masks that can fire, a task that is
 * kept; command and procedure schedules with the actions of their session (an action for a
 * refused computer is left out with a note; a schedule left with none is refused).
 */
export function planSchedules(p: Planning): void {
  p.ledger.read(table, p.site.schedules.length);
  const bySession = new Map<number, LegacyAction[]>();
  for (const action of p.site.actions) {
    const session = bySession.get(action.session);
    if (session) session.push(action);
    else bySession.set(action.session, [action]);
  }
  for (const schedule of p.site.schedules) {
    if (alreadyThere(p, p.schedules, table, schedule.id, p.rules.held.schedules)) continue;
    const row = label(table, schedule.id, schedule.name);
    const kind = schedule.kind === null ? undefined : kinds[schedule.kind];
    const body = requestOf(schedule, kind);
    let reason =
      idRefusal(schedule.id) ??
      (kind === undefined
        ? `programaciones.tipoaccion = ${schedule.kind ?? 'NULL'} is no schedule kind (1 command, 2 procedure, 3 task)`
        : undefined) ??
      refusalOf(ScheduleCreate, body, columns, table);
    let when: ScheduleRecord['when'] | undefined;
    if (reason === undefined) {
      try {
        when = readWhen(body.when);
      } catch (error) {
        reason = refusalFromError(error, body, columns, table);
      }
    }
    let actions: ActionRecord[] = [];
    let notes: string[] = [];
    if (reason === undefined && kind === 'task') {
      const why = p.tasks.whyNot(schedule.target!);
      if (why !== undefined) reason = `its task leads nowhere: ${why}`;
    } else if (reason === undefined) {
      const session = sessionActions(p, schedule, bySession.get(schedule.target!) ?? []);
      if (typeof session === 'string') reason = session;
      else ({ actions, notes } = session);
    }
    const kept = decide(p, p.schedules, table, row, schedule.id, reason, () => ({
      id: schedule.id,
      kind: kind!,
      target: schedule.target!,
      name: schedule.name!,
      when: when!,
      suspended: schedule.suspended,
      session: schedule.session,
      actions,
    }));
    if (!kept) continue;
    for (const note of notes) p.ledger.changed(table, row, note);
    p.plan.schedules.push(kept);
  }
}

/** The POST /schedule/create request that would make this schedule. */
function requestOf(schedule: LegacySchedule, kind: ScheduleRecord['kind'] | undefined) {
  return {
    task: schedule.target ?? undefined,
    name: schedule.name ?? undefined,
    type: kind,
    // The year mask sits in a signed 16-bit column: bit 15 (2025) reads back negative.
    when: {
      years: schedule.years & 0xffff,
      months: schedule.months,
      weeks: schedule.weeks,
      week_days: schedule.weekDays,
      days: schedule.days,
      hours: schedule.hours,
      am_pm: schedule.amPm,
      minutes: schedule.minutes,
    },
  };
}

/**
 * The actions of a schedule's session that ogserve can queue, with a note for each left out
 * (its computer was not imported); the reason the schedule is refused, if it is.
 */
function sessionActions(
  p: Planning,
  schedule: LegacySchedule,
  legacy: LegacyAction[],
): { actions: ActionRecord[]; notes: string[] } | string {
  const actions: ActionRecord[] = [];
  const notes: string[] = [];
  for (const action of legacy) {
    // A computer the target already holds (`--merge`) is there under its address in the target.
    const heldIp = p.clients.present.has(action.clientId) ? p.rules.held.clientAddresses.get(action.clientId) : undefined;
    const client = p.clients.kept.get(action.clientId) ?? (heldIp === undefined ? undefined : { id: action.clientId, ip: heldIp });
    if (!client) {
      notes.push(`acciones ${action.id}: ${p.clients.whyNot(action.clientId)}: the action is left out`);
      continue;
    }
    const step = commandStep(p.rules.scheduler!, action.text, action.catalogueFunction, `acciones ${action.id}`);
    if (typeof step === 'string') return step;
    actions.push({ id: action.id, clientId: client.id, ip: client.ip, session: action.session, ...step });
  }
  if (actions.length === 0) return `no queued actions of session ${schedule.target} (acciones.sesion) can be kept`;
  if (actions.length > 1 && p.rules.scheduler!.oneClientOnly(actions[0]!.command))
    return `${oneClientMessage}, and session ${schedule.target} has ${actions.length}`;
  return { actions, notes };
}
