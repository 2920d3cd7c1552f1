import type { Logger } from '../../core/log';
import type { ClientView, Inventory } from '../inventory';
import { type BootFiles, UnknownModeError } from './service';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The boot files of clients saved one at a time (POST /client/add, /client/update), written
 * together: saves that arrive while earlier ones are being written wait for the next
 * batch, written as one change (one sync of each boot folder for all of them) rather than
 * one change each. A lone save is written at once. Each save's promise settles when its own
 * files are in place, or with the failure of its mode's write.
 */
export class SavedClientFiles {
  private waiting = new Map<number, Waiter[]>();
  private draining = false;

  constructor(
    private readonly bootFiles: BootFiles,
    private readonly inventory: Pick<Inventory, 'clientById'>,
    private readonly log: Logger,
  ) {}

  /** Write the files of the client with this id as it is stored when its batch runs (none if it is gone by then). */
  write(clientId: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(clientId);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(clientId, [{ resolve, reject }]);
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.waiting.size > 0) {
      const batch = this.waiting;
      this.waiting = new Map();
      // Under the lock of POST /mode, and the records read inside it: a save racing a mode
      // change must not leave the other mode's files.
      // A failure before a mode's write (the record's read) fails every save of the batch
      // not settled yet; settling one twice does nothing.
      await this.bootFiles
        .exclusive(() => this.writeBatch(batch))
        .catch((error: unknown) => {
          for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
        });
    }
    this.draining = false;
  }

  private async writeBatch(batch: Map<number, Waiter[]>): Promise<void> {
    const byMode = new Map<string, { clients: ClientView[]; waiters: Waiter[] }>();
    const settled: Waiter[] = [];
    for (const [id, waiters] of batch) {
      const client = await this.inventory.clientById(id);
      if (!client) {
        settled.push(...waiters);
        continue;
      }
      const group = byMode.get(client.boot) ?? { clients: [], waiters: [] };
      group.clients.push(client);
      group.waiters.push(...waiters);
      byMode.set(client.boot, group);
    }
    for (const waiter of settled) waiter.resolve();
    for (const [mode, { clients, waiters }] of byMode) {
      try {
        await this.bootFiles.writeMany(clients, mode);
      } catch (error) {
        if (!(error instanceof UnknownModeError)) {
          for (const waiter of waiters) waiter.reject(error);
          continue;
        }
        for (const client of clients)
          this.log.warn({ ip: client.ip, boot: client.boot }, 'client boot mode has no template; boot files left unchanged');
      }
      for (const waiter of waiters) waiter.resolve();
    }
  }
}
