import type { ImportParts, PluginDefinition } from '../../core/plugin';
import agents from '../../plugins/agents';
import images from '../../plugins/images';
import inventory from '../../plugins/inventory';
import scheduler from '../../plugins/scheduler';

/** What a definition gives the import under `key`; a bundled plugin that gives nothing is a mistake of ogserve's. */
function partOf<K extends keyof ImportParts>(definition: PluginDefinition, key: K): ImportParts[K] {
  const part = definition.import?.[key];
  if (part === undefined) throw new Error(`plugin '${definition.name}' gives the import no '${key}'`);
  return part as ImportParts[K];
}

/**
 * The parts of the bundled plugins an import of an OpenGnsys site is made of: the planner
 * judges rows by their rules whether or not the target enables them (the writer leaves out
 * what a disabled plugin would keep).
 */
export const bundledParts: ImportParts = {
  agents: partOf(agents, 'agents'),
  images: partOf(images, 'images'),
  inventory: partOf(inventory, 'inventory'),
  scheduler: partOf(scheduler, 'scheduler'),
};

/** What the target's enabled plugins give the import, by their definitions, in load order. */
export function enabledParts(definitions: readonly PluginDefinition[]): Partial<ImportParts> {
  return Object.assign({}, ...definitions.map((definition) => definition.import));
}

type InventoryRecords = Parameters<ImportParts['inventory']['write']>[2];
type SchedulerRecords = Parameters<ImportParts['scheduler']['write']>[2];
type Profiles = Parameters<ImportParts['agents']['writeProfiles']>;

/** The records each plugin's writer takes, in its own terms. */
export type ServerRecord = InventoryRecords['servers'][number];
export type RepositoryRecord = InventoryRecords['repositories'][number];
export type CenterRecord = InventoryRecords['centers'][number];
export type RoomFolderRecord = InventoryRecords['roomFolders'][number];
export type RoomRecord = InventoryRecords['rooms'][number];
export type ComputerFolderRecord = InventoryRecords['computerFolders'][number];
export type ClientRecord = InventoryRecords['clients'][number];
export type ClientDisks = InventoryRecords['disks'][number];
export type DiskEntryRecord = ClientDisks['entries'][number];
export type HardwareProfileRecord = Profiles[2][number];
export type SoftwareProfileRecord = Profiles[3][number];
export type ImageRecord = Parameters<ImportParts['images']['write']>[3][number];
export type ProcedureRecord = SchedulerRecords['procedures'][number];
export type TaskRecord = SchedulerRecords['tasks'][number];
export type ImportedSchedule = SchedulerRecords['schedules'][number];
/** The steps' checks of the scheduler, by the commands the target's plugins define. */
export type StepChecks = ReturnType<ImportParts['scheduler']['steps']>;
