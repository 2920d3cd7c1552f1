/**
 * Filesystem ids as the reference's `sistemasficheros` table numbers them; the web console
 * reads GET /client/setup's `filesystem` as this id (6 EXT4, 9 FAT32, 13 NTFS, 2 CACHE).
 */
const filesystemIds = new Map(
  [
    'EMPTY',
    'CACHE',
    'BTRFS',
    'EXT2',
    'EXT3',
    'EXT4',
    'FAT12',
    'FAT16',
    'FAT32',
    'HFS',
    'HFSPLUS',
    'JFS',
    'NTFS',
    'REISERFS',
    'REISER4',
    'UFS',
    'XFS',
    'EXFAT',
    'LINUX-SWAP',
    'F2FS',
    'NILFS2',
  ].map((name, index) => [name, index + 1]),
);

export function filesystemId(name: string): number {
  return filesystemIds.get(name.toUpperCase()) ?? 0;
}
