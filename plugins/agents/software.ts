import { execute, type Database } from '../../core/database';
import { AnswerError } from './configuration';
import { SoftwareItemEntity } from './entities/software';

/** Bounds the rows one answer can write (the reference reads 8096 lines). */
const maxLines = 20_000;

/**
 * `{"partition": "<n>", "software": "<os name>\n<package>\n..."}`. The agent does not echo
 * the disk; the caller knows it from the request.
 */
export function readSoftware(body: unknown): { partition: number; lines: string[] } {
  const answer = (typeof body === 'object' && body !== null ? body : {}) as { partition?: unknown; software?: unknown };
  if (typeof answer.software !== 'string') throw new AnswerError("the answer has no 'software' string");
  const partition = typeof answer.partition === 'string' && /^[0-9]{1,5}$/.test(answer.partition) ? Number(answer.partition) : answer.partition;
  if (typeof partition !== 'number' || !Number.isInteger(partition) || partition < 0 || partition > 0xffff) {
    throw new AnswerError("the answer's 'partition' is not a partition number");
  }
  const lines = answer.software
    .split('\n')
    .map((l) => l.replace(/\r$/, '').trim())
    .filter((l) => l !== '');
  if (lines.length > maxLines) throw new AnswerError(`more than ${maxLines} software lines`);
  return { partition, lines };
}

/** Replace the stored software list of one partition, in one transaction. */
export async function storeSoftware(db: Database, clientId: number, disk: number, partition: number, lines: string[]): Promise<void> {
  await db.transactional(async (em) => {
    await execute(em, 'delete from client_software where client_id = ? and disk = ? and part_number = ?', [clientId, disk, partition]);
    if (lines.length > 0) {
      await em.insertMany(SoftwareItemEntity, lines.map((name, position) => ({ client: clientId, disk, partition, position, name })) as never[]);
    }
  });
}

/** The packages of one partition, without the operating system line. */
export async function storedSoftware(db: Database, clientId: number, disk: number, partition: number): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    'select name from client_software where client_id = ? and disk = ? and part_number = ? and position > 0 order by position',
    [clientId, disk, partition],
  );
  return rows.map((r) => r.name);
}
