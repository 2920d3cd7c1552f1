/**
 * The agent's answer to POST /image/create: the reference's eleven keys (disk, partition,
 * code, id, name, repository, software, clonator, compressor, filesystem, datasize) plus
 * the newer agent's size, perms, lastupdate and checksum (agent-extensions.md). Anything
 * that does not fit makes the command fail and nothing is stored.
 */

export class ImageAnswerError extends Error {
  override name = 'ImageAnswerError';
}

export interface ImageAnswer {
  name: string;
  repository?: string;
  disk: number;
  partition: number;
  code: number;
  datasize: bigint;
  size?: bigint;
  /** File mode bits, e.g. 420 (0o644). */
  perms?: number;
  lastupdate?: bigint;
  checksum?: string;
  clonator: string;
  compressor: string;
  filesystem: string;
  /** The imaged partition's software list (OS name first), when the agent sent one. */
  software?: string;
}

const maxBigint = 2n ** 63n - 1n;

export function readImageAnswer(body: unknown): ImageAnswer {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ImageAnswerError('the answer is not a JSON object');
  const a = body as Record<string, unknown>;
  if (typeof a.name !== 'string' || a.name === '') throw new ImageAnswerError("'name' is missing or not a string");
  const datasize = integer(a.datasize, 'datasize');
  // As the reference: a zero datasize means nothing was cloned.
  if (datasize === 0n) throw new ImageAnswerError("'datasize' is zero");
  const perms = a.perms === undefined ? undefined : Number(integer(a.perms, 'perms'));
  if (perms !== undefined && perms > 0o7777) throw new ImageAnswerError("'perms' is not a file mode");
  if (a.checksum !== undefined && (typeof a.checksum !== 'string' || !/^[0-9a-fA-F]{0,128}$/.test(a.checksum))) {
    throw new ImageAnswerError("'checksum' is not a hexadecimal string");
  }
  if (a.repository !== undefined && typeof a.repository !== 'string') throw new ImageAnswerError("'repository' is not a string");
  return {
    name: a.name,
    repository: a.repository as string | undefined,
    disk: small(a.disk, 'disk'),
    partition: small(a.partition, 'partition'),
    code: small(a.code, 'code'),
    datasize,
    size: a.size === undefined ? undefined : integer(a.size, 'size'),
    perms,
    lastupdate: a.lastupdate === undefined ? undefined : integer(a.lastupdate, 'lastupdate'),
    checksum: (a.checksum as string | undefined)?.toLowerCase(),
    clonator: text(a.clonator),
    compressor: text(a.compressor),
    filesystem: text(a.filesystem),
    software: typeof a.software === 'string' ? a.software : undefined,
  };
}

/** The answer to POST /image/restore: the reference's `{disk, partition, image_id}`, echoed strings. */
export function readRestoreAnswer(body: unknown): { disk: number; partition: number; imageId: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ImageAnswerError('the answer is not a JSON object');
  const a = body as Record<string, unknown>;
  for (const key of ['disk', 'partition', 'image_id']) if (a[key] === undefined) throw new ImageAnswerError(`'${key}' is missing`);
  return { disk: small(a.disk, 'disk'), partition: small(a.partition, 'partition'), imageId: small(a.image_id, 'image_id') };
}

/**
 * A non-negative 64-bit integer: a JSON integer the parser kept exact, or a decimal string
 * (the only exact form past 2^53, since answers are parsed as plain JSON).
 */
function integer(value: unknown, key: string): bigint {
  let n: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) n = BigInt(value);
  else if (typeof value === 'string' && /^[0-9]{1,19}$/.test(value)) n = BigInt(value);
  if (n === undefined || n > maxBigint) {
    const why = typeof value === 'number' && Number.isInteger(value) ? ' (past 2^53 a size must be sent as a decimal string)' : '';
    throw new ImageAnswerError(`'${key}' is not a non-negative 64-bit integer${why}`);
  }
  return n;
}

/** Disk, partition and code as the agent echoes them: decimal strings (or integers); 0 when absent. */
function small(value: unknown, key: string): number {
  if (value === undefined) return 0;
  const n = integer(value, key);
  if (n > 0xffffffffn) throw new ImageAnswerError(`'${key}' is out of range`);
  return Number(n);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 64) : '';
}
