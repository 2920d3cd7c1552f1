import { planFolders } from './folder-tree';
import type { Planning } from './context';

/** Room folders (`grupos` of kind 2): the reference's ids are kept as their table ids, which are also their public ids. */
export function planRoomFolders(p: Planning): void {
  const rows = p.site.roomFolders.map((f) => ({ id: f.id, name: f.name, ownerId: f.centerId, parentId: f.parentId }));
  p.plan.roomFolders = planFolders(
    p,
    {
      table: 'grupos',
      nameColumn: 'nombregrupo',
      owners: p.centers,
      decided: p.roomFolders,
      held: p.rules.held.roomFolders,
      make: (folder, parentId) => ({ id: folder.id, name: folder.name, centerId: folder.ownerId, parentId }),
    },
    rows,
  );
  p.ledger.read('grupos', p.site.otherFolders);
  p.ledger.leftOut('grupos', p.site.otherFolders, 'folders of images, procedures and the like, which ogserve does not keep');
}
