/** Reads the size of each client's first partition of a file system from the tables (clients without one left out). */
export type PartitionSizeReader = (clientIds: number[], filesystem: string) => Promise<Map<number, bigint>>;

/**
 * The size of each client's first partition of a file system, kept in memory: GET /cache/list,
 * which consoles poll, would otherwise query the partitions of every client it lists. Kept
 * exact by the writers: a client's sizes are dropped when its disks are being stored and
 * again once they are (a read that raced the write is then not kept), and all of them when
 * the tables change some other way.
 */
export class PartitionSizes {
  /** By file system (upper case), by client id; null: the client has no such partition. */
  private readonly known = new Map<string, Map<number, bigint | null>>();
  /** The mark of each client's latest disk write: a read is kept only if no write marked its clients since it began. */
  private readonly marks = new Map<number, number>();
  private lastMark = 0;
  private generation = 0;

  constructor(private readonly read: PartitionSizeReader) {}

  async of(clientIds: number[], filesystem: string): Promise<Map<number, bigint>> {
    const fs = filesystem.toUpperCase();
    let known = this.known.get(fs);
    if (!known) this.known.set(fs, (known = new Map()));
    const out = new Map<number, bigint>();
    const missing: number[] = [];
    for (const id of clientIds) {
      const size = known.get(id);
      if (size === undefined) missing.push(id);
      else if (size !== null) out.set(id, size);
    }
    if (missing.length === 0) return out;
    const generation = this.generation;
    const marks = missing.map((id) => this.marks.get(id));
    const found = await this.read(missing, fs);
    const current = generation === this.generation;
    for (const [i, id] of missing.entries()) {
      const size = found.get(id);
      if (size !== undefined) out.set(id, size);
      if (current && this.marks.get(id) === marks[i]) this.known.get(fs)?.set(id, size ?? null);
    }
    return out;
  }

  /** These clients' disks are being written, were written, or the clients were added or removed. */
  changed(clientIds: Iterable<number>): void {
    for (const id of clientIds) {
      this.marks.set(id, ++this.lastMark);
      for (const known of this.known.values()) known.delete(id);
    }
  }

  /** The tables changed some other way (an import): read everything again. */
  clear(): void {
    this.generation++;
    this.known.clear();
    this.marks.clear();
  }
}
