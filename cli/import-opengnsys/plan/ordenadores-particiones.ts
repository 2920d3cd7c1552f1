import { Type } from '@sinclair/typebox';
import { Number16 } from '../../../core/schema-types';
import type { DiskEntryRecord } from '../parts';
import type { LegacyPartition } from '../model';
import { refusalOf } from './body-check';
import type { Planning } from './context';

const table = 'ordenadores_particiones';
const columns = { disk: 'numdisk', partition: 'numpar' };
/** Disk and partition numbers, by the rule of every request that names one. */
const Numbers = Type.Object({ disk: Number16(), partition: Number16() });
/** ogserve keeps sizes in bytes in signed 64-bit columns. */
const maxBytes = 2n ** 63n - 1n;

/**
 * Each kept computer's disks and partitions, as its agent last reported them: sizes from
 * KiB to bytes, the used size from the reference's percentage (to 1 %; the next refresh
 * replaces it), and the software list of each partition whose profile is known.
 */
export function planPartitions(p: Planning): void {
  p.ledger.read(table, p.site.partitions.length);
  const disks = new Map<number, DiskEntryRecord[]>();
  for (const partition of p.site.partitions) {
    if (p.clients.present.has(partition.clientId)) {
      p.ledger.leftOut(table, 1, 'with their computer, which is already in ogserve');
      continue;
    }
    if (!p.clients.kept.has(partition.clientId)) {
      p.ledger.leftOut(table, 1, 'with their computer, which was refused');
      continue;
    }
    const row = `${table} (ordenadores ${partition.clientId}, disk ${partition.disk}, partition ${partition.partition})`;
    const entry = diskEntry(p, partition, row);
    if (entry === undefined) continue;
    p.ledger.imported(table);
    let entries = disks.get(partition.clientId);
    if (!entries) disks.set(partition.clientId, (entries = []));
    entries.push(entry);
    const profile = partition.softwareProfileId ? p.site.softwareProfiles.get(partition.softwareProfileId) : undefined;
    if (profile) {
      p.plan.software.push({
        clientId: partition.clientId,
        disk: partition.disk,
        partition: partition.partition,
        lines: [profile.os || partition.os, ...profile.packages],
      });
    }
  }
  p.plan.disks = [...disks].map(([clientId, entries]) => ({ clientId, entries }));
  countProfiles(p);
}

function diskEntry(p: Planning, partition: LegacyPartition, row: string): DiskEntryRecord | undefined {
  const size = partition.sizeKiB * 1024n;
  const reason =
    refusalOf(Numbers, { disk: partition.disk, partition: partition.partition }, columns, table) ??
    (size > maxBytes || size < 0n
      ? `its size, ${partition.sizeKiB} KiB, is not a byte count ogserve can hold (${table}.tamano)`
      : undefined);
  if (reason !== undefined) {
    p.ledger.refused(table, row, reason);
    return undefined;
  }
  let percent = partition.usedPercent;
  if (percent < 0 || percent > 100) {
    p.ledger.changed(table, row, `${percent} % in use is no percentage (${table}.uso): read as ${percent < 0 ? 0 : 100} %`);
    percent = percent < 0 ? 0 : 100;
  }
  const used = (size * BigInt(percent)) / 100n;
  let image = partition.imageId;
  const why = image ? p.images.whyNot(image) : undefined;
  if (why !== undefined) {
    p.ledger.changed(table, row, `${why}: the partition keeps no image`);
    image = 0;
  }
  return {
    disk: partition.disk,
    partition: partition.partition,
    diskType: partition.diskType ?? '',
    code: partition.code,
    size,
    usedSize: used,
    freeSize: size - used,
    filesystem: partition.filesystem,
    os: partition.os,
    image,
    software: partition.softwareProfileId,
  };
}

/** Software profiles are kept with each partition's list, and for the partitions and images that name them. */
function countProfiles(p: Planning): void {
  const profiles = p.site.softwareProfiles;
  const used = new Set([
    ...p.site.partitions.filter((x) => p.clients.kept.has(x.clientId)).map((x) => x.softwareProfileId),
    ...p.plan.images.map((image) => image.softwareId),
  ]);
  p.ledger.read('perfilessoft', profiles.size);
  for (const profile of profiles.values()) {
    if (!used.has(profile.id)) continue;
    p.ledger.imported('perfilessoft');
    p.plan.softwareProfiles.push({ id: profile.id, os: profile.os, packages: profile.packages });
  }
  p.ledger.leftOut('perfilessoft', profiles.size - p.plan.softwareProfiles.length, 'used by no imported partition or image');
}
