import { execute, type Database } from '../../core/database';
import type { Inventory } from '../inventory';
import type { CachedImage } from './answer';
import { type CacheEntry, CacheEntryEntity } from './entities/cache-entry';

/**
 * Each client's cache contents, replaced whole by every report of its agent. Consoles poll
 * the listing, so the contents are kept in memory too: read once, then changed only here,
 * after each replacement commits (this store is the only writer of its table).
 */
export class CacheStore {
  private loaded?: Promise<Map<number, CachedImage[]>>;

  constructor(
    private readonly db: Database,
    private readonly inventory: Pick<Inventory, 'clientRef'>,
  ) {}

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
      images.push({ name: String(r.name), size: BigInt(String(r.size)), checksum: String(r.checksum ?? '') });
    }
    for (const images of out.values()) images.sort(byName);
    return out;
  }
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
