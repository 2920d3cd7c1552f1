import { createHash } from 'node:crypto';
import { type EntitySchema, type RequiredEntityData, UniqueConstraintViolationException } from '@mikro-orm/core';
import { type Database, execute } from 'ogserve';
import { HardwareProfileEntity, type Profile, SoftwareProfileEntity } from './entities/profile';

/**
 * What identifies a profile: the SHA-256 of its items sorted, one per line (packages; or
 * hardware components as `type=description`). An importer that brings a site's profiles
 * keys them the same way, so that agents' later reports find them.
 */
export function profileFingerprint(items: string[]): string {
  return createHash('sha256')
    .update([...items].sort().join('\n'))
    .digest('hex');
}

/**
 * The id of the profile of a set of items (packages, hardware components), created on first
 * sight. The reference compares sorted id lists, so order does not matter and a repeated
 * line counts once per time it appears; so does this, with the text in place of the ids.
 * Looked up outside the caller's transaction, in a unit of work of its own (on SQLite the
 * caller's would hold the one connection): rows are immutable and keyed by their set,
 * so a row made for a report whose storing later fails is only an unused profile.
 */
async function profileId<P extends Profile>(
  db: Database,
  entity: EntitySchema<P>,
  items: string[],
  row: (fingerprint: string) => RequiredEntityData<P>,
): Promise<number> {
  const fingerprint = profileFingerprint(items);
  const em = db.fork();
  const find = async () =>
    (await execute<{ id: number }>(em, `select id from ${entity.meta.tableName} where fingerprint = ?`, [fingerprint]))[0]?.id;
  const found = await find();
  if (found !== undefined) return Number(found);
  try {
    return (await em.insert<P>(entity, row(fingerprint))) as number;
  } catch (error) {
    // Another report of the same set inserted it meanwhile: use that row.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
  }
  const raced = await find();
  if (raced === undefined) throw new Error(`the ${entity.meta.className} of fingerprint ${fingerprint} was neither inserted nor found`);
  return Number(raced);
}

/**
 * A partition's software profile: the packages of the report (its lines after the first,
 * the operating system); 0 for a report with no line at all.
 */
export function softwareProfileId(db: Database, lines: string[]): Promise<number> {
  if (lines.length === 0) return Promise.resolve(0);
  return profileId(db, SoftwareProfileEntity, lines.slice(1), (fingerprint) => ({ fingerprint, os: lines[0]! }));
}

/** A client's hardware profile: its components as `type=description`; 0 for none. */
export function hardwareProfileId(db: Database, items: { type: string; description: string }[]): Promise<number> {
  if (items.length === 0) return Promise.resolve(0);
  return profileId(
    db,
    HardwareProfileEntity,
    items.map((i) => `${i.type}=${i.description}`),
    (fingerprint) => ({ fingerprint }),
  );
}
