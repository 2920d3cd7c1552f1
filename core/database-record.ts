import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CoreSettings } from './config-schema';
import type { Logger } from './log';

/**
 * Which database server database a state directory runs on, kept in it as database.json.
 * Nothing recorded means the state directory's first start on a database server: then a
 * missing database is created. Once recorded, a missing database is a mistake to report
 * (a mistyped name, the wrong server), never one to answer with a new, empty database.
 */
export interface DatabaseRecord {
  type: string;
  ip: string;
  port: number;
  name: string;
}

const fileName = 'database.json';

export const defaultDatabasePorts: Record<string, number> = { mariadb: 3306, mysql: 3306, postgresql: 5432 };

export function recordOf(settings: CoreSettings['database']): DatabaseRecord {
  return { type: settings.type, ip: settings.ip, port: settings.port ?? defaultDatabasePorts[settings.type]!, name: settings.name };
}

/**
 * What the state directory recorded; undefined when it never ran on a database server. A
 * record that cannot be read still counts as one: the directory has run before.
 */
export function readDatabaseRecord(stateDir: string): DatabaseRecord | Record<string, never> | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(stateDir, fileName), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return {};
  }
  try {
    return JSON.parse(text) as DatabaseRecord;
  } catch {
    return {};
  }
}

/** Record the database this start opened, when it is not the one recorded already. */
export function writeDatabaseRecord(stateDir: string, record: DatabaseRecord, log: Logger): void {
  const text = `${JSON.stringify(record)}\n`;
  const file = path.join(stateDir, fileName);
  try {
    if (readFileSync(file, 'utf8') === text) return;
  } catch {
    // Not there yet, or unreadable: write it.
  }
  try {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  } catch (error) {
    log.warn(
      { err: error, file },
      `cannot record the database in ${file} (${(error as Error).message}): a later start will again create a missing database`,
    );
  }
}

/** `'ogserve' on 10.0.0.2:5432`. */
export function describeRecord(record: DatabaseRecord): string {
  return `'${record.name}' on ${record.ip}:${record.port}`;
}
