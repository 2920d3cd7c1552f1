import { writeProfiles, writeReports } from '../../plugins/agents';
import { writeImages } from '../../plugins/images';
import { Inventory, writeInventory, type ClientView } from '../../plugins/inventory';
import { BootFiles } from '../../plugins/pxe-modes';
import { writeScheduler } from '../../plugins/scheduler';
import type { ImportPlan } from './plan/records';
import type { Target } from './target';

/** What a written import left: boot files written, and those that could not be, by mode. */
export interface Written {
  bootFiles: number;
  bootFailures: { mode: string; clients: number; error: string }[];
}

/**
 * Write a plan in one transaction, through each plugin's import: everything lands or
 * nothing does (a crash or a refused row leaves the target as it was). Profiles go first,
 * as a set already stored (or imported twice) keeps one id, which clients, partitions and
 * images then name. Boot files are written once the records are committed.
 */
export async function writeImport(target: Target, plan: ImportPlan, say: (line: string) => void): Promise<Written> {
  const { app } = target;
  const db = app.database;
  await db.transactional(async (em) => {
    say('writing profiles');
    const profiles = target.has('agents')
      ? await writeProfiles(db, em, plan.hardwareProfiles, plan.softwareProfiles)
      : { hardware: new Map<number, number>(), software: new Map<number, number>() };
    const software = (id: number) => profiles.software.get(id) ?? 0;
    say(`writing the inventory: ${plan.centers.length} centers, ${plan.rooms.length} rooms, ${plan.clients.length} clients`);
    await writeInventory(db, em, {
      ...plan,
      clients: plan.clients.map((c) => ({ ...c, hardwareId: profiles.hardware.get(c.hardwareId) ?? 0 })),
      disks: plan.disks.map(({ clientId, entries }) => ({
        clientId,
        entries: entries.map((e) => ({ ...e, software: software(e.software), image: target.has('images') ? e.image : 0 })),
      })),
    });
    if (target.has('agents')) {
      say('writing hardware and software reports');
      await writeReports(em, { hardware: plan.hardware, software: plan.software });
    }
    if (target.has('images')) {
      say(`writing ${plan.images.length} images`);
      await writeImages(
        db,
        em,
        app.settings.repository.directory,
        plan.images.map((image) => ({ ...image, softwareId: software(image.softwareId) })),
      );
    }
    if (target.has('scheduler')) {
      say(`writing ${plan.procedures.length} procedures, ${plan.tasks.length} tasks, ${plan.schedules.length} schedules`);
      await writeScheduler(db, em, plan);
    }
    say('committing');
  });
  return target.has('pxe-modes') ? writeBootFiles(target, plan, say) : { bootFiles: 0, bootFailures: [] };
}

/** Both boot files of every imported client, one batch per boot mode. */
async function writeBootFiles(target: Target, plan: ImportPlan, say: (line: string) => void): Promise<Written> {
  const inventory = target.app.container.resolve(Inventory);
  const bootFiles = target.app.container.resolve(BootFiles);
  const clients = await inventory.clientsByIps(plan.clients.map((c) => c.ip));
  const byMode = new Map<string, ClientView[]>();
  for (const client of clients) {
    const list = byMode.get(client.boot);
    if (list) list.push(client);
    else byMode.set(client.boot, [client]);
  }
  const written: Written = { bootFiles: 0, bootFailures: [] };
  say(`writing the boot files of ${clients.length} clients`);
  for (const [mode, list] of byMode) {
    try {
      await bootFiles.exclusive(() => bootFiles.writeMany(list, mode));
      written.bootFiles += list.length;
    } catch (error) {
      written.bootFailures.push({ mode, clients: list.length, error: (error as Error).message });
    }
  }
  return written;
}
