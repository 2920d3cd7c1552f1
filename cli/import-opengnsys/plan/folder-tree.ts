import { bundledParts } from '../parts';
import { refusalOf } from './body-check';
import { alreadyThere, type Decided, idRefusal, keep, label, MAX_NESTING, type Planning, refuse } from './context';

const { FolderAdd } = bundledParts.inventory.bodies;
const MAX_FOLDER_ROW_ID = bundledParts.inventory.maxFolderRowId;

/** A folder row of either kind: its owner is a center (room folders) or a room (computer folders). */
export interface FolderRow {
  id: number;
  name: string;
  ownerId: number;
  /** 0 or null: at the top of its owner. */
  parentId: number | null;
}

export interface FolderKind<R> {
  table: string;
  nameColumn: string;
  owners: Decided<unknown>;
  decided: Decided<R>;
  /** Ids the target already holds. */
  held: Set<number>;
  make(folder: FolderRow, parentId: number | null): R;
}

/**
 * Folders of one kind, with their nesting. A folder is refused for its own faults (id
 * ogserve cannot number, owner not imported, bad name) or when its parents loop; a folder
 * whose parent was refused, is missing or belongs to another owner goes to the top of its
 * owner instead. A folder more than MAX_NESTING folders deep is refused (and so are those
 * under it). Kept folders come out parents first.
 */
export function planFolders<R>(p: Planning, kind: FolderKind<R>, rows: FolderRow[]): R[] {
  const { table } = kind;
  const out: R[] = [];
  const rowLabel = (folder: FolderRow) => label(table, folder.id, folder.name);
  p.ledger.read(table, rows.length);

  const candidates = new Map<number, FolderRow>();
  for (const folder of rows) {
    if (alreadyThere(p, kind.decided, table, folder.id, kind.held)) continue;
    const reason =
      idRefusal(folder.id) ??
      (folder.id > MAX_FOLDER_ROW_ID
        ? `id ${folder.id} is past ${MAX_FOLDER_ROW_ID}, the last folder id of its kind ogserve can number`
        : undefined) ??
      kind.owners.whyNot(folder.ownerId) ??
      refusalOf(FolderAdd, { name: folder.name }, { name: kind.nameColumn }, table);
    if (reason !== undefined) refuse(p, kind.decided, table, rowLabel(folder), folder.id, reason);
    else candidates.set(folder.id, folder);
  }

  const parentOf = (folder: FolderRow): FolderRow | undefined => {
    const parent = folder.parentId ? candidates.get(folder.parentId) : undefined;
    return parent && parent.ownerId === folder.ownerId ? parent : undefined;
  };
  for (const loop of loops(candidates, parentOf)) {
    for (const id of loop) {
      const folder = candidates.get(id)!;
      candidates.delete(id);
      const path = [...loop.slice(loop.indexOf(id)), ...loop.slice(0, loop.indexOf(id)), id].join(' -> ');
      refuse(p, kind.decided, table, rowLabel(folder), id, `its parent folders loop (${table} ${path})`);
    }
  }

  const depths = depthsOf(candidates, parentOf);
  for (const folder of [...candidates.values()]) {
    const depth = depths.get(folder.id)!;
    if (depth <= MAX_NESTING) continue;
    candidates.delete(folder.id);
    refuse(
      p,
      kind.decided,
      table,
      rowLabel(folder),
      folder.id,
      `it is ${depth} folders deep, past the ${MAX_NESTING} levels the import takes`,
    );
  }

  const all = new Map(rows.map((folder) => [folder.id, folder]));
  const whyNoParent = (folder: FolderRow): string | undefined => {
    const parent = all.get(folder.parentId!);
    if (parent && parent.ownerId !== folder.ownerId)
      return `${kind.decided.noun} ${parent.id} belongs to ${kind.owners.noun} ${parent.ownerId}`;
    return kind.decided.whyNot(folder.parentId!);
  };
  const place = (folder: FolderRow): void => {
    if (kind.decided.kept.has(folder.id)) return;
    const parent = parentOf(folder);
    if (parent) place(parent);
    let parentId: number | null = null;
    if (folder.parentId) {
      const why = whyNoParent(folder);
      if (why === undefined) parentId = folder.parentId;
      else p.ledger.changed(table, rowLabel(folder), `${why}: kept at the top of ${kind.owners.noun} ${folder.ownerId}`);
    }
    out.push(keep(p, kind.decided, table, folder.id, kind.make(folder, parentId)));
  };
  for (const folder of candidates.values()) place(folder);
  return out;
}

/** The loops among folders' parent links, each as the folder ids along it. */
function loops(folders: Map<number, FolderRow>, parentOf: (folder: FolderRow) => FolderRow | undefined): number[][] {
  const found: number[][] = [];
  const settled = new Set<number>();
  for (const start of folders.values()) {
    const path: number[] = [];
    const onPath = new Set<number>();
    let folder: FolderRow | undefined = start;
    while (folder && !settled.has(folder.id) && !onPath.has(folder.id)) {
      path.push(folder.id);
      onPath.add(folder.id);
      folder = parentOf(folder);
    }
    if (folder && onPath.has(folder.id)) found.push(path.slice(path.indexOf(folder.id)));
    for (const id of path) settled.add(id);
  }
  return found;
}

/**
 * Each folder's depth (1: at the top of its owner), found by walking up its parents without
 * recursion: a reference database may chain thousands. The parent links must not loop.
 */
function depthsOf(folders: Map<number, FolderRow>, parentOf: (folder: FolderRow) => FolderRow | undefined): Map<number, number> {
  const depths = new Map<number, number>();
  for (const start of folders.values()) {
    const chain: FolderRow[] = [];
    let folder: FolderRow | undefined = start;
    while (folder && !depths.has(folder.id)) {
      chain.push(folder);
      folder = parentOf(folder);
    }
    let depth = folder ? depths.get(folder.id)! : 0;
    for (const below of chain.reverse()) depths.set(below.id, ++depth);
  }
  return depths;
}
