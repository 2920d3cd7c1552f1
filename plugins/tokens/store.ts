import type { EntityManager } from '@mikro-orm/core';
import { createHash, randomBytes } from 'node:crypto';
import {
  type AccessScope,
  type Credential,
  type Role,
  isRole,
  Database,
  ErrorCode,
  badRequest,
  inject,
  injectable,
  PluginClusterView,
  PluginLog,
  type Logger,
  type PluginCluster,
} from 'ogserve';
import { Inventory } from '../inventory';
import { TokenEntity } from './entities/token';

/** A token as GET /tokens and `ogserve token list` show it: never its secret or hash. */
export interface TokenView {
  name: string;
  role: Role;
  shell: boolean;
  /** ISO times; `expires` and `last_used` are null for never. */
  created: string;
  expires: string | null;
  last_used: string | null;
  /** The centers and rooms it is limited to; both empty: the whole fleet. */
  centers: number[];
  rooms: number[];
  /** The person who made it for themself; null for a token an admin made. */
  owner: string | null;
}

/** How the store checks and builds a token's part of the fleet (the inventory knows it). */
export interface ScopeMaker {
  /** Refuse (400 naming `centers` or `rooms`) ids that do not exist. */
  check(centers: readonly number[], rooms: readonly number[]): Promise<void>;
  make(centers: readonly number[], rooms: readonly number[]): AccessScope;
}

export interface NewToken {
  name: string;
  role: string;
  shell: boolean;
  /** Milliseconds since 1970, or null for a token that does not expire. */
  expiresAt: number | null;
  centers?: number[];
  rooms?: number[];
  /** A person making a token for themself (`ana@local`). */
  owner?: string;
}

interface Known {
  view: TokenView;
  access: Credential;
  expiresAt: number | null;
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** How often keys may make the store read its table again (a token made or revoked by the CLI). */
const rereadMs = 1000;

const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');
const isoOf = (ms: string | number | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

declare module 'ogserve' {
  interface CommandLineParts {
    /** `ogserve token`: the API tokens, on the config's database. */
    tokens: typeof TokenStore;
  }
}

/**
 * The API tokens, in memory by the hash of their secret so that checking a key costs no
 * query. The table is read at start, after each change made here, and again as keys arrive,
 * at most once a second (an unknown key waits for it): a token made or revoked by
 * `ogserve token` on the same database is seen within a second. Last-use times are written
 * in batches.
 */
@injectable()
export class TokenStore {
  private byHash = new Map<string, Known>();
  private readAt = 0;
  private reading?: Promise<void>;
  private readonly used = new Map<string, number>();

  private readonly scopes: ScopeMaker;
  private readonly now: () => number = Date.now;
  /** Told after each create and revoke (`tokens.changed`: the other instances read the table again at once). */
  private readonly changed: () => void;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Inventory) inventory: Pick<Inventory, 'scopeOf' | 'fleetScope'>,
    @inject(PluginClusterView) cluster: Pick<PluginCluster, 'broadcast'>,
    @inject(PluginLog) private readonly log: Logger,
  ) {
    this.scopes = {
      check: async (centers, rooms) => void (await inventory.scopeOf(centers, rooms)),
      make: (centers, rooms) => inventory.fleetScope(centers, rooms),
    };
    this.changed = () => cluster.broadcast('tokens.changed', null);
  }

  /** Another instance created or revoked a token: read the table again now. */
  changedElsewhere(): Promise<void> {
    return this.reread();
  }

  async create(input: NewToken, given?: EntityManager): Promise<{ view: TokenView; secret: string }> {
    if (!namePattern.test(input.name))
      throw badRequest(
        ErrorCode.invalidField,
        "'name' must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        'name',
      );
    if (!isRole(input.role)) throw badRequest(ErrorCode.invalidField, "'role' must be one of reader, operator, imager, admin", 'role');
    if (input.expiresAt !== null && input.expiresAt <= this.now())
      throw badRequest(ErrorCode.invalidField, "'expires' is in the past", 'expires');
    const centers = [...new Set(input.centers ?? [])];
    const rooms = [...new Set(input.rooms ?? [])];
    await this.scopes.check(centers, rooms);
    const em = this.db.unit(given);
    if (await em.findOne(TokenEntity, { name: input.name }))
      throw badRequest(ErrorCode.duplicate, `a token named '${input.name}' already exists`, 'name');
    const secret = `ogs_${randomBytes(24).toString('base64url')}`;
    em.create(TokenEntity, {
      name: input.name,
      hash: hashOf(secret),
      role: input.role,
      shell: input.shell,
      createdAt: String(this.now()),
      expiresAt: input.expiresAt === null ? null : String(input.expiresAt),
      lastUsedAt: null,
      centers: centers.join(','),
      rooms: rooms.join(','),
      owner: input.owner ?? null,
    });
    await em.flush();
    await this.reread();
    this.changed();
    return { view: this.views().find((v) => v.name === input.name)!, secret };
  }

  /** Delete a token (of that owner only, when one is named): false when there is none. */
  async revoke(name: string, owner?: string, em?: EntityManager): Promise<boolean> {
    const deleted = await this.db.unit(em).nativeDelete(TokenEntity, owner === undefined ? { name } : { name, owner });
    await this.reread();
    if (deleted > 0) this.changed();
    return deleted > 0;
  }

  /** Every token, or those one person made for themself. */
  async list(owner?: string): Promise<TokenView[]> {
    await this.reread();
    return this.views().filter((view) => owner === undefined || view.owner === owner);
  }

  /** Delete every token a person made (they were disabled or removed): how many went. */
  async revokeOwned(owner: string, em?: EntityManager): Promise<number> {
    const deleted = await this.db.unit(em).nativeDelete(TokenEntity, { owner });
    await this.reread();
    if (deleted > 0) this.changed();
    return deleted;
  }

  /** Who a valid key stands for, or undefined for an unknown, expired or revoked one. */
  async lookup(secret: string): Promise<Credential | undefined> {
    const hash = hashOf(secret);
    const stale = this.now() - this.readAt >= rereadMs;
    if (stale && !this.byHash.has(hash)) await this.read();
    // A known key is answered at once; the table is read again behind it, so a token revoked
    // on the same database by another process stops working within a second.
    else if (stale) this.readBehind();
    const known = this.byHash.get(hash);
    if (!known || (known.expiresAt !== null && known.expiresAt <= this.now())) return undefined;
    this.used.set(hash, this.now());
    known.view.last_used = isoOf(this.now());
    return known.access;
  }

  /**
   * Whether the token of this hash still works (an open event stream asks at each event):
   * answered from memory, and the table is read again behind it at most once a second, so a
   * token revoked elsewhere (another instance, `ogserve token revoke`) ends its streams too.
   */
  private holds(hash: string): boolean {
    if (this.now() - this.readAt >= rereadMs) this.readBehind();
    const known = this.byHash.get(hash);
    return known !== undefined && (known.expiresAt === null || known.expiresAt > this.now());
  }

  /** Write the last-use times gathered since the last call. */
  async flushUse(): Promise<void> {
    if (this.used.size === 0) return;
    const batch = [...this.used];
    this.used.clear();
    await this.db.transactional(async (em) => {
      for (const [hash, at] of batch) await em.nativeUpdate(TokenEntity, { hash }, { lastUsedAt: String(at) });
    });
  }

  private views(): TokenView[] {
    return [...this.byHash.values()].map((k) => k.view).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Read the table after a change: a read already under way may have begun before it. */
  private async reread(): Promise<void> {
    await this.reading?.catch(() => undefined);
    await this.read();
  }

  /** Read the table again without waiting for it: one that fails leaves the tokens known as they were, and is logged. */
  private readBehind(): void {
    if (this.reading) return;
    void this.read().catch((error: unknown) =>
      this.log.error({ err: error }, 'the tokens table could not be read again: the tokens known are kept'),
    );
  }

  /** Read the table again; concurrent callers share one read. */
  private read(): Promise<void> {
    this.reading ??= (async () => {
      try {
        // Its own unit of work: one read serves every concurrent caller, none of whose it may join.
        const rows = await this.db.fork().find(TokenEntity, {});
        const byHash = new Map<string, Known>();
        for (const row of rows) {
          if (!isRole(row.role)) continue;
          const lastUsed = this.used.get(row.hash) ?? row.lastUsedAt;
          const centers = idsOf(row.centers);
          const rooms = idsOf(row.rooms);
          const limited = centers.length + rooms.length > 0;
          byHash.set(row.hash, {
            view: {
              name: row.name,
              role: row.role,
              shell: Boolean(row.shell),
              created: isoOf(row.createdAt)!,
              expires: isoOf(row.expiresAt),
              last_used: isoOf(lastUsed),
              centers,
              rooms,
              owner: row.owner ?? null,
            },
            access: {
              name: row.name,
              source: 'token',
              role: row.role,
              // A token may be given the agents' shell permission, which no role holds.
              grants: row.shell ? ['shell'] : [],
              scope: limited ? this.scopes.make(centers, rooms) : undefined,
              holds: () => this.holds(row.hash),
            },
            expiresAt: row.expiresAt === null ? null : Number(row.expiresAt),
          });
        }
        this.byHash = byHash;
        this.readAt = this.now();
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }
}

/** `2,3` -> [2, 3]; '' -> []. */
function idsOf(text: string | null | undefined): number[] {
  return (text ?? '').split(',').filter(Boolean).map(Number);
}

/** `30d`, `12h` or `90m` from now, in milliseconds since 1970. */
export function expiryOf(text: string, now: number): number | undefined {
  const match = /^([1-9][0-9]{0,5})([dhm])$/.exec(text);
  if (!match) return undefined;
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[match[2] as 'd' | 'h' | 'm'];
  return now + Number(match[1]) * unit;
}
