import type {
  CenterRecord,
  ClientDisks,
  ClientRecord,
  ComputerFolderRecord,
  HardwareProfileRecord,
  ImageRecord,
  ImportedSchedule,
  ProcedureRecord,
  RepositoryRecord,
  RoomFolderRecord,
  RoomRecord,
  ServerRecord,
  SoftwareProfileRecord,
  TaskRecord,
} from '../parts';

export type {
  CenterRecord,
  ClientDisks,
  ClientRecord,
  ComputerFolderRecord,
  HardwareProfileRecord,
  ImageRecord,
  ProcedureRecord,
  RepositoryRecord,
  RoomFolderRecord,
  RoomRecord,
  ServerRecord,
  SoftwareProfileRecord,
  TaskRecord,
};

/**
 * What ogserve would store, in its own terms, for the writer to hand to the plugins'
 * services: ids are the reference's (folders: table ids, so a computer folder's public id
 * is COMPUTER_FOLDER_MARKER plus its id), references point only at records of this plan,
 * and every list is in an order it can be written in (parents before children).
 */
export interface ImportPlan {
  servers: ServerRecord[];
  repositories: RepositoryRecord[];
  centers: CenterRecord[];
  roomFolders: RoomFolderRecord[];
  rooms: RoomRecord[];
  computerFolders: ComputerFolderRecord[];
  clients: ClientRecord[];
  /** Each imported client's disks and partitions, as its agent last reported them (bytes). */
  disks: ClientDisks[];
  hardware: ClientHardware[];
  software: PartitionSoftware[];
  /** The profiles kept clients, partitions and images name, under their ids. */
  hardwareProfiles: HardwareProfileRecord[];
  softwareProfiles: SoftwareProfileRecord[];
  images: ImageRecord[];
  /** Empty unless the scheduler plugin is enabled. */
  procedures: ProcedureRecord[];
  tasks: TaskRecord[];
  schedules: ScheduleRecord[];
}

export interface ClientHardware {
  clientId: number;
  /** Type code (`cpu`, `mem`...) and description, in the reference's order. */
  items: { type: string; description: string }[];
}

/** A partition's software list: the operating system first, then the packages. */
export interface PartitionSoftware {
  clientId: number;
  disk: number;
  partition: number;
  lines: string[];
}

export type CommandStep = { command: string; params: Record<string, unknown> };

export interface ActionRecord {
  id: number;
  clientId: number;
  ip: string;
  session: number;
  command: string;
  params: Record<string, unknown>;
}

/** For command and procedure schedules, `target` is the session of their actions. */
export type ScheduleRecord = Omit<ImportedSchedule, 'actions'> & { actions: ActionRecord[] };
