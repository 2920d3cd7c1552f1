import type { Database } from '../../core/database';
import { PreparedJson, stringifyAscii } from '../../core/http/json';
import { buildScopes } from './scopes';

/**
 * GET /scopes is what consoles poll and it reads every row of five tables. The answer is
 * kept serialised until an inventory write invalidates it, or `maxAgeMs` passes (another
 * process writing to the same database server shows up within that time).
 */
export class ScopeCache {
  private cached?: { body: PreparedJson; at: number };
  private building?: Promise<PreparedJson>;
  private generation = 0;

  constructor(
    private readonly db: Database,
    private readonly maxAgeMs: number,
  ) {}

  invalidate(): void {
    this.generation++;
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
    const body = new PreparedJson(stringifyAscii({ scope: await buildScopes(this.db) }));
    // A write that landed while building makes this result stale: serve it, don't keep it.
    if (generation === this.generation) this.cached = { body, at };
    return body;
  }
}
