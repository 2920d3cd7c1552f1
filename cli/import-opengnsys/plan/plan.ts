import type { LegacySite } from '../model';
import type { Progress } from '../progress';
import { planRooms } from './aulas';
import { planCenters } from './centros';
import { Decided, type PlanChoices, type PlanRules, type Planning, REFERENCE_NETMASK } from './context';
import { planServers } from './entornos';
import { planRoomFolders } from './grupos';
import { planComputerFolders } from './gruposordenadores';
import { planImages } from './imagenes';
import type { Ledger } from './ledger';
import { planClients } from './ordenadores';
import { planPartitions } from './ordenadores-particiones';
import { planHardware } from './perfileshard';
import { planProcedures } from './procedimientos';
import { planSchedules } from './programaciones';
import type { ImportPlan } from './records';
import { planRepositories } from './repositorios';
import { planTasks } from './tareas';

/**
 * Decide, row by row, what ogserve takes from a legacy site, in the order references run
 * (a room after its center, a partition after its computer and the images it may hold).
 * Refusals and changes go to the ledger as they are decided; the plan holds what is kept.
 */
export async function planImport(
  site: LegacySite,
  rules: PlanRules,
  ledger: Ledger,
  progress: Progress,
  choices: PlanChoices = { defaultNetmask: REFERENCE_NETMASK },
): Promise<ImportPlan> {
  const p: Planning = {
    site,
    rules,
    choices,
    ledger,
    progress,
    plan: {
      servers: [],
      repositories: [],
      centers: [],
      roomFolders: [],
      rooms: [],
      computerFolders: [],
      clients: [],
      disks: [],
      hardware: [],
      software: [],
      hardwareProfiles: [],
      softwareProfiles: [],
      images: [],
      procedures: [],
      tasks: [],
      schedules: [],
    },
    servers: new Decided('server'),
    repositories: new Decided('repository'),
    centers: new Decided('center'),
    roomFolders: new Decided('room folder'),
    rooms: new Decided('room'),
    computerFolders: new Decided('computer folder'),
    clients: new Decided('computer'),
    images: new Decided('image'),
    procedures: new Decided('procedure'),
    tasks: new Decided('task'),
    schedules: new Decided('schedule'),
  };
  planServers(p);
  planRepositories(p);
  planCenters(p);
  planRoomFolders(p);
  planRooms(p);
  planComputerFolders(p);
  await planClients(p);
  planHardware(p);
  planImages(p);
  planPartitions(p);
  if (rules.scheduler) {
    planProcedures(p);
    planTasks(p);
    planSchedules(p);
  } else {
    const why = 'the scheduler plugin is not enabled';
    for (const [table, rows] of [
      ['procedimientos', site.procedures.length],
      ['tareas', site.tasks.length],
      ['programaciones', site.schedules.length],
    ] as const) {
      ledger.read(table, rows);
      ledger.leftOut(table, rows, why);
    }
  }
  countActions(p);
  return p.plan;
}

/** Actions are kept with the command and procedure schedules that fire them; the rest is history. */
function countActions(p: Planning): void {
  const table = 'acciones';
  const kept = p.plan.schedules.reduce((n, s) => n + s.actions.length, 0);
  p.ledger.read(table, p.site.actions.length + p.site.historyActions);
  for (let i = 0; i < kept; i++) p.ledger.imported(table);
  p.ledger.leftOut(table, p.site.actions.length - kept, 'with their schedule or computer, which was not imported');
  p.ledger.leftOut(table, p.site.historyActions, 'the history of commands that ran, which ogserve does not keep');
}
