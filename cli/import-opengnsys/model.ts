/**
 * A legacy site as the readers hand it over: one type per table of the reference's
 * database, its values as the database holds them (NULLs included, nothing checked or
 * renamed yet), with the names ogserve uses for what they mean. The planner decides what
 * ogserve takes from it.
 */

export interface LegacyCenter {
  id: number;
  name: string;
  comment: string | null;
}

/** `entornos`: the management server address computers are told to use. */
export interface LegacyServer {
  id: number;
  ip: string;
  port: number;
}

export interface LegacyRepository {
  id: number;
  name: string;
  ip: string;
  centerId: number | null;
}

/** `grupos` of kind 2 (room folders); `parentId` 0 = top of the center. */
export interface LegacyRoomFolder {
  id: number;
  name: string;
  centerId: number;
  parentId: number;
}

export interface LegacyRoom {
  id: number;
  name: string;
  centerId: number;
  /** Room folder; 0 or null = top of the center. */
  folderId: number | null;
  netmask: string | null;
  gateway: string | null;
  location: string | null;
  ntp: string | null;
  dns: string | null;
  remote: boolean;
}

/** `gruposordenadores`; `parentId` 0 or null = top of the room. */
export interface LegacyComputerFolder {
  id: number;
  name: string;
  roomId: number;
  parentId: number | null;
}

/** `ordenadores`. */
export interface LegacyClient {
  id: number;
  name: string | null;
  serialNumber: string | null;
  ip: string;
  mac: string | null;
  roomId: number | null;
  folderId: number | null;
  hardwareProfileId: number | null;
  repositoryId: number | null;
  serverId: number;
  netmask: string;
  boot: string;
  netiface: string | null;
  netdriver: string;
  livedir: string;
  remote: boolean;
  maintenance: boolean;
}

/** `ordenadores_particiones` with its filesystem and OS names looked up. */
export interface LegacyPartition {
  clientId: number;
  disk: number;
  partition: number;
  diskType: string | null;
  code: number;
  /** KiB, as the agent reported it. */
  sizeKiB: bigint;
  /** Percent of the partition in use. */
  usedPercent: number;
  /** '' when the id names no known filesystem. */
  filesystem: string;
  os: string;
  imageId: number;
  softwareProfileId: number;
}

export interface LegacyImage {
  id: number;
  name: string;
  description: string;
  softwareProfileId: number | null;
  centerId: number | null;
  groupId: number | null;
  repositoryId: number;
  clientId: number;
  disk: number;
  partition: number;
  code: number;
  type: number | null;
  revision: number;
  /** `fechacreacion` as the reference wrote it: local time, 'YYYY-MM-DD HH:MM:SS'. */
  created: string | null;
  clonator: string;
  compressor: string;
  filesystem: string;
  datasize: bigint;
}

/** A hardware profile's components: type code (`tipohardwares.nemonico`) and description. */
export interface LegacyHardwareProfile {
  id: number;
  name: string;
  items: { type: string; description: string }[];
}

/** A software profile: its operating system name and its packages. */
export interface LegacySoftwareProfile {
  id: number;
  os: string;
  packages: string[];
}

/** A procedure step: legacy command text (with the catalogue's function name) or an included procedure. */
export type LegacyProcedureStep =
  | { kind: 'command'; text: string; catalogueFunction: string | null }
  | { kind: 'procedure'; procedureId: number };

export interface LegacyProcedure {
  id: number;
  name: string;
  centerId: number;
  comment: string | null;
  steps: LegacyProcedureStep[];
}

export type LegacyTaskStep = { kind: 'procedure'; procedureId: number } | { kind: 'task'; taskId: number };

export interface LegacyTask {
  id: number;
  name: string;
  centerId: number;
  /** The reference's scope kind: 1 center, 2 room folder, 4 room, 8 computer folder, 16 computer; 0 none. */
  scopeKind: number;
  scopeId: number;
  comment: string | null;
  steps: LegacyTaskStep[];
}

/** `programaciones`: the reference's masks as stored (NULL read as 0). */
export interface LegacySchedule {
  id: number;
  /** 1 command, 2 procedure, 3 task. */
  kind: number | null;
  target: number | null;
  name: string | null;
  /** 16-bit year mask from 2010, stored in a signed column. */
  years: number;
  months: number;
  days: number;
  weekDays: number;
  weeks: number;
  hours: number;
  amPm: number;
  minutes: number;
  suspended: boolean;
  session: number;
}

/** `acciones`: one queued command of a session (what command and procedure schedules fire). */
export interface LegacyAction {
  id: number;
  clientId: number;
  session: number;
  text: string;
  catalogueFunction: string | null;
}

export interface LegacySite {
  schemaVersion: number;
  servers: LegacyServer[];
  repositories: LegacyRepository[];
  centers: LegacyCenter[];
  roomFolders: LegacyRoomFolder[];
  /** Folders of `grupos` that are not room folders (images, procedures... of the old console). */
  otherFolders: number;
  rooms: LegacyRoom[];
  computerFolders: LegacyComputerFolder[];
  clients: LegacyClient[];
  partitions: LegacyPartition[];
  hardwareProfiles: Map<number, LegacyHardwareProfile>;
  softwareProfiles: Map<number, LegacySoftwareProfile>;
  images: LegacyImage[];
  procedures: LegacyProcedure[];
  tasks: LegacyTask[];
  schedules: LegacySchedule[];
  /** Actions of the sessions that command and procedure schedules fire. */
  actions: LegacyAction[];
  /** Actions no schedule fires (the history of what ran): not imported. */
  historyActions: number;
}
