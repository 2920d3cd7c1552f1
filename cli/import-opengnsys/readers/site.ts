import type { LegacySource } from '../legacy-source';
import type { LegacySite } from '../model';
import type { Progress } from '../progress';
import { readActions } from './acciones';
import { readRooms } from './aulas';
import { readCenters } from './centros';
import { readServers } from './entornos';
import { readRoomFolders } from './grupos';
import { readComputerFolders } from './gruposordenadores';
import { readImages } from './imagenes';
import { readClients } from './ordenadores';
import { readPartitions } from './ordenadores-particiones';
import { readHardwareProfiles } from './perfileshard';
import { readSoftwareProfiles } from './perfilessoft';
import { readProcedures } from './procedimientos';
import { readSchedules } from './programaciones';
import { readRepositories } from './repositorios';
import { readTasks } from './tareas';

/** Everything the importer takes from a legacy database, read in one snapshot. */
export async function readSite(source: LegacySource, progress: Progress): Promise<LegacySite> {
  const clients = await readClients(source, progress);
  const roomFolders = await readRoomFolders(source);
  const actions = await readActions(source);
  return {
    schemaVersion: source.schemaVersion,
    servers: await readServers(source),
    repositories: await readRepositories(source),
    centers: await readCenters(source),
    roomFolders: roomFolders.folders,
    otherFolders: roomFolders.others,
    rooms: await readRooms(source),
    computerFolders: await readComputerFolders(source),
    clients,
    partitions: await readPartitions(
      source,
      clients.map((c) => c.id),
      progress,
    ),
    hardwareProfiles: await readHardwareProfiles(source),
    softwareProfiles: await readSoftwareProfiles(source),
    images: await readImages(source),
    procedures: await readProcedures(source),
    tasks: await readTasks(source),
    schedules: await readSchedules(source),
    actions: actions.actions,
    historyActions: actions.history,
  };
}
