import { bundledParts } from '../parts';
import { planFolders } from './folder-tree';
import type { Planning } from './context';

/**
 * Computer folders: the reference's ids are kept as their table ids, so a folder's public
 * id is the inventory's computer folder marker plus its reference id (the reference showed the bare id).
 */
export function planComputerFolders(p: Planning): void {
  const rows = p.site.computerFolders.map((f) => ({ id: f.id, name: f.name, ownerId: f.roomId, parentId: f.parentId }));
  p.plan.computerFolders = planFolders(
    p,
    {
      table: 'gruposordenadores',
      nameColumn: 'nombregrupoordenador',
      owners: p.rooms,
      decided: p.computerFolders,
      held: p.rules.held.computerFolders,
      make: (folder, parentId) => ({
        id: folder.id,
        publicId: bundledParts.inventory.computerFolderMarker + folder.id,
        name: folder.name,
        roomId: folder.ownerId,
        parentId,
      }),
    },
    rows,
  );
}
