import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { readManifest, sha256File } from './manifest';

interface Verdict {
  /** Size, mtime and inode of the file when it was hashed: any change means hashing again. */
  key: string;
  expected: string;
  matches: Promise<boolean>;
}

/**
 * Whether a file under the live directory still matches its image's manifest. Each file is
 * hashed once per version (size + mtime + inode): a boot storm's thousand requests for the same
 * initrd share one hash, and a file replaced or rewritten in place is hashed again.
 */
export class ManifestCheck {
  private readonly verdicts = new Map<string, Verdict>();

  constructor(private readonly directory: string) {}

  /**
   * Why `file` (a real path, links followed) must not be served, or undefined: files of a
   * folder without a manifest, and files its manifest does not list, are not checked.
   */
  async refusal(file: string): Promise<string | undefined> {
    const root = await realpath(this.directory).catch(() => null);
    if (!root) return undefined;
    const [image, ...rest] = path.relative(root, file).split(path.sep);
    if (!image || rest.length === 0 || image.startsWith('..')) return undefined;
    const expected = (await readManifest(path.join(root, image)))?.get(rest.join('/'));
    if (!expected) return undefined;
    const info = await stat(file).catch(() => null);
    if (!info) return `${image}/${rest.join('/')} is missing`;
    const key = `${info.size}:${info.mtimeMs}:${info.ino}`;
    let verdict = this.verdicts.get(file);
    if (!verdict || verdict.key !== key || verdict.expected !== expected) {
      const matches = sha256File(file).then(
        (actual) => actual === expected,
        () => false,
      );
      verdict = { key, expected, matches };
      this.verdicts.set(file, verdict);
    }
    return (await verdict.matches) ? undefined : `${image}/${rest.join('/')} does not match its image's manifest`;
  }

  /** Hash every file each image's manifest lists (at start: the first PC then does not wait); the refusals. */
  async warm(): Promise<string[]> {
    const root = await realpath(this.directory).catch(() => null);
    if (!root) return [];
    const refused: string[] = [];
    // Image folders themselves: the `ogLive` link leads to one of them, checked once.
    const folders = (await readdir(root, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory());
    for (const { name: image } of folders) {
      for (const name of (await readManifest(path.join(root, image)))?.keys() ?? []) {
        const reason = await this.refusal(path.join(root, image, name));
        if (reason) refused.push(reason);
      }
    }
    return refused;
  }
}
