import { PreparedJson, stringifyAscii, type PluginContext } from 'ogserve';
import type { Inventory } from '../../inventory';
import { ctime } from '../ctime';
import { diskSpace } from '../files';
import { ImageListing } from '../schemas';
import type { ImageRow, ImageStore } from '../store';

function imageJson(i: ImageRow, repoIp: string): Record<string, unknown> {
  return {
    id: i.id,
    name: i.name,
    description: i.description,
    size: i.size,
    datasize: i.datasize,
    modified: ctime(Number(i.lastUpdate)),
    permissions: i.permissions,
    software_id: i.softwareId,
    type: i.type,
    repo_id: i.repositoryId,
    repo_ip: repoIp,
    checksum: i.checksum,
    center_id: i.centerId,
    group_id: i.groupId,
    sha256: i.sha256,
    state: i.state,
    damage: i.damage,
    checked: i.checkedAt ? new Date(i.checkedAt * 1000).toISOString() : null,
  };
}

/**
 * GET /images: the repository directory's file system and every image. `repo_ip` is read
 * from the repository at list time, so it follows a repository whose addresses changed;
 * `repo_id` is what the record stores. The serialised list is reused until the images
 * or their repositories' addresses change: consoles poll this.
 */
export function listRoutes(ctx: PluginContext, store: ImageStore, inventory: Inventory, directory: string): void {
  let rendered: { rows: ImageRow[]; addresses: string; text: string } | undefined;

  ctx.router.get(
    '/images',
    { permission: 'read', scoped: 'open', bodyPolicy: 'forbidden', response: ImageListing, summary: 'The repository disk and every image' },
    async () => {
      const [disk, rows] = await Promise.all([diskSpace(directory), store.list()]);
      const repoIps = new Map<number, string>();
      for (const id of new Set(rows.map((i) => i.repositoryId))) repoIps.set(id, (await inventory.repository(id))?.addresses[0] ?? '');
      const addresses = JSON.stringify([...repoIps]);
      if (!rendered || rendered.rows !== rows || rendered.addresses !== addresses) {
        rendered = { rows, addresses, text: stringifyAscii(rows.map((i) => imageJson(i, repoIps.get(i.repositoryId) ?? ''))) };
      }
      return new PreparedJson(`{"disk":${stringifyAscii(disk)},"images":${rendered.text}}`);
    },
  );
}
