import { COMPUTER_FOLDER_MARKER, MAX_FOLDER_ROW_ID } from './folder-ids';
import { inventoryHoldings, writeInventory } from './import';
import { CenterAdd, ClientAdd, FolderAdd, RepositoryAdd, RoomAdd, ServerAdd } from './schemas';

/**
 * What `ogserve import-opengnsys` takes from the inventory: what it holds (`--merge`), the
 * writer of the records, the rules of its request bodies (an import checks its rows by them,
 * as REST does) and how it numbers folders.
 */
export const inventoryImport = {
  holdings: inventoryHoldings,
  write: writeInventory,
  bodies: { CenterAdd, ClientAdd, FolderAdd, RepositoryAdd, RoomAdd, ServerAdd },
  computerFolderMarker: COMPUTER_FOLDER_MARKER,
  maxFolderRowId: MAX_FOLDER_ROW_ID,
};

declare module 'ogserve' {
  interface ImportParts {
    inventory: typeof inventoryImport;
  }
}
