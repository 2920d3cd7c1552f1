import { execFile } from 'node:child_process';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { LIVE_FILES } from './manifest';

/** Where an ogLive ISO keeps the files oglivecli installs. */
const ISO_FOLDER = 'ogclient';

/** ISO 9660's primary volume descriptor: sector 16 (of 2048 bytes), `\x01CD001`. */
const descriptorAt = 16 * 2048;
const descriptorMagic = Buffer.from('\x01CD001', 'latin1');

/** An ISO that cannot be installed: its message is the one line the user sees. */
export class IsoRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IsoRefused';
  }
}

/**
 * Unpack an ogLive ISO's kernel, initrd and root image into `into` (an empty folder), with
 * Debian's bsdtar (libarchive-tools), which reads ISO 9660 without mounting it (no root, no
 * loop device). An ISO bsdtar cannot read, one without the three files, and one cut short
 * are refused with an IsoRefused naming the ISO; what was unpacked is the caller's to remove.
 */
export async function unpackIso(iso: string, into: string): Promise<void> {
  const name = path.basename(iso);
  await checkLength(iso, name);
  const members = (await bsdtar(['-tf', iso], name)).split('\n').map((m) => m.replace(/^\.\//, ''));
  const wanted = LIVE_FILES.map((f) => `${ISO_FOLDER}/${f}`);
  const missing = wanted.filter((m) => !members.includes(m));
  if (missing.length > 0) throw new IsoRefused(`${name} is not an ogLive ISO: it has no ${missing.join(', ')}`);
  // The listing reads the directory records at the start; only unpacking reads the data, so a
  // copy cut short is found here (bsdtar: "Truncated input file").
  await bsdtar(['-xf', iso, '-C', into, '--strip-components', '1', '--no-same-owner', ...wanted], name);
  // A link in the ISO (Rock Ridge keeps them) would lead the chmod and the hashing that follow,
  // and the boot plugin, to a file elsewhere on the server.
  for (const file of LIVE_FILES) {
    if (!(await lstat(path.join(into, file)).catch(() => null))?.isFile())
      throw new IsoRefused(`${name} is not an ogLive ISO: its ${ISO_FOLDER}/${file} is not a plain file`);
  }
}

/**
 * Refuse a file that is no ISO 9660 image, or one shorter than its volume descriptor says
 * (a download cut short): found before unpacking anything, whatever part is missing.
 */
async function checkLength(iso: string, name: string): Promise<void> {
  const file = await open(iso, 'r');
  try {
    const descriptor = Buffer.alloc(2048);
    const { bytesRead } = await file.read(descriptor, 0, descriptor.length, descriptorAt);
    if (bytesRead < descriptor.length || !descriptor.subarray(0, descriptorMagic.length).equals(descriptorMagic))
      throw new IsoRefused(`${name} is not an ISO 9660 image`);
    // The volume's size in blocks and the block size, each stored little-endian then big-endian.
    const expected = descriptor.readUInt32LE(80) * descriptor.readUInt16LE(128);
    const { size } = await file.stat();
    if (size < expected) throw new IsoRefused(`${name} is cut short: ${size} of its ${expected} bytes (copy or download it again)`);
  } finally {
    await file.close();
  }
}

function bsdtar(args: string[], name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bsdtar', args, { maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return reject(new IsoRefused('bsdtar is not installed: install libarchive-tools (Debian, Ubuntu) to unpack ISOs'));
      const said = stderr.split('\n').find((line) => line.trim() !== '') ?? error.message;
      reject(new IsoRefused(`${name} cannot be read as an ISO (truncated or damaged?): ${said.replace(/^bsdtar: /, '')}`));
    });
  });
}
