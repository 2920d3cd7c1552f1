/**
 * Public folder ids. Room folders and computer folders live in two tables, so their ids
 * can collide; the public id of a computer folder carries the marker 0x10000 (65536),
 * which is why room folders are limited to 65535. Room folder ids are the raw table ids.
 */
export const COMPUTER_FOLDER_MARKER = 0x10000;

export type FolderRef = { kind: 'room'; id: number } | { kind: 'computer'; id: number };

export function computerFolderPublicId(rawId: number): number {
  return rawId | COMPUTER_FOLDER_MARKER;
}

export function parseFolderId(publicId: number): FolderRef {
  return publicId & COMPUTER_FOLDER_MARKER ? { kind: 'computer', id: publicId & ~COMPUTER_FOLDER_MARKER } : { kind: 'room', id: publicId };
}
