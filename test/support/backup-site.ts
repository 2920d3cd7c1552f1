import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import path from 'node:path';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import type { App } from '../../core/app';
import { inSnapshot, openSource, siteFiles } from '../../cli/backup/site';
import type { Column, TableSpec } from '../../cli/backup/tables';
import { tableSpecs } from '../../cli/backup/tables';
import { makeTestDir } from './server';
import { type TestEngine, testDatabaseSection } from './test-db';
import { createApp } from '../../cli/config';

/** A site of the backup tests: a state directory with its config, on one engine, every bundled plugin (the scheduler's tables too). */
export interface BackupSite {
  dir: string;
  engine: TestEngine;
  config: string;
  /** `--config FILE --state-dir DIR`, for the command line. */
  args: string[];
}

const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });

export function makeSite(engine: TestEngine, extra: Record<string, unknown> = {}): BackupSite {
  const dir = makeTestDir();
  const config = path.join(dir, 'config.json');
  const settings = {
    database: testDatabaseSection(dir, engine),
    rest: { port: 0 },
    agents: { port: 0 },
    ...extra,
  };
  writeFileSync(config, `${JSON.stringify(settings, null, 2)}\n`);
  return { dir, engine, config, args: ['--config', config, '--state-dir', dir] };
}

/** Run `fn` with the site's app opened as `ogserve token` opens it (no port), closed after. */
export async function withSiteApp<T>(site: BackupSite, fn: (app: App, knex: Knex, specs: TableSpec[]) => Promise<T>): Promise<T> {
  const app = await createApp({ configFile: site.config, stateDir: site.dir, logStream: quiet });
  try {
    const knex = (app.database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    return await fn(app, knex, tableSpecs(app.database.orm, app.plugins));
  } finally {
    await app.close();
  }
}

/** Rows by table, in id order, each as the backup writes it (numbers, bigints as text, booleans, strings, nulls). */
export type Tables = Map<string, unknown[][]>;

const awkward = `ñ'"\\ \t\n<é>%_☃`;

function text(i: number, column: Column): string {
  const whole = `${i}${awkward}${column.name}😀`;
  const chars = Array.from(whole);
  return chars.slice(0, column.length ?? chars.length).join('');
}

/**
 * Fill every table of the site with `rows` rows (or `big[table]`), each column a value of its
 * kind that tells engines apart: texts with quotes, tabs, newlines and characters outside
 * ASCII and the BMP, bigints past 2^53, booleans both ways, nulls, and references to
 * parents, and to a later row of the same table (restored in a second pass). Ids are set;
 * PostgreSQL's sequences are left for the restore to move. Answers what was written.
 */
export async function fillSite(site: BackupSite, rows = 4, big: Record<string, number> = {}): Promise<Tables> {
  return withSiteApp(site, async (_app, knex, specs) => {
    const written: Tables = new Map();
    await knex.transaction(async (trx) => {
      for (const spec of [...specs].reverse()) await trx(spec.table).del();
      for (const spec of specs) {
        const n = big[spec.table] ?? rows;
        const parentsOf = (column: Column) => written.get(column.references!)!.length;
        const table: unknown[][] = [];
        for (let i = 1; i <= n; i++) {
          table.push(
            spec.columns.map((column) => {
              if (column.name === 'id') return i;
              if (column.selfRef) return i < n && i % 2 === 1 ? i + 1 : null;
              if (column.references) return column.nullable && i % 3 === 0 ? null : ((i - 1) % parentsOf(column)) + 1;
              if (column.nullable && i % 3 === 0) return null;
              switch (column.codec) {
                case 'int':
                  return column.small ? i % 32_000 : i;
                case 'bigint':
                  return String(2n ** 53n + BigInt(i) * 1000n + 7n);
                case 'bool':
                  return i % 2 === 0;
                case 'double':
                  return i + 0.125;
                default:
                  return text(i, column);
              }
            }),
          );
        }
        const names = spec.columns.map((c) => c.name);
        const selfIndexes = spec.columns.flatMap((c, k) => (c.selfRef ? [k] : []));
        for (let start = 0; start < table.length; start += 200) {
          const chunk = table
            .slice(start, start + 200)
            .map((values) => Object.fromEntries(names.map((name, k) => [name, selfIndexes.includes(k) ? null : values[k]])));
          await trx(spec.table).insert(chunk);
        }
        const idAt = names.indexOf('id');
        for (const values of table)
          for (const k of selfIndexes)
            if (values[k] !== null)
              await trx(spec.table)
                .where('id', values[idAt] as number)
                .update({ [names[k]!]: values[k] });
        written.set(spec.table, table);
      }
    });
    return written;
  });
}

/** Every table of the site as it reads now, through a connection of its own. */
export async function readTables(site: BackupSite): Promise<Tables> {
  const files = await siteFiles(site.config, site.dir);
  const source = await openSource(files.config.core.database, files.definitions);
  try {
    return await inSnapshot(source, files.config.core.database.type, async (snapshot) => {
      const tables: Tables = new Map();
      for (const spec of source.specs) {
        const rows: unknown[][] = [];
        for await (const page of snapshot.pages(spec, 333)) rows.push(...page);
        tables.set(spec.table, rows);
      }
      return tables;
    });
  } finally {
    await source.close();
  }
}

/** Boot files (random bytes, some binary) and a key in the site's folders; answers them by relative path. */
export function writeSiteFiles(site: BackupSite, count = 6): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const mac = `0${i}:aa:bb:cc:dd:ee`.slice(0, 17);
    const uefi = `tftpboot/grub/01-${mac}`;
    const bios = `tftpboot/menu.lst/01-${mac.replace(/:/g, '-').toUpperCase()}`;
    files.set(uefi, randomBytes(100 + i * 1000));
    files.set(bios, Buffer.from(`timeout 1\ntitle client ${i}\n\u00f1\n`));
  }
  files.set('tftpboot/grub/default', randomBytes(70_000));
  files.set('api-token', Buffer.from(`${randomBytes(24).toString('hex')}\n`));
  for (const [name, bytes] of files) {
    mkdirSync(path.dirname(path.join(site.dir, name)), { recursive: true });
    writeFileSync(path.join(site.dir, name), bytes);
  }
  return files;
}

/** The site's boot files and key, by relative path. */
export function readSiteFiles(site: BackupSite): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const folder of ['tftpboot/grub', 'tftpboot/menu.lst'])
    for (const name of safeList(path.join(site.dir, folder)))
      files.set(`${folder}/${name}`, readFileSync(path.join(site.dir, folder, name)));
  try {
    files.set('api-token', readFileSync(path.join(site.dir, 'api-token')));
  } catch {
    // none
  }
  return files;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => !n.startsWith('.'));
  } catch {
    return [];
  }
}
