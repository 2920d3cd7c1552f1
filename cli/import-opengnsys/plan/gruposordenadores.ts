import { COMPUTER_FOLDER_MARKER } from '../../../plugins/inventory';
import { planFolders } from './folder-tree';
import type { Planning } from './context';

/**
 * Computer folders: the reference's ids are kept as their table ids, so a folder's public
 * id is COMPUTER_FOLDER_MARKER plus its reference id (the reference showed the bare id).
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
        publicId: COMPUTER_FOLDER_MARKER + folder.id,
        name: folder.name,
        roomId: folder.ownerId,
        parentId,
      }),
    },
    rows,
  );
}
