import { ErrorCode, badRequest } from 'ogserve';

/**
 * Public folder ids. Room folders and computer folders live in two tables, so their ids
 * can collide; the public id of a computer folder is its table id plus the marker 0x10000
 * (65536). Room folder ids are the raw table ids. Both kinds stop at table id 65535, so
 * room folders are 1..65535 and computer folders 65537..131071: the marker is then also
 * bit 16 alone, and a client that tests that bit reads the kind right.
 */
export const COMPUTER_FOLDER_MARKER = 0x10000;

/** The highest table id of either folder kind; past it a new folder is refused. */
export const MAX_FOLDER_ROW_ID = COMPUTER_FOLDER_MARKER - 1;

export type FolderRef = { kind: 'room'; id: number } | { kind: 'computer'; id: number };

export function computerFolderPublicId(rowId: number): number {
  return COMPUTER_FOLDER_MARKER + rowId;
}

/**
 * The folder a public id names. Read by arithmetic and range, never by bit operations
 * (which wrap past 2^32 and made 4295032833 read as 65537): an id no folder can have
 * (0, 65536, past 131071) is refused naming `field`.
 */
export function parseFolderId(publicId: number, field: string): FolderRef {
  if (Number.isSafeInteger(publicId) && publicId >= 1) {
    if (publicId <= MAX_FOLDER_ROW_ID) return { kind: 'room', id: publicId };
    const rowId = publicId - COMPUTER_FOLDER_MARKER;
    if (rowId >= 1 && rowId <= MAX_FOLDER_ROW_ID) return { kind: 'computer', id: rowId };
  }
  throw badRequest(
    ErrorCode.invalidField,
    `'${field}' must be a folder id: 1..${MAX_FOLDER_ROW_ID} (room folders) or ${computerFolderPublicId(1)}..${computerFolderPublicId(MAX_FOLDER_ROW_ID)} (computer folders)`,
    field,
  );
}
