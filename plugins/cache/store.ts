import { Database, execute, inject, injectable, PluginClusterView, type PluginCluster } from 'ogserve';
import { Inventory } from '../inventory';
import type { CachedImage } from './answer';
import { type CacheEntry, CacheEntryEntity } from './entities/cache-entry';

/**
 * Each client's cache contents, replaced whole by every report of its agent. Consoles poll
 * the listing, so the contents are kept in memory too: read once, then changed only here,
 * after each replacement commits (this store is the only writer of its table; on another
 * instance, its own store, which tells this one through `elsewhere`).
 */
@injectable()
export class CacheStore {
  private loaded?: Promise<Map<number, CachedImage[]>>;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Inventory) private readonly inventory: Pick<Inventory, 'clientRef'>,
    /** Told of each client whose contents this store replaced (`cache.replaced`: the other instances read them again). */
    @inject(PluginClusterView) private readonly cluster: Pick<PluginCluster, 'broadcast'>,
  ) {}

  /** What other instances wrote may have been missed: read everything again on next use. */
  forgetAll(): void {
    this.loaded = undefined;
  }

  /** Another instance replaced this client's contents: read them from the table again. */
  async changedElsewhere(clientId: number): Promise<void> {
    if (!this.loaded) return;
    const rows = await this.db.query(
      `select name, ${this.db.bigintAsText('size')} as size, checksum from cache_entries where client_id = ?`,
      [clientId],
    );
    const images = rows.map(toImage).sort(byName);
    const all = await this.all();
    if (images.length > 0) all.set(clientId, images);
    else all.delete(clientId);
  }

  /**
   * Replace a client's cache contents in one transaction; contents the same as stored are
   * not written again (every agent's connect refresh reports them, mostly unchanged).
   */
  async replace(clientId: number, images: CachedImage[]): Promise<void> {
    const sorted = [...images].sort(byName);
    if (sameContents((await this.all()).get(clientId) ?? [], sorted)) return;
    await this.db.transactional(async (em) => {
      await execute(em, 'delete from cache_entries where client_id = ?', [clientId]);
      if (images.length > 0)
        await em.insertMany<CacheEntry>(
          CacheEntryEntity,
          images.map((image) => ({
            client: this.inventory.clientRef(em, clientId),
            name: image.name,
            size: image.size.toString(),
            checksum: image.checksum,
          })),
        );
    });
    (await this.all()).set(clientId, sorted);
    this.cluster.broadcast('cache.replaced', clientId);
  }

  /** Clients deleted: their rows went with them (foreign key cascade). */
  async forget(clientIds: number[]): Promise<void> {
    const all = await this.all();
    for (const id of clientIds) all.delete(id);
  }

  /** The stored contents of these clients, by client id, each sorted by name. */
  async contents(clientIds: number[]): Promise<Map<number, CachedImage[]>> {
    const all = await this.all();
    return new Map(clientIds.map((id) => [id, all.get(id) ?? []]));
  }

  private all(): Promise<Map<number, CachedImage[]>> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  private async load(): Promise<Map<number, CachedImage[]>> {
    const out = new Map<number, CachedImage[]>();
    const rows = await this.db.query(`select client_id, name, ${this.db.bigintAsText('size')} as size, checksum from cache_entries`);
    for (const r of rows) {
      const id = Number(r.client_id);
      let images = out.get(id);
      if (!images) out.set(id, (images = []));
      images.push(toImage(r));
    }
    for (const images of out.values()) images.sort(byName);
    return out;
  }
}

function toImage(row: Record<string, unknown>): CachedImage {
  return { name: String(row.name), size: BigInt(String(row.size)), checksum: String(row.checksum ?? '') };
}

/** By code unit, the same on every database engine (their collations differ). */
function byName(a: CachedImage, b: CachedImage): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function sameContents(a: readonly CachedImage[], b: readonly CachedImage[]): boolean {
  return (
    a.length === b.length &&
    a.every((image, i) => image.name === b[i]!.name && image.size === b[i]!.size && image.checksum === b[i]!.checksum)
  );
}
