import images from '../../plugins/images';
import { Inventory } from '../../plugins/inventory';
import { BootFiles } from '../../plugins/pxe-modes';
import type { ImportPlan } from './plan/records';
import type { Target } from './target';

/** What a written import left: the clients whose boot files were written, and what could not be, one sentence each. */
export interface Written {
  bootFiles: number;
  bootFailures: string[];
}

/**
 * Write a plan in one transaction, through each plugin's import: everything lands or
 * nothing does (a crash or a refused row leaves the target as it was). Profiles go first,
 * as a set already stored (or imported twice) keeps one id, which clients, partitions and
 * images then name. Boot files are put right once the records are committed.
 */
export async function writeImport(target: Target, plan: ImportPlan, say: (line: string) => void): Promise<Written> {
  const { app, parts } = target;
  const db = app.database;
  await db.transactional(async (em) => {
    say('writing profiles');
    const profiles = parts.agents
      ? await parts.agents.writeProfiles(db, em, plan.hardwareProfiles, plan.softwareProfiles)
      : { hardware: new Map<number, number>(), software: new Map<number, number>() };
    const software = (id: number) => profiles.software.get(id) ?? 0;
    say(`writing the inventory: ${plan.centers.length} centers, ${plan.rooms.length} rooms, ${plan.clients.length} clients`);
    await parts.inventory.write(db, em, {
      ...plan,
      clients: plan.clients.map((c) => ({ ...c, hardwareId: profiles.hardware.get(c.hardwareId) ?? 0 })),
      disks: plan.disks.map(({ clientId, entries }) => ({
        clientId,
        entries: entries.map((e) => ({ ...e, software: software(e.software), image: parts.images ? e.image : 0 })),
      })),
    });
    if (parts.agents) {
      say('writing hardware and software reports');
      await parts.agents.writeReports(em, { hardware: plan.hardware, software: plan.software });
    }
    if (parts.images) {
      say(`writing ${plan.images.length} images`);
      await parts.images.write(
        db,
        em,
        app.config.section(images.section ?? images.name, images.config!).directory,
        plan.images.map((image) => ({ ...image, softwareId: software(image.softwareId) })),
      );
    }
    if (parts.scheduler) {
      say(`writing ${plan.procedures.length} procedures, ${plan.tasks.length} tasks, ${plan.schedules.length} schedules`);
      await parts.scheduler.write(db, em, plan);
    }
    say('committing');
  });
  return target.has('pxe-modes') ? writeBootFiles(target, say) : { bootFiles: 0, bootFailures: [] };
}

/**
 * The boot files of every client, imported or not, checked against the records and those
 * missing or different written: an import killed while it wrote them (after its commit) is
 * put right by the next run, `--merge` included, which imports no client again.
 */
async function writeBootFiles(target: Target, say: (line: string) => void): Promise<Written> {
  const inventory = target.app.container.resolve(Inventory);
  const bootFiles = target.app.container.resolve(BootFiles);
  // The import wrote the tables directly: lookups read them again.
  inventory.tablesChanged();
  say(`writing the boot files of ${[...(await inventory.allClients())].length} clients (those missing or different)`);
  try {
    const result = await bootFiles.reconcile();
    return {
      bootFiles: result.clientsPutRight,
      bootFailures: [
        ...result.untemplated.map(
          (u) => `the boot files of ${u.clients} clients in mode ${u.mode} were not written: the mode has no template`,
        ),
        ...(result.failed > 0 ? [`the boot files of ${result.failed} clients were not written: ${result.error}`] : []),
      ],
    };
  } catch (error) {
    return { bootFiles: 0, bootFailures: [`the boot files were not written: ${(error as Error).message}`] };
  }
}
