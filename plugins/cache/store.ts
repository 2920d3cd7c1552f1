import { execute, type Database } from '../../core/database';
import type { CachedImage } from './answer';
import { CacheEntryEntity } from './entities/cache-entry';

const inChunk = 500;

/** Each client's cache contents, replaced whole by every report of its agent. */
export class CacheStore {
  constructor(private readonly db: Database) {}

  /** Replace a client's cache contents in one transaction. */
  async replace(clientId: number, images: CachedImage[]): Promise<void> {
    await this.db.transactional(async (em) => {
      await execute(em, 'delete from cache_entries where client_id = ?', [clientId]);
      for (const image of images) {
        em.create(CacheEntryEntity, { client: clientId, name: image.name, size: image.size.toString(), checksum: image.checksum } as never);
      }
      await em.flush();
    });
  }

  /** The stored contents of these clients, by client id, each sorted by name. */
  async contents(clientIds: number[]): Promise<Map<number, CachedImage[]>> {
    const out = new Map<number, CachedImage[]>(clientIds.map((id) => [id, []]));
    const unique = [...new Set(clientIds)];
    for (let i = 0; i < unique.length; i += inChunk) {
      const chunk = unique.slice(i, i + inChunk);
      const rows = await this.db.query(
        `select client_id, name, ${this.db.bigintAsText('size')} as size, checksum from cache_entries
         where client_id in (${chunk.map(() => '?').join(',')}) order by client_id, name`,
        chunk,
      );
      for (const r of rows)
        out.get(Number(r.client_id))!.push({ name: String(r.name), size: BigInt(String(r.size)), checksum: String(r.checksum ?? '') });
    }
    return out;
  }
}
