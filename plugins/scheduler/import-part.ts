import { oneClientMessage } from './commands';
import { schedulerHoldings, writeScheduler } from './import';
import { ProcedureAdd, ScheduleCreate, TaskAdd } from './schemas';
import { readWhen, Scheduler } from './service';

/**
 * What `ogserve import-opengnsys` takes from the scheduler: what it holds (`--merge`), the
 * writer of the records, the rules of its request bodies and of a schedule's time, and its
 * steps' checks (by the commands the target's plugins define) from the service given.
 */
export const schedulerImport = {
  holdings: schedulerHoldings,
  write: writeScheduler,
  bodies: { ProcedureAdd, ScheduleCreate, TaskAdd },
  readWhen,
  oneClientMessage,
  service: Scheduler,
  steps: (scheduler: Scheduler) => scheduler.steps,
};

declare module 'ogserve' {
  interface ImportParts {
    scheduler: typeof schedulerImport;
  }
}
