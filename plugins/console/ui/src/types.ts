/** Shapes of the API answers the console reads. */

export interface ScopeNode {
  name: string;
  type: 'center' | 'room' | 'folder' | 'computer';
  id: number;
  scope: ScopeNode[];
  ip?: string;
}

export interface ClientListing {
  addr: string;
  state: string;
  speed?: number;
  last_cmd: { result: string };
}

export interface Outcome {
  addr: string;
  outcome: string;
}

export interface ConsoleViewInfo {
  title: string | Record<string, string>;
  entry: string;
}

export interface VersionInfo {
  version: string;
  database: string;
  schema: Record<string, number>;
  plugins: { name: string; console?: ConsoleViewInfo }[];
}

export interface Partition {
  disk: number;
  partition: number;
  disk_type: string;
  code: number;
  size: number;
  used_size: number;
  free_size: number;
  filesystem: number;
  filesystem_name: string;
  os: string;
  image: number;
}

export interface Image {
  id: number;
  name: string;
  description: string;
  size: number;
  datasize: number;
  modified: string;
  permissions: string;
  software_id: number;
  type: number;
  repo_id: number;
  repo_ip: string;
  checksum: string;
  center_id: number;
  group_id: number;
}

export interface Repository {
  id: number;
  name: string;
  ip: string;
  addresses: string[];
  center: number;
}

export interface LiveImage {
  distribution: string;
  kernel: string;
  architecture: string;
  revision: string;
  directory: string;
  iso: string;
}

/** One entry of GET /audit. */
export interface AuditEntry {
  id: number;
  time: string;
  token: string;
  address: string;
  method: string;
  path: string;
  clients: string[];
  status: number | null;
  ms: number;
}
