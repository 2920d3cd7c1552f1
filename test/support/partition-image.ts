// System needs: partclone
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A real partition image: an ext4 file system made in a file, and its image as the agent writes it. */
export interface PartitionImage {
  /** The ext4 file system (the "partition"): what a restore must give back byte for byte. */
  partition: string;
  /** `partclone.ext4 -c | lzop -1`: the image file. */
  image: string;
  bytes: Buffer;
}

/**
 * Make an ext4 file system of `sizeMiB` in a file with `mkfs.ext4 -d` (no loop device), holding
 * random files, and its image with partclone.ext4 and lzop as the agent's create pipes them.
 */
export async function makePartitionImage(dir: string, name: string, sizeMiB = 16): Promise<PartitionImage> {
  const content = path.join(dir, `${name}-content`);
  mkdirSync(content, { recursive: true });
  writeFileSync(path.join(content, 'random.bin'), randomBytes(Math.floor(sizeMiB * 0.4 * 2 ** 20)));
  writeFileSync(path.join(content, 'hello.txt'), `the ${name} partition\n`);
  const partition = path.join(dir, `${name}.ext4`);
  await run('mkfs.ext4', ['-q', '-F', '-d', content, partition, `${sizeMiB}M`]);
  const image = path.join(dir, `${name}.img`);
  await run('bash', [
    '-o',
    'pipefail',
    '-c',
    `partclone.ext4 -c -s "$1" -o - -L "$2" 2>/dev/null | lzop -1 > "$3"`,
    'clone',
    partition,
    `${image}.log`,
    image,
  ]);
  return { partition, image, bytes: readFileSync(image) };
}

/**
 * Restore an image file into a file as the agent restores a partition (`lzop -dc | partclone.restore`),
 * extended to the partition's size (partclone writes the used blocks: the rest is a hole, zeros).
 */
export async function restoreInto(image: string, target: string, size: number): Promise<void> {
  await run('bash', [
    '-o',
    'pipefail',
    '-c',
    `lzop -dc "$1" | partclone.restore -C -s - -O "$2" -L "$3" >/dev/null 2>&1`,
    'restore',
    image,
    target,
    `${target}.log`,
  ]);
  await run('truncate', ['-s', String(size), target]);
}

export const sizeOf = (file: string) => statSync(file).size;
