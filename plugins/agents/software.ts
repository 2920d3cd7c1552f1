import { Database, execute, inject, injectable, PluginEventBus, type PluginEvents } from 'ogserve';
import { answerLines } from './answer-lines';
import { AnswerError } from './configuration';
import { Inventory } from '../inventory';
import { type SoftwareItem, SoftwareItemEntity } from './entities/software';
import { softwareProfileId } from './profiles';

/** Bounds the rows one answer can write (the reference reads 8096 lines). */
const maxLines = 20_000;

/**
 * `{"partition": "<n>", "software": "<os name>\n<package>\n..."}`. The agent does not echo
 * the disk; the caller knows it from the request.
 */
export function readSoftware(body: unknown): { partition: number; lines: string[] } {
  const answer = (typeof body === 'object' && body !== null ? body : {}) as { partition?: unknown; software?: unknown };
  if (typeof answer.software !== 'string') throw new AnswerError("the answer has no 'software' string");
  const partition =
    typeof answer.partition === 'string' && /^[0-9]{1,5}$/.test(answer.partition) ? Number(answer.partition) : answer.partition;
  if (typeof partition !== 'number' || !Number.isInteger(partition) || partition < 0 || partition > 0xffff) {
    throw new AnswerError("the answer's 'partition' is not a partition number");
  }
  return { partition, lines: softwareLines(answer.software) };
}

/** The agent's software text: the OS name, then one package per line. */
export function softwareLines(text: string): string[] {
  const lines: string[] = [];
  for (const line of answerLines(text)) {
    const name = line.trim();
    if (name === '') continue;
    if (lines.length === maxLines) throw new AnswerError(`more than ${maxLines} software lines`);
    lines.push(name);
  }
  return lines;
}

/**
 * The software lists the agents reported, per client partition, for plugins whose agent
 * answers carry one too (an image create answer lists the software of the imaged partition).
 */
@injectable()
export class SoftwareInventory {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Inventory) private readonly inventory: Inventory,
    @inject(PluginEventBus) private readonly events: PluginEvents,
  ) {}

  /**
   * Replace one partition's list with the agent's text and set its software profile;
   * throws AnswerError before writing when it is unusable.
   */
  async store(clientId: number, disk: number, partition: number, text: string): Promise<void> {
    const after = softwareLines(text);
    const before = await storeSoftware(this.db, this.inventory, clientId, disk, partition, after);
    const client = await this.inventory.clientById(clientId);
    if (client) await this.events.tell('client.software.reported', { client: client.ip, clientId, disk, partition, before, after });
  }

  /**
   * Every stored package line (the OS lines left out) that contains `text`, in any case, with
   * its client and partition: what a fleet report of one package reads.
   */
  async containing(text: string): Promise<{ clientId: number; disk: number; partition: number; name: string }[]> {
    const pattern = `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
    // SQLite's LIKE ignores the case of ASCII letters, PostgreSQL's ILIKE any case; MariaDB's
    // and MySQL's LIKE follows the column's collation, which may be binary: lower() it there.
    const match = { postgresql: 'name ilike ?', sqlite: 'name like ?' }[this.db.type as string] ?? 'lower(name) like ?';
    const rows = await this.db.query<{ client_id: number; disk: number; part_number: number; name: string }>(
      `select client_id, disk, part_number, name from client_software where position > 0 and ${match} escape '!'`,
      [pattern],
    );
    return rows.map((r) => ({ clientId: Number(r.client_id), disk: Number(r.disk), partition: Number(r.part_number), name: r.name }));
  }
}

/**
 * Replace the stored software list of one partition and set the partition's software
 * profile (the id shared by every partition with the same packages), in one transaction.
 * Resolves with the lines it replaced (the OS line first), for `client.software.reported`.
 */
export async function storeSoftware(
  db: Database,
  inventory: Inventory,
  clientId: number,
  disk: number,
  partition: number,
  lines: string[],
): Promise<string[]> {
  const profile = await softwareProfileId(db, lines);
  return db.transactional(async (em) => {
    await inventory.setPartitionSoftware(em, clientId, disk, partition, profile);
    const before = await execute<{ name: string }>(
      em,
      'select name from client_software where client_id = ? and disk = ? and part_number = ? order by position',
      [clientId, disk, partition],
    );
    await execute(em, 'delete from client_software where client_id = ? and disk = ? and part_number = ?', [clientId, disk, partition]);
    if (lines.length > 0) {
      await em.insertMany<SoftwareItem>(
        SoftwareItemEntity,
        lines.map((name, position) => ({ client: inventory.clientRef(em, clientId), disk, partition, position, name })),
      );
    }
    return before.map((row) => row.name);
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
