import type { EntityManager } from '@mikro-orm/core';
import { createHash, randomBytes } from 'node:crypto';
import { type Clock, Database, inject, injectable, isRole, PluginConfig } from 'ogserve';
import { AuthClock } from './clock';
import { SessionEntity, type Session } from './entities/session';
import type { Grant } from './grant';

export interface SessionLifetimes {
  /** Ended after this long without a request. */
  idleMs: number;
  /** Ended this long after the sign-in, however busy. */
  absoluteMs: number;
}

/** A live session as the requests it authenticates see it. */
export interface LiveSession {
  hash: string;
  username: string;
  provider: string;
  /** One or more (a person in several directory groups). */
  grants: Grant[];
  csrf: string;
  createdAt: number;
  seenAt: number;
}

/** How long a session found in memory is trusted before its row is read again (ended on another instance, pruned). */
const recheckMs = 5000;

const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * Sessions, kept in the database (any instance of a cluster serves them) and in memory by
 * the hash of their secret, so that most requests cost no query. A session ends at
 * sign-out, after its idle or absolute lifetime, or when its user is disabled, removed or
 * given a new password: then every instance forgets it at once (`forgetUser`, told through
 * the cluster), and a memory entry is checked against its row every few seconds anyway.
 * Last-seen times are written in batches.
 */
@injectable()
export class SessionStore {
  private readonly live = new Map<string, LiveSession & { checkedAt: number }>();
  private readonly seen = new Map<string, number>();

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PluginConfig) config: { session_idle_min: number; session_absolute_h: number },
    @inject(AuthClock) clock: Clock,
  ) {
    this.lifetimes = { idleMs: config.session_idle_min * 60_000, absoluteMs: config.session_absolute_h * 3_600_000 };
    this.now = () => clock.now();
  }

  /** How long a session lives unused, and at most (`session_idle_min`, `session_absolute_h`). */
  readonly lifetimes: SessionLifetimes;
  private readonly now: () => number;

  /** A new session; the secret goes in the cookie and is kept nowhere. */
  async open(
    username: string,
    provider: string,
    grants: Grant[],
    given?: EntityManager,
  ): Promise<{ secret: string; session: LiveSession }> {
    const secret = randomBytes(32).toString('base64url');
    const now = this.now();
    const session: LiveSession = {
      hash: hashOf(secret),
      username,
      provider,
      grants,
      csrf: randomBytes(24).toString('base64url'),
      createdAt: now,
      seenAt: now,
    };
    const em = this.db.unit(given);
    em.create(SessionEntity, {
      hash: session.hash,
      username,
      provider,
      grants: JSON.stringify(grants),
      csrf: session.csrf,
      createdAt: String(now),
      seenAt: String(now),
    });
    await em.flush();
    this.live.set(session.hash, { ...session, checkedAt: now });
    return { secret, session };
  }

  /** The live session of a cookie's secret, or undefined (unknown, ended, past a lifetime). Counts as activity. */
  async find(secret: string, em?: EntityManager): Promise<LiveSession | undefined> {
    const hash = hashOf(secret);
    const now = this.now();
    let session = this.live.get(hash);
    if (!session || now - session.checkedAt >= recheckMs) {
      const row = await this.db.unit(em).findOne(SessionEntity, { hash });
      const found = row && liveOf(row);
      if (!found) {
        this.live.delete(hash);
        return undefined;
      }
      session = { ...found, seenAt: Math.max(session?.seenAt ?? 0, found.seenAt), checkedAt: now };
      this.live.set(hash, session);
    }
    if (!this.current(session)) {
      await this.end(hash, em);
      return undefined;
    }
    session.seenAt = now;
    this.seen.set(hash, now);
    return session;
  }

  /** Whether the session of this hash still holds, from memory (an open event stream asks at each event). */
  holds(hash: string): boolean {
    const session = this.live.get(hash);
    return session !== undefined && this.current(session);
  }

  /** End one session (sign-out); its row goes, other instances find it gone at their next check. */
  async end(hash: string, em?: EntityManager): Promise<void> {
    this.live.delete(hash);
    this.seen.delete(hash);
    await this.db.unit(em).nativeDelete(SessionEntity, { hash });
  }

  /** End every session of a user (every provider), here and in the database. */
  async endUser(username: string, em?: EntityManager): Promise<void> {
    this.forgetUser(username);
    await this.db.unit(em).nativeDelete(SessionEntity, { username });
  }

  /** Another instance ended a user's sessions: drop them from memory now. */
  forgetUser(username: string): void {
    for (const [hash, session] of this.live) {
      if (session.username === username) {
        this.live.delete(hash);
        this.seen.delete(hash);
      }
    }
  }

  /** Write the last-seen times gathered since the last call, and remove the rows of sessions past a lifetime. */
  async flush(): Promise<void> {
    const batch = [...this.seen];
    this.seen.clear();
    await this.db.transactional(async (em) => {
      for (const [hash, at] of batch) await em.nativeUpdate(SessionEntity, { hash }, { seenAt: String(at) });
      const now = this.now();
      await em.nativeDelete(SessionEntity, {
        $or: [{ seenAt: { $lt: String(now - this.lifetimes.idleMs) } }, { createdAt: { $lt: String(now - this.lifetimes.absoluteMs) } }],
      });
    });
    for (const [hash, session] of this.live) if (!this.current(session)) this.live.delete(hash);
  }

  private current(session: LiveSession): boolean {
    const now = this.now();
    return now - session.seenAt < this.lifetimes.idleMs && now - session.createdAt < this.lifetimes.absoluteMs;
  }
}

/** A row as a live session; undefined for one whose grants cannot be read (written by another release). */
function liveOf(row: Session): LiveSession | undefined {
  let grants: Grant[];
  try {
    grants = JSON.parse(row.grants) as Grant[];
  } catch {
    return undefined;
  }
  if (!Array.isArray(grants) || grants.length === 0 || !grants.every((grant) => isRole(grant?.role))) return undefined;
  return {
    hash: row.hash,
    username: row.username,
    provider: row.provider,
    grants,
    csrf: row.csrf,
    createdAt: Number(row.createdAt),
    seenAt: Number(row.seenAt),
  };
}
