import type { EntityManager } from '@mikro-orm/core';
import { execute, insertInChunks, type Database } from 'ogserve';
import { profileFingerprint } from './profiles';

/** A hardware profile brought from another system, under the id it had there. */
export interface ImportedHardwareProfile {
  id: number;
  items: { type: string; description: string }[];
}

/** A software profile brought from another system: its operating system line and packages. */
export interface ImportedSoftwareProfile {
  id: number;
  os: string;
  packages: string[];
}

/** The last hardware and software reports of imported clients, as agents would have stored them. */
export interface ImportedReports {
  hardware: { clientId: number; items: { type: string; description: string }[] }[];
  /** A partition's lines: the operating system first, then the packages. */
  software: { clientId: number; disk: number; partition: number; lines: string[] }[];
}

/** Where each imported profile id went: the same id, or the stored profile with the same set. */
export interface ProfileIds {
  hardware: Map<number, number>;
  software: Map<number, number>;
}

/**
 * Store imported profiles keyed as agents key theirs (the fingerprint of the set), so that
 * an agent's next report finds them. A set already stored, or imported twice under two ids,
 * keeps one row; a profile keeps its id unless another profile holds it. Runs in the caller's
 * transaction; the answer says which id each imported one now has.
 */
export async function writeProfiles(
  db: Database,
  em: EntityManager,
  hardware: ImportedHardwareProfile[],
  software: ImportedSoftwareProfile[],
): Promise<ProfileIds> {
  const hardwareIds = await place(
    db,
    em,
    'HardwareProfile',
    hardware.map((p) => ({ id: p.id, fingerprint: profileFingerprint(p.items.map((i) => `${i.type}=${i.description}`)), extra: {} })),
  );
  const softwareIds = await place(
    db,
    em,
    'SoftwareProfile',
    software.map((p) => ({ id: p.id, fingerprint: profileFingerprint(p.packages), extra: { os: p.os } })),
  );
  return { hardware: hardwareIds, software: softwareIds };
}

async function place(
  db: Database,
  em: EntityManager,
  entityName: string,
  profiles: { id: number; fingerprint: string; extra: Record<string, string> }[],
): Promise<Map<number, number>> {
  const table = em.getMetadata().get(entityName).tableName;
  const stored = await execute<{ id: number; fingerprint: string }>(em, `select id, fingerprint from ${table}`);
  const byFingerprint = new Map(stored.map((row) => [row.fingerprint, Number(row.id)]));
  const takenIds = new Set(stored.map((row) => Number(row.id)));
  const ids = new Map<number, number>();
  const keepingId: object[] = [];
  const newId: typeof profiles = [];
  for (const profile of profiles) {
    const existing = byFingerprint.get(profile.fingerprint);
    if (existing !== undefined) {
      ids.set(profile.id, existing);
    } else if (!takenIds.has(profile.id)) {
      takenIds.add(profile.id);
      byFingerprint.set(profile.fingerprint, profile.id);
      ids.set(profile.id, profile.id);
      keepingId.push({ id: profile.id, fingerprint: profile.fingerprint, ...profile.extra });
    } else {
      newId.push(profile);
    }
  }
  await insertInChunks(em, entityName, keepingId);
  await db.restartIdSequences(em, [entityName]);
  // Ids another profile holds: these get the next free ones.
  for (const profile of newId) {
    const existing = byFingerprint.get(profile.fingerprint);
    if (existing !== undefined) {
      ids.set(profile.id, existing);
      continue;
    }
    const id = Number(await em.insert(entityName, { fingerprint: profile.fingerprint, ...profile.extra }));
    byFingerprint.set(profile.fingerprint, id);
    ids.set(profile.id, id);
  }
  return ids;
}

/** Store the imported clients' hardware components and partitions' software lists, in the caller's transaction. */
export async function writeReports(em: EntityManager, reports: ImportedReports): Promise<void> {
  await insertInChunks(
    em,
    'HardwareItem',
    reports.hardware.flatMap(({ clientId, items }) => items.map((item, position) => ({ client: clientId, ...item, position }))),
  );
  await insertInChunks(
    em,
    'SoftwareItem',
    reports.software.flatMap(({ clientId, disk, partition, lines }) =>
      lines.map((name, position) => ({ client: clientId, disk, partition, position, name })),
    ),
  );
}
