import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import type { CoreSettings } from '../config';
import { StartupError } from '../../core/errors';
import { UsageError } from '../command';
import { holdsOgserve } from '../import-opengnsys/target-database';
import { parseOptions } from '../options';
import { BackupRefused, type Manifest, type PartHeader, readBackup } from './format';
import { openSource, type SiteFiles, siteFiles } from './site';
import { type TableSpec, tableSpecs } from './tables';
import { createApp } from '../config';

/** What `ogserve restore` does (command.ts says what it is). */
export async function runRestore(args: string[]): Promise<number> {
  const options = parseOptions(args, {
    values: { '--from': [], '--config': ['-f', '--config-file'], '--state-dir': ['-s'], '--config-to': [] },
    flags: ['--force', '--check'],
  });
  if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
  const from = options.values['--from'];
  if (from === undefined) throw new UsageError('restore needs --from FILE');
  if (!existsSync(from)) throw new StartupError(`${from} does not exist`);
  const force = options.flags.has('--force');
  const configTo = options.values['--config-to'];
  if (configTo && existsSync(configTo) && !force)
    throw new StartupError(`${configTo} exists: --config-to never overwrites a file without --force`);
  // The whole file is read and checked before anything is opened for writing.
  const columns = new Map<string, string[]>();
  const manifest = await verify(from, columns);
  const site = await siteFiles(options.values['--config'], options.values['--state-dir']);
  refuseMismatch(from, manifest, site);
  const { database } = site.config.core;
  const rows = manifest.parts.filter((p) => p.part === 'table').reduce((n, p) => n + p.count, 0);
  if (options.flags.has('--check')) {
    process.stdout.write(
      `${from}: a whole backup of ${manifest.engine} (ogserve ${manifest.ogserve}, ${manifest.created}), ${rows} rows; it fits ${describe(database)}\n`,
    );
    return 0;
  }
  const held = await holdings(database, site);
  if (held.length > 0 && !force)
    throw new StartupError(
      `${describe(database)} already holds ${held.join(', ')}: restore into an empty database, or add --force to replace everything it holds`,
    );
  const app = await createApp({
    configFile: options.values['--config'],
    stateDir: options.values['--state-dir'],
    logStream: process.stderr,
  });
  const renames: [string, string][] = [];
  try {
    const knex = (app.database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    const specs = tableSpecs(app.database.orm, app.plugins);
    refuseColumns(from, manifest, specs, columns);
    await restoreRows(from, knex, database.type, specs, site, configTo, renames);
  } catch (error) {
    for (const [temp] of renames) rmSync(temp, { force: true });
    if (error instanceof StartupError) throw error;
    throw new StartupError(`restoring into ${describe(database)} failed, nothing was restored: ${(error as Error).message}`);
  } finally {
    await app.close();
  }
  // Committed: the boot files, key and config written beside it take their names now.
  for (const [temp, final] of renames) renameSync(temp, final);
  process.stdout.write(
    `restored ${rows} rows, ${manifest.parts.filter((p) => p.part === 'file').length} boot files from ${from} (${manifest.engine}, ${manifest.created}) into ${describe(database)}\n`,
  );
  if (manifest.parts.some((p) => p.part === 'config') && !configTo)
    process.stdout.write("the backup's config file was not written: --config-to FILE writes it\n");
  return 0;
}

async function verify(file: string, columns: Map<string, string[]>): Promise<Manifest> {
  try {
    return await readBackup(
      file,
      () => undefined,
      undefined,
      (part) => {
        if (part.part === 'table') columns.set(part.name, part.columns);
      },
    );
  } catch (error) {
    if (error instanceof BackupRefused) throw new StartupError(`${error.message}; nothing was restored`);
    throw error;
  }
}

/** The backup's plugins must all be enabled in the target, at the schema versions this ogserve writes. */
function refuseMismatch(file: string, manifest: Manifest, site: SiteFiles): void {
  const enabled = new Map(site.definitions.map((d) => [d.name, d.schemaVersion ?? 1]));
  for (const [plugin, version] of Object.entries(manifest.plugins)) {
    const current = enabled.get(plugin);
    if (current === undefined)
      throw new StartupError(
        `${file} holds the data of plugin '${plugin}', which the target config does not enable: add it to "plugins"; nothing was restored`,
      );
    if (current !== version)
      throw new StartupError(
        `${file} holds plugin '${plugin}' at schema version ${version}, this ogserve writes ${current}: restore with ogserve ${manifest.ogserve}, start it once, then upgrade; nothing was restored`,
      );
  }
}

function refuseColumns(file: string, manifest: Manifest, specs: TableSpec[], columns: Map<string, string[]>): void {
  const tables = new Map(specs.map((s) => [s.table, s]));
  for (const part of manifest.parts) {
    const spec = tables.get(part.name);
    if (part.part === 'table' && !spec)
      throw new StartupError(`${file} holds table ${part.name}, which the target's plugins do not have; nothing was restored`);
    if (part.part === 'table') {
      const want = spec!.columns.map((c) => c.name).sort();
      const have = [...(columns.get(part.name) ?? [])].sort();
      if (want.join() !== have.join())
        throw new StartupError(
          `${file} holds table ${part.name} with columns ${have.join(', ')}, the target's has ${want.join(', ')}; nothing was restored`,
        );
    }
    if (part.part === 'file') safeJoin(file, '/', part.name.replace(/^[^/]*\//, ''));
  }
}

/**
 * What the target holds, `<n> rows in <table>`. A fresh inventory's seed (repository 1,
 * "Default", and its address) counts as nothing: a database ogserve has only started on is
 * empty.
 */
async function holdings(database: CoreSettings['database'], site: SiteFiles): Promise<string[]> {
  if (!(await holdsOgserve(database))) return [];
  const source = await openSource(database, site.definitions);
  try {
    const counts = new Map<string, number>();
    for (const spec of source.specs) {
      try {
        const [row] = (await source.knex(spec.table).count({ n: '*' })) as { n: number | string }[];
        if (Number(row?.n) > 0) counts.set(spec.table, Number(row?.n));
      } catch {
        // a table a plugin has not created yet holds nothing
      }
    }
    if ([...counts.keys()].every((t) => t === 'repositories' || t === 'repository_addresses') && counts.get('repositories') === 1) {
      const [repository] = (await source.knex('repositories').select('id', 'name')) as { id: number; name: string }[];
      const others = counts.has('repository_addresses')
        ? ((await source.knex('repository_addresses').whereNot('repository_id', 1).count({ n: '*' })) as { n: number | string }[])
        : [{ n: 0 }];
      if (Number(repository?.id) === 1 && repository?.name === 'Default' && Number(others[0]?.n) === 0) return [];
    }
    return [...counts].map(([table, n]) => `${n} row${n === 1 ? '' : 's'} in ${table}`);
  } finally {
    await source.close();
  }
}

/**
 * Everything in one transaction: the target's rows deleted (a fresh schema's seed, or all
 * with --force), the backup's inserted in its order keeping their ids, references within a
 * table set once its rows are in, PostgreSQL's id sequences moved past the largest id. The
 * file is checked again as it is read: a difference rolls everything back. Boot files, the
 * key and the config go to temp files beside their targets, renamed once this commits.
 */
async function restoreRows(
  file: string,
  knex: Knex,
  type: CoreSettings['database']['type'],
  specs: TableSpec[],
  site: SiteFiles,
  configTo: string | undefined,
  renames: [string, string][],
): Promise<void> {
  const byTable = new Map(specs.map((s) => [s.table, s]));
  await knex.transaction(async (trx) => {
    for (const spec of [...specs].reverse()) await trx(spec.table).del();
    let table:
      | { spec: TableSpec; columns: string[]; self: number[]; batch: Record<string, unknown>[]; fixes: [number, Record<string, unknown>][] }
      | undefined;
    let output: { fd: number; temp: string } | undefined;
    const batchRows = (spec: TableSpec) => Math.max(1, Math.min(500, Math.floor(30000 / spec.columns.length)));
    const flush = async () => {
      if (table && table.batch.length > 0) await trx(table.spec.table).insert(table.batch);
      if (table) table.batch = [];
    };
    const endPart = async () => {
      await flush();
      if (table) for (const [id, values] of table.fixes) await trx(table.spec.table).where('id', id).update(values);
      table = undefined;
      if (output) {
        fsyncSync(output.fd);
        closeSync(output.fd);
        output = undefined;
      }
    };
    let announcedFiles = false;
    const startFile = (header: PartHeader, final: string, mode: number) => {
      mkdirSync(path.dirname(final), { recursive: true });
      const temp = path.join(path.dirname(final), `.${path.basename(final)}.restore.tmp`);
      output = { fd: openSync(temp, 'w', mode), temp };
      renames.push([temp, final]);
      if (header.part !== 'file') process.stdout.write(`restoring ${header.part}\n`);
      else if (!announcedFiles) process.stdout.write('restoring boot files\n');
      if (header.part === 'file') announcedFiles = true;
    };
    await readBackup(
      file,
      () => undefined,
      async (item) => {
        if (item.kind === 'part') {
          await endPart();
          const h = item.header;
          if (h.part === 'table') {
            const spec = byTable.get(h.name)!;
            const self = h.columns.flatMap((c, i) => (spec.columns.find((s) => s.name === c)?.selfRef ? [i] : []));
            table = { spec, columns: h.columns, self, batch: [], fixes: [] };
            process.stdout.write(`restoring table ${h.name}\n`);
          } else if (h.part === 'file') {
            const dir = site.bootDirs.find((d) => d.area === h.area)?.dir;
            if (dir === undefined) return; // the plugin that gives the area is checked enabled; a site without it has no such files
            startFile(h, safeJoin(file, dir, h.name.slice(h.area.length + 1)), h.mode & 0o777);
          } else if (h.part === 'api-token') startFile(h, site.tokenFile, 0o600);
          else if (h.part === 'config' && configTo) startFile(h, configTo, 0o640);
        } else if (item.kind === 'row' && table) {
          const row: Record<string, unknown> = {};
          const fix: Record<string, unknown> = {};
          for (const [i, name] of table.columns.entries()) {
            const value = item.values[i];
            if (table.self.includes(i) && value !== null) {
              fix[name] = value;
              row[name] = null;
            } else row[name] = value;
          }
          if (Object.keys(fix).length > 0) table.fixes.push([Number(row.id), fix]);
          table.batch.push(row);
          if (table.batch.length >= batchRows(table.spec)) await flush();
        } else if (item.kind === 'bytes' && output) writeSync(output.fd, item.chunk);
      },
    );
    await endPart();
    if (type === 'postgresql')
      for (const spec of specs)
        await trx.raw(`select setval(pg_get_serial_sequence(?, 'id'), coalesce((select max(id) from ??), 0) + 1, false)`, [
          spec.table,
          spec.table,
        ]);
  });
}

/** A boot file's path inside its folder; a name that would leave it refuses the backup. */
function safeJoin(file: string, dir: string, name: string): string {
  const normal = path.normalize(name);
  if (normal !== name || normal.startsWith('..') || path.isAbsolute(normal) || normal === '.')
    throw new StartupError(`${file} is damaged: boot file name '${name}' leaves its folder; nothing was restored`);
  return path.join(dir, normal);
}

function describe(database: CoreSettings['database']): string {
  if (database.type === 'sqlite') return `sqlite ${database.path}`;
  return `${database.type} ${database.user ? `${database.user}@` : ''}${database.ip}${database.port ? `:${database.port}` : ''}/${database.name}`;
}
