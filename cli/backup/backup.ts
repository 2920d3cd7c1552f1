import {
  createReadStream,
  existsSync,
  fsyncSync,
  openSync,
  closeSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  mkdirSync,
} from 'node:fs';
import path from 'node:path';
import { StartupError } from '../../core/errors';
import { release } from '../../core/version';
import { UsageError } from '../command';
import { parseOptions } from '../options';
import { BackupWriter, formatName, formatVersion, type Header, type Manifest } from './format';
import { inSnapshot, openSource, type SiteFiles, siteFiles } from './site';

/** What `ogserve backup` does (command.ts says what it is). */
export async function runBackup(args: string[]): Promise<number> {
  const options = parseOptions(args, {
    values: { '--to': [], '--to-dir': [], '--keep': [], '--config': ['-f', '--config-file'], '--state-dir': ['-s'] },
  });
  if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
  const to = options.values['--to'];
  const toDir = options.values['--to-dir'];
  if ((to === undefined) === (toDir === undefined)) throw new UsageError('backup needs --to FILE or --to-dir DIR (one of them)');
  const keepText = options.values['--keep'];
  if (keepText !== undefined && toDir === undefined) throw new UsageError('--keep goes with --to-dir');
  if (keepText !== undefined && !/^[1-9][0-9]{0,3}$/.test(keepText)) throw new UsageError('--keep takes a number of backups, 1 or more');
  const keep = keepText === undefined ? undefined : Number(keepText);
  const site = await siteFiles(options.values['--config'], options.values['--state-dir']);
  let file: string;
  if (toDir !== undefined) {
    mkdirSync(toDir, { recursive: true });
    file = path.join(toDir, datedName(new Date()));
  } else {
    file = to!;
    if (!existsSync(path.dirname(path.resolve(file))))
      throw new StartupError(`${path.dirname(file)}: no such folder to write the backup in`);
    if (existsSync(file)) throw new StartupError(`${file} exists: a backup never overwrites a file (remove it, or name another)`);
  }
  const manifest = await writeBackup(site, file, (line) => process.stderr.write(`${line}\n`));
  const rows = manifest.parts.filter((p) => p.part === 'table').reduce((n, p) => n + p.count, 0);
  const files = manifest.parts.filter((p) => p.part === 'file').length;
  process.stdout.write(
    `backed up ${manifest.engine} database (${rows} rows in ${manifest.parts.filter((p) => p.part === 'table').length} tables), ${files} boot files to ${file} (${statSync(file).size} bytes)\n`,
  );
  if (toDir !== undefined && keep !== undefined)
    for (const removed of prune(toDir, keep)) process.stdout.write(`removed ${path.join(toDir, removed)} (keeping the newest ${keep})\n`);
  return 0;
}

/** `ogserve-2026-11-27T15-14-00-123Z.backup`: sorts by date, as the retention reads them. */
export function datedName(at: Date): string {
  return `ogserve-${at.toISOString().replace(/[:.]/g, '-')}.backup`;
}

const datedPattern = /^ogserve-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.backup$/;

/** Remove all but the newest `keep` dated backups of `dir`; nothing else there is touched. Answers the names removed. */
export function prune(dir: string, keep: number): string[] {
  const dated = readdirSync(dir)
    .filter((name) => datedPattern.test(name))
    .sort();
  const removed = dated.slice(0, Math.max(0, dated.length - keep));
  for (const name of removed) rmSync(path.join(dir, name));
  return removed;
}

/**
 * Write the backup of a site to `file`: the tables of every enabled plugin from one read
 * snapshot, page by page as they are read, then the boot files, the generated key and the
 * config file. It is written to `file.partial` and renamed once complete and on disk, so a
 * backup cut short never leaves a file under the name asked for.
 */
export async function writeBackup(site: SiteFiles, file: string, say: (line: string) => void): Promise<Manifest> {
  const { database } = site.config.core;
  const source = await openSource(database, site.definitions);
  const partial = `${file}.partial`;
  const writer = new BackupWriter(partial);
  let header: Header | undefined;
  try {
    await inSnapshot(source, database.type, async (snapshot) => {
      const stored = await snapshot.versions();
      const plugins: Record<string, number> = {};
      for (const d of site.definitions) {
        const version = stored.get(d.name);
        const current = d.schemaVersion ?? 1;
        if (version === undefined)
          throw new StartupError(
            `the database holds no tables of plugin '${d.name}' yet: start ogserve once with this config, then back up`,
          );
        if (version !== current)
          throw new StartupError(
            `the database holds plugin '${d.name}' at schema version ${version}, this ogserve's is ${current}: back up with the release that wrote it, or start this one once to migrate it`,
          );
        plugins[d.name] = version;
      }
      header = {
        format: formatName,
        version: formatVersion,
        ogserve: release,
        engine: database.type,
        created: new Date().toISOString(),
        plugins,
      };
      await writer.header(header);
      for (const spec of source.specs) {
        await writer.begin({ part: 'table', name: spec.table, plugin: spec.plugin, columns: spec.columns.map((c) => c.name) });
        for await (const page of snapshot.pages(spec)) await writer.rows(page);
      }
      say(`tables read from one snapshot: ${source.specs.length}`);
    });
    await source.close();
    for (const { area, dir } of site.bootDirs)
      for (const name of filesUnder(dir)) {
        const full = path.join(dir, name);
        await writer.begin({ part: 'file', name: `${area}/${name}`, area, mode: statSync(full).mode & 0o777 });
        for await (const chunk of createReadStream(full, { highWaterMark: 48 * 1024 }) as AsyncIterable<Buffer>) await writer.bytes(chunk);
      }
    if (existsSync(site.tokenFile)) {
      await writer.begin({ part: 'api-token', name: 'api-token' });
      for await (const chunk of createReadStream(site.tokenFile) as AsyncIterable<Buffer>) await writer.bytes(chunk);
    }
    if (site.config.file) {
      await writer.begin({ part: 'config', name: 'config', file: path.basename(site.config.file) });
      for await (const chunk of createReadStream(site.config.file) as AsyncIterable<Buffer>) await writer.bytes(chunk);
    }
    const manifest = await writer.finish(header!);
    const fd = openSync(partial, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, file);
    return manifest;
  } catch (error) {
    await writer.abort();
    rmSync(partial, { force: true });
    await source.close().catch(() => undefined);
    throw error;
  }
}

/** The regular files under `dir` (relative paths, sorted); none when it does not exist. Files being written (`.tmp`) are left out. */
function filesUnder(dir: string, prefix = ''): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(path.join(dir, prefix), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .flatMap((e) => {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) return filesUnder(dir, rel);
      return e.isFile() && !/^\..*\.tmp$/.test(e.name) ? [rel] : [];
    })
    .sort();
}
