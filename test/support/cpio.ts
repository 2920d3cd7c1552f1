import { gzipSync } from 'node:zlib';

/**
 * A gzipped cpio archive (newc, as the kernel reads an initramfs) of the given files, each
 * mode 0755. Appended to an initramfs, its files replace those of the same name: the kernel
 * unpacks concatenated archives in order.
 */
export function cpioArchive(files: Record<string, string | Buffer>): Buffer {
  const parts: Buffer[] = [];
  const pad = (length: number) => Buffer.alloc((4 - (length % 4)) % 4);
  let ino = 1;
  const entry = (name: string, data: Buffer, mode: number) => {
    const fields = [ino++, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, name.length + 1, 0];
    const header = Buffer.from(`070701${fields.map((f) => f.toString(16).padStart(8, '0')).join('')}${name}\0`, 'latin1');
    parts.push(header, pad(header.length), data, pad(data.length));
  };
  for (const [name, content] of Object.entries(files)) entry(name, Buffer.from(content), 0o100755);
  entry('TRAILER!!!', Buffer.alloc(0), 0);
  return gzipSync(Buffer.concat(parts));
}
