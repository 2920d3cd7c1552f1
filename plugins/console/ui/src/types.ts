/** Shapes of the API answers the console reads. */

import type { Static } from '@sinclair/typebox';
import type { JobState } from '../../../jobs/entities/job-client';
import type { JobDetail as JobDetailAnswer, JobsPage } from '../../../jobs/schemas';
import type { SessionDetail } from '../../../multicast/schemas';

export type { ScopeNode } from '../../../inventory/scopes';

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
  /** The enabled plugins; `console` added from GET /console-views. */
  plugins: { name: string; console?: ConsoleViewInfo }[];
  /** The routes the caller may call (`POST /wol`), from GET /console-access. */
  allowed?: ReadonlySet<string>;
  /** The site's time zone (GET /site): every time is shown, and every form's time is meant, on its clock. */
  timeZone?: string;
  /** Where it comes from: `site.time_zone`, or the system's zone. */
  timeZoneSource?: string;
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
  /** What ogserve knows of the file (the images plugin's record, issue 54). */
  sha256: string;
  state: 'available' | 'hashing' | 'damaged';
  damage: string;
  checked: string | null;
}

/** One PC's transfer of an image file (GET /images/transfers). */
export interface ImageTransfer {
  client: string | null;
  file: string;
  image: number | null;
  job: number | null;
  bytes: number;
  size: number;
  rate: number;
  stalled_since: string | null;
  done: boolean;
  bodies: number;
  cut_short: boolean;
  started: string;
  ended: string | null;
}

export interface Repository {
  id: number;
  name: string;
  ip: string;
  addresses: string[];
  center: number;
}

export type { LiveEntry as LiveImage } from '../../../live/live-names';

export type { AuditView as AuditEntry } from '../../../audit/query';

export type { HistoryEntry } from '../../../history/query';
export type { HardwareReport, SoftwareReport } from '../../../history/reports';
export type { EnergyReport } from '../../../energy/report';
export type { RoomNow } from '../../../energy/now';

/** Who the caller is: GET /auth/me, and (without permissions) the answer of POST /auth/login. */
export interface Me {
  /** As the audit log names them: `api_token`, a token's name, or `ana@local`. */
  name: string;
  /** A person's user name; absent for a key or token. */
  username?: string;
  source: string;
  role: string;
  permissions?: string[];
  scope: string | null;
  /** A signed-in person's token for X-CSRF-Token. */
  csrf?: string;
}

export type { UserView as User } from '../../../auth/users';

/** How people may sign in: GET /auth/providers (a password, and each OpenID provider). */
export interface SignInWays {
  password: boolean;
  providers: { name: string; label: string }[];
}

/** GET /jobs and GET /jobs/<id> (the jobs plugin's answers). */
export type JobSummary = Static<typeof JobsPage>['jobs'][number];
export type JobDetail = Static<typeof JobDetailAnswer>;
/** A multicast session (GET /multicast/sessions/<id>). */
export type MulticastSession = Static<typeof SessionDetail>;
/** A job's PC states, in the order the console shows them (the jobs plugin's, checked against its type). */
export const jobStateNames = ['sent', 'done', 'failed', 'timed_out', 'skipped'] as const satisfies readonly JobState[];
