import type { Database } from '../../core/database';
import { PreparedJson, stringifyAscii } from '../../core/http/json';
import { buildScopes } from './scopes';
import type { Inventory } from './service';

/**
 * GET /scopes is what consoles poll and it reads every row of five tables. The answer is
 * kept serialised until an inventory write invalidates it, or `maxAgeMs` passes (another
 * process writing to the same database server shows up within that time). The build after a
 * write through this server takes the computers from the inventory's client index, which
 * that write kept exact; a build after the age passed reads them from the table, where
 * another process's writes are.
 */
export class ScopeCache {
  private cached?: { body: PreparedJson; at: number };
  private building?: Promise<PreparedJson>;
  private generation = 0;
  private written = false;

  constructor(
    private readonly db: Database,
    private readonly inventory: Inventory,
    private readonly maxAgeMs: number,
  ) {}

  /** Call after a write through this server committed. */
  invalidate(): void {
    this.generation++;
    this.written = true;
    this.cached = undefined;
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
    const clients = this.written ? this.inventory.allClients() : undefined;
    this.written = false;
    const body = new PreparedJson(stringifyAscii({ scope: await buildScopes(this.db, clients) }));
    // A write that landed while building makes this result stale: serve it, don't keep it.
    if (generation === this.generation) this.cached = { body, at };
    return body;
  }
}
