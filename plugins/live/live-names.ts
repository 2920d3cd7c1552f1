/** One live image as GET /live/list shows it (the fields of OpenGnsys' ogliveinfo.json). */
export interface LiveEntry {
  distribution: string;
  kernel: string;
  architecture: string;
  revision: string;
  directory: string;
  iso: string;
}

/** The prefix oglivecli gives every installed live image directory; `ogLive` alone is the default link. */
export const LIVE_PREFIX = 'ogLive';

/** A directory name that is safe to put in a boot file and a kernel parameter. */
export const liveDirectoryPattern = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

const architectures = new Set(['i386', 'amd64', 'x86_64', 'arm64', 'aarch64']);

/**
 * Read what a directory name says about its live image. oglivecli names them
 * `ogLive-<kernel>-r<revision>` (64-bit) or `ogLive-<kernel>-i386-r<revision>`, its ISO files
 * `ogLive-<distribution>-<kernel>-<architecture>-r<revision>...`; both forms are understood.
 * The kernel keeps its dashes (`5.13.0-27-beta`); a name without `r<digits>` has no revision.
 */
export function parseLiveName(name: string): LiveEntry {
  const entry: LiveEntry = { distribution: '', kernel: '', architecture: 'amd64', revision: '', directory: name, iso: '' };
  const parts = name.replace(/\.iso$/, '').split('-');
  if (parts[0] === LIVE_PREFIX) parts.shift();
  const last = parts[parts.length - 1];
  if (last !== undefined && /^r[0-9]+/.test(last)) entry.revision = parts.pop()!.split('.')[0]!;
  const arch = parts[parts.length - 1];
  if (arch !== undefined && architectures.has(arch)) entry.architecture = parts.pop()!;
  if (parts.length > 0 && !/^[0-9]/.test(parts[0]!)) entry.distribution = parts.shift()!;
  entry.kernel = parts.join('-');
  return entry;
}
