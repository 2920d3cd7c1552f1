import { Database, inject, injectable, PluginConfig, PreparedJson } from 'ogserve';
import { readComputers, readGroups, type ScopeGroups, ScopeWriter } from './scopes';
import { Inventory } from './service';

/**
 * GET /scopes is what consoles poll and it reads every row of five tables. The answer is
 * kept serialised until an inventory write invalidates it, or `maxAgeMs` passes (another
 * process writing to the same database server shows up within that time). After a write
 * through this server the tree is built again from what that write kept exact: the
 * computers from the inventory's client index, and after a write of clients alone, the
 * centers, folders and rooms read for the last build. After the age passed, everything is
 * read from the tables, where another process's writes are.
 */
@injectable()
export class ScopeCache {
  private cached?: { body: PreparedJson; at: number };
  private building?: Promise<PreparedJson>;
  private generation = 0;
  /** Whether this server wrote since the last build (its index is then exact). */
  private written = false;
  private groups?: ScopeGroups;
  private readonly writer = new ScopeWriter();

  /** How long an answer may be served when nothing was written through this server (`scopes_cache_ms`). */
  private readonly maxAgeMs: number;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Inventory) private readonly inventory: Inventory,
    @inject(PluginConfig) config: { scopes_cache_ms: number },
  ) {
    this.maxAgeMs = config.scopes_cache_ms;
  }

  /** Call after a write through this server committed; `clientsOnly` when it wrote clients and nothing of the tree above them. */
  invalidate(clientsOnly = false): void {
    this.generation++;
    this.written = true;
    this.cached = undefined;
    if (!clientsOnly) this.groups = undefined;
  }

  async get(): Promise<PreparedJson> {
    if (this.cached && Date.now() - this.cached.at < this.maxAgeMs) return this.cached.body;
    // Concurrent pollers share one build instead of each reading the tables.
    this.building ??= this.build().finally(() => (this.building = undefined));
    return this.building;
  }

  private async build(): Promise<PreparedJson> {
    const generation = this.generation;
    const at = Date.now();
    const fromMemory = this.written;
    this.written = false;
    const [groups, computers] = await Promise.all([
      (fromMemory && this.groups) || readGroups(this.db),
      fromMemory ? this.inventory.allClients() : readComputers(this.db),
    ]);
    const body = new PreparedJson(this.writer.write(groups, computers));
    // A write that landed while building makes this result stale: serve it, don't keep it.
    if (generation === this.generation) {
      this.cached = { body, at };
      this.groups = groups;
    }
    return body;
  }
}
