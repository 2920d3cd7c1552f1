import type { PluginContext } from '../../../core/plugin';
import type { Inventory } from '../../inventory';
import { ctime } from '../ctime';
import { diskSpace } from '../files';
import type { ImageStore } from '../store';

/**
 * GET /images: the repository directory's file system and every image. `repo_ip` is read
 * from the repository at list time, so it follows a repository whose addresses changed;
 * `repo_id` is what the record stores.
 */
export function listRoutes(ctx: PluginContext, store: ImageStore, inventory: Inventory): void {
  const directory = ctx.settings.repository.directory;
  ctx.router.get('/images', { bodyPolicy: 'forbidden' }, async () => {
    const [disk, images] = await Promise.all([diskSpace(directory), store.list()]);
    const addresses = new Map<number, string>();
    for (const id of new Set(images.map((i) => i.repositoryId))) {
      addresses.set(id, (await inventory.repository(id))?.addresses[0] ?? '');
    }
    return {
      disk,
      images: images.map((i) => ({
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
        repo_ip: addresses.get(i.repositoryId) ?? '',
        checksum: i.checksum,
        center_id: i.centerId,
        group_id: i.groupId,
      })),
    };
  });
}
