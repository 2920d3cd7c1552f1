import type { Inventory } from '../../../plugins/inventory';
import type { StepChecks } from '../parts';
import type { LegacySite } from '../model';
import type { Progress } from '../progress';
import type { Ledger } from './ledger';
import type {
  CenterRecord,
  ClientRecord,
  ComputerFolderRecord,
  ImageRecord,
  ImportPlan,
  ProcedureRecord,
  RepositoryRecord,
  RoomFolderRecord,
  RoomRecord,
  ScheduleRecord,
  ServerRecord,
  TaskRecord,
} from './records';

/** What only the target ogserve can judge, asked through its plugins. */
export interface PlanRules {
  /** The pre-save checks plugins register on clients (pxe-modes: a boot mode without a template); throws to refuse. */
  checkClient(fields: Parameters<Inventory['checkClient']>[0]): Promise<void>;
  /**
   * Procedures, tasks and schedules are imported only when the scheduler plugin is enabled:
   * its steps are checked by the commands the target's plugins define.
   */
  scheduler?: Pick<StepChecks, 'check' | 'oneClientOnly'>;
  /** What the target already holds (`--merge`): rows with these ids are left as they are there. */
  held: Held;
}

/**
 * A row the target holds, as `--merge` tells it apart from a legacy row with its id: what
 * makes two rows the same one (a client's MAC, a center's name), and how it reads.
 */
export interface HeldRow {
  identity: string;
  /** `ogserve client 4 (pc-4, 10.0.0.4, mac 020000000004)`. */
  shown: string;
}

/** Ids the target holds per kind, and the unique keys its rows hold (key -> who holds it). */
export interface Held {
  servers: Set<number>;
  repositories: Set<number>;
  centers: Set<number>;
  roomFolders: Set<number>;
  rooms: Set<number>;
  computerFolders: Set<number>;
  clients: Set<number>;
  /** The address of each client the target holds. */
  clientAddresses: Map<number, string>;
  images: Set<number>;
  procedures: Set<number>;
  tasks: Set<number>;
  schedules: Set<number>;
  /** The held rows of the kinds whose legacy rows with a held id are compared with them. */
  rows: {
    servers: Map<number, HeldRow>;
    centers: Map<number, HeldRow>;
    rooms: Map<number, HeldRow>;
    clients: Map<number, HeldRow>;
    images: Map<number, HeldRow>;
    procedures: Map<number, HeldRow>;
  };
  keys: {
    serverIps: Map<string, string>;
    repositoryAddresses: Map<string, string>;
    centerNames: Map<string, string>;
    /** `<center id>\0<name>`. */
    roomNames: Map<string, string>;
    clientIps: Map<string, string>;
    clientMacs: Map<string, string>;
    imageNames: Map<string, string>;
    /** `<center id>\0<name>`. */
    procedureNames: Map<string, string>;
  };
}

/** A target that holds nothing. */
export function nothingHeld(): Held {
  const ids = () => new Set<number>();
  const keys = () => new Map<string, string>();
  return {
    servers: ids(),
    repositories: ids(),
    centers: ids(),
    roomFolders: ids(),
    rooms: ids(),
    computerFolders: ids(),
    clients: ids(),
    clientAddresses: new Map(),
    images: ids(),
    procedures: ids(),
    tasks: ids(),
    schedules: ids(),
    rows: { servers: new Map(), centers: new Map(), rooms: new Map(), clients: new Map(), images: new Map(), procedures: new Map() },
    keys: {
      serverIps: keys(),
      repositoryAddresses: keys(),
      centerNames: keys(),
      roomNames: keys(),
      clientIps: keys(),
      clientMacs: keys(),
      imageNames: keys(),
      procedureNames: keys(),
    },
  };
}

/** The rows of one legacy table already decided: kept (by legacy id) or refused. */
export class Decided<T> {
  readonly kept = new Map<number, T>();
  readonly refused = new Set<number>();
  /** Rows the target already holds under the same id (`--merge`): left as they are, and others may name them. */
  readonly present = new Set<number>();

  constructor(
    /** How a reference to one of these reads in a reason: "room", "repository". */
    readonly noun: string,
  ) {}

  /** Why a reference to `id` leads nowhere, or undefined when it names a kept row. */
  whyNot(id: number): string | undefined {
    if (this.kept.has(id) || this.present.has(id)) return undefined;
    return this.refused.has(id) ? `${this.noun} ${id} was refused` : `there is no ${this.noun} ${id}`;
  }
}

/**
 * The netmask a room without one gets. The reference's schema leaves `aulas.netmask` NULL
 * by default and its web console requires one in the room form; 255.255.255.0 is what its
 * own sample rooms (ogServer's test data, the installer's Vagrant room) and ogCP's import of
 * a dhcpd.conf give.
 */
export const REFERENCE_NETMASK = '255.255.255.0';

/**
 * How deep the import nests folders, and procedures or tasks including others. A reference
 * database may chain thousands; the planner and ogserve walk these trees recursively (the
 * fleet tree, the scheduler's expansion of includes), so rows nested deeper are refused.
 */
export const MAX_NESTING = 64;

/** What the person running the import chose where the legacy data leaves a gap. */
export interface PlanChoices {
  /** The netmask of a room that has none (`--default-netmask`). */
  defaultNetmask: string;
}

/** Everything the table planners share: the site, the rules, the ledger and the decisions so far. */
export interface Planning {
  site: LegacySite;
  rules: PlanRules;
  choices: PlanChoices;
  ledger: Ledger;
  progress: Progress;
  plan: ImportPlan;
  servers: Decided<ServerRecord>;
  repositories: Decided<RepositoryRecord>;
  centers: Decided<CenterRecord>;
  roomFolders: Decided<RoomFolderRecord>;
  rooms: Decided<RoomRecord>;
  computerFolders: Decided<ComputerFolderRecord>;
  clients: Decided<ClientRecord>;
  images: Decided<ImageRecord>;
  procedures: Decided<ProcedureRecord>;
  tasks: Decided<TaskRecord>;
  schedules: Decided<ScheduleRecord>;
}

/** A row as a person finds it in the legacy database: `ordenadores 57 (pc-57, 10.0.1.57)`. */
export function label(table: string, id: number | string, ...details: (string | null | undefined)[]): string {
  const shown = details
    .filter((d): d is string => d != null && d !== '')
    .map((d) => {
      const text = JSON.stringify(d).slice(1, -1);
      return text.length > 40 ? `${text.slice(0, 37)}...` : text;
    });
  return shown.length ? `${table} ${id} (${shown.join(', ')})` : `${table} ${id}`;
}

/** The reference's ids are kept, and ogserve's start at 1. */
export function idRefusal(id: number): string | undefined {
  return id < 1 ? `id ${id} cannot be kept: ogserve ids start at 1` : undefined;
}

/**
 * A unique key (a MAC, a name within a center) and the kept row holding each: `taken` is
 * the reason a row cannot have a key another kept row holds. Rows are decided in id order,
 * so the oldest row keeps its key.
 */
export class UniqueKeys {
  private readonly holders: Map<string, string>;

  constructor(
    private readonly what: string,
    /** Keys the target's own rows hold, with who holds each. */
    held: Map<string, string> = new Map(),
  ) {
    this.holders = new Map(held);
  }

  taken(key: string, shownKey = key): string | undefined {
    const holder = this.holders.get(key);
    return holder === undefined ? undefined : `${this.what} ${shownKey} already belongs to ${holder}`;
  }

  hold(key: string, row: string): void {
    this.holders.set(key, row);
  }
}

/** A legacy row as `--merge` compares it with the target's row of the same id. */
export interface LegacyIdentity {
  /** The row as the ledger shows it. */
  row: string;
  identity: string;
  /** The target's rows of its kind. */
  held: Map<number, HeldRow>;
  /** What differs when the identities do: `mac`, `name`. */
  what: string;
}

/**
 * Whether the target already holds a row with this id (`--merge` matches by id): the same
 * row (same identity) is left as it is there, counted as left out, and rows of the import
 * may name it. Another row under that id is a collision: the legacy row is refused, naming
 * both, and what names it goes with it, rather than being attached to the target's row.
 */
export function alreadyThere<T>(
  p: Planning,
  decided: Decided<T>,
  table: string,
  id: number,
  held: Set<number>,
  legacy?: LegacyIdentity,
): boolean {
  if (!held.has(id)) return false;
  const holder = legacy?.held.get(id);
  if (legacy && holder && holder.identity !== legacy.identity) {
    const reason = `id ${id} is already ${holder.shown}, another ${decided.noun} (not the same ${legacy.what})`;
    refuse(p, decided, table, legacy.row, id, reason);
    return true;
  }
  decided.present.add(id);
  p.ledger.leftOut(table, 1, 'already in ogserve under the same id: left as it is');
  return true;
}

export function refuse<T>(p: Planning, decided: Decided<T>, table: string, row: string, id: number, reason: string): void {
  decided.refused.add(id);
  p.ledger.refused(table, row, reason);
}

export function keep<T>(p: Planning, decided: Decided<T>, table: string, id: number, record: T): T {
  decided.kept.set(id, record);
  p.ledger.imported(table);
  return record;
}

/** Record a decision: refuse the row when there is a reason, else keep `record()` under `id`. */
export function decide<T>(
  p: Planning,
  decided: Decided<T>,
  table: string,
  row: string,
  id: number,
  reason: string | undefined,
  record: () => T,
): T | undefined {
  if (reason === undefined) return keep(p, decided, table, id, record());
  refuse(p, decided, table, row, id, reason);
  return undefined;
}
