import type { StoredDiskEntry } from '../../../plugins/inventory';
import type { When } from '../../../plugins/scheduler';

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
  images: ImageRecord[];
  /** Empty unless the scheduler plugin is enabled. */
  procedures: ProcedureRecord[];
  tasks: TaskRecord[];
  schedules: ScheduleRecord[];
}

export interface ServerRecord {
  id: number;
  ip: string;
  port: number;
}

export interface RepositoryRecord {
  id: number;
  name: string;
  center: number;
  addresses: string[];
}

export interface CenterRecord {
  id: number;
  name: string;
  comment: string;
}

export interface RoomFolderRecord {
  id: number;
  name: string;
  centerId: number;
  parentId: number | null;
}

export interface RoomRecord {
  id: number;
  name: string;
  centerId: number;
  folderId: number | null;
  netmask: string;
  gateway: string;
  location: string;
  ntp: string;
  dns: string;
  remote: boolean;
}

export interface ComputerFolderRecord {
  /** Table id; the public id is COMPUTER_FOLDER_MARKER + id. */
  id: number;
  publicId: number;
  name: string;
  roomId: number;
  parentId: number | null;
}

export interface ClientRecord {
  id: number;
  name: string;
  serialNumber: string;
  ip: string;
  /** 12 lower-case hex digits. */
  mac: string;
  roomId: number;
  /** Computer folder table id. */
  folderId: number | null;
  hardwareId: number;
  repositoryId: number | null;
  serverId: number | null;
  netmask: string;
  boot: string;
  netiface: string;
  netdriver: string;
  livedir: string;
  remote: boolean;
  maintenance: boolean;
}

export interface ClientDisks {
  clientId: number;
  entries: StoredDiskEntry[];
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

export interface ImageRecord {
  id: number;
  name: string;
  description: string;
  repositoryId: number;
  centerId: number;
  groupId: number;
  clientId: number;
  disk: number;
  partition: number;
  code: number;
  type: number;
  softwareId: number;
  datasize: bigint;
  /** When the reference created it, seconds since 1970 (0 = unknown); the image file's own time wins when it is there. */
  created: bigint;
  revision: number;
  clonator: string;
  compressor: string;
  filesystem: string;
}

export type CommandStep = { command: string; params: Record<string, unknown> };

export interface ProcedureRecord {
  id: number;
  centerId: number;
  name: string;
  description: string;
  steps: (CommandStep | { procedure: number })[];
}

export interface TaskRecord {
  id: number;
  centerId: number;
  name: string;
  description: string;
  scope?: { type: 'center' | 'room' | 'client'; id: number };
  steps: ({ procedure: number } | { task: number })[];
}

export interface ActionRecord {
  id: number;
  clientId: number;
  ip: string;
  session: number;
  command: string;
  params: Record<string, unknown>;
}

export interface ScheduleRecord {
  id: number;
  kind: 'task' | 'procedure' | 'command';
  /** A task id, or for command and procedure schedules the session of their actions. */
  target: number;
  name: string;
  when: When;
  suspended: boolean;
  session: number;
  /** The waiting actions a command or procedure schedule fires. */
  actions: ActionRecord[];
}
