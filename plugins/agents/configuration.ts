import type { DiskEntry } from '../inventory';

/**
 * The "configuration" answer agents send to GET /refresh and POST /setup, read into disk
 * entries for the inventory. Agents report sizes in KiB as decimal strings; the API speaks
 * bytes, so sizes are converted here with BigInt (nothing beyond 2^53 is rounded).
 */

export class AnswerError extends Error {
  override name = 'AnswerError';
}

export type Configuration =
  /** A Linux or Windows agent: only its kind (LNX or WIN), nothing stored. */
  { kind: 'os'; state: 'LNX' | 'WIN'; speed?: number } | { kind: 'disks'; entries: DiskEntry[]; serialNumber?: string; speed?: number };

/** Far above any real machine; bounds the work one answer can cause. */
const maxEntries = 1024;

export function readConfiguration(body: unknown): Configuration {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AnswerError('the answer is not a JSON object');
  const answer = body as Record<string, unknown>;
  const speed = readSpeed(answer.link);
  if (answer.status !== undefined) {
    if (typeof answer.status !== 'string') throw new AnswerError("'status' is not a string");
    // Prefix compare, as the reference: "LINUX" and "WIN" (and their longer variants).
    if (answer.status.startsWith('LINUX')) return { kind: 'os', state: 'LNX', speed };
    if (answer.status.startsWith('WIN')) return { kind: 'os', state: 'WIN', speed };
    throw new AnswerError(`unknown agent status '${answer.status.slice(0, 40)}'`);
  }
  // `{}` (or any answer naming neither) says nothing about the disks: storing it would erase
  // the client's known partitions. A live agent with no disk sends empty lists.
  if (answer.disk_setup === undefined && answer.partition_setup === undefined)
    throw new AnswerError("the answer has neither 'status' nor 'disk_setup'/'partition_setup'");
  if (answer.serial_number !== undefined && typeof answer.serial_number !== 'string')
    throw new AnswerError("'serial_number' is not a string");
  const disks = listOf(answer.disk_setup, 'disk_setup');
  const partitions = listOf(answer.partition_setup, 'partition_setup');
  if (disks.length + partitions.length > maxEntries) throw new AnswerError(`more than ${maxEntries} disk and partition entries`);
  const entries = [...disks, ...partitions].map((entry, i) =>
    readEntry(entry, i < disks.length ? `disk_setup[${i}]` : `partition_setup[${i - disks.length}]`),
  );
  const seen = new Set<string>();
  for (const e of entries) {
    const key = `${e.disk}:${e.partition}`;
    if (seen.has(key)) throw new AnswerError(`disk ${e.disk} partition ${e.partition} is reported twice`);
    seen.add(key);
  }
  return { kind: 'disks', entries, serialNumber: (answer.serial_number as string | undefined) || undefined, speed };
}

function readSpeed(link: unknown): number | undefined {
  // The reference stores `link` only when non-zero.
  return typeof link === 'number' && Number.isInteger(link) && link > 0 && link <= 0xffffffff ? link : undefined;
}

function listOf(value: unknown, name: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new AnswerError(`'${name}' is not an array`);
  return value;
}

function readEntry(value: unknown, where: string): DiskEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AnswerError(`${where} is not an object`);
  const e = value as Record<string, unknown>;
  const disk = Number(decimal(e.disk, `${where}.disk`));
  const partition = Number(decimal(e.partition, `${where}.partition`));
  if (disk < 1 || disk > 0xffff || partition > 0xffff) throw new AnswerError(`${where}: disk or partition number out of range`);
  const size = decimal(e.size, `${where}.size`) * 1024n;
  const code = hexCode(e.code, `${where}.code`);
  const filesystem = text(e.filesystem, `${where}.filesystem`, 32);
  const os = text(e.os, `${where}.os`, 128);
  const diskType = e.disk_type === undefined ? undefined : text(e.disk_type, `${where}.disk_type`, 32);
  // A disk row (partition 0) reports used_size "0"; its free space is not known, so both
  // stay 0. A live agent reports a partition's used_size as a percentage of its size.
  const usedSize = partition === 0 ? 0n : usedBytes(size, e.used_size, `${where}.used_size`);
  const freeSize = partition === 0 ? 0n : size - usedSize;
  return { disk, partition, diskType, code, size, usedSize, freeSize, filesystem, os };
}

/** A non-negative integer sent as a decimal string (or, by newer agents, a JSON integer). */
function decimal(value: unknown, where: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) {
    const n = BigInt(value);
    if (n < 2n ** 63n / 1024n) return n;
  }
  throw new AnswerError(`${where} is not a non-negative integer (${JSON.stringify(value)?.slice(0, 40)})`);
}

/** The partition type: lower-case hex without 0x, read as hex as the reference does. */
function hexCode(value: unknown, where: string): number {
  const textValue = typeof value === 'number' && Number.isInteger(value) && value >= 0 ? String(value) : value;
  if (typeof textValue === 'string' && /^[0-9a-fA-F]{1,6}$/.test(textValue)) return Number.parseInt(textValue, 16);
  throw new AnswerError(`${where} is not a hex partition code (${JSON.stringify(value)?.slice(0, 40)})`);
}

function text(value: unknown, where: string, maxLength: number): string {
  if (typeof value !== 'string') throw new AnswerError(`${where} is not a string`);
  return value.slice(0, maxLength);
}

/** `size * percent / 100` in integer arithmetic; the percentage may carry decimals. */
function usedBytes(size: bigint, value: unknown, where: string): bigint {
  const raw = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  const match = typeof raw === 'string' ? /^([0-9]{1,3})(?:\.([0-9]{1,6}))?$/.exec(raw) : null;
  if (!match) throw new AnswerError(`${where} is not a percentage (${JSON.stringify(value)?.slice(0, 40)})`);
  const fraction = match[2] ?? '';
  const scale = 10n ** BigInt(fraction.length);
  const percent = BigInt(match[1]!) * scale + BigInt(fraction || '0');
  if (percent > 100n * scale) throw new AnswerError(`${where} is above 100%`);
  return (size * percent) / (100n * scale);
}
