import { inject, injectable } from 'ogserve';
import { type ClientView, Inventory } from '../inventory';
import { BootFiles } from './service';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The boot files of clients saved one at a time (POST /client/add, /client/update), written
 * together: saves that arrive while earlier ones are being written wait for the next
 * batch, written as one change (one sync of each boot folder for all of them) rather than
 * one change each. A lone save is written at once. Each save's promise settles once its batch
 * is written, or with the batch's failure (a mode without a template is logged, not a failure).
 */
@injectable()
export class SavedClientFiles {
  private waiting = new Map<number, Waiter[]>();
  private draining = false;

  constructor(
    @inject(BootFiles) private readonly bootFiles: BootFiles,
    @inject(Inventory) private readonly inventory: Pick<Inventory, 'clientById'>,
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
      // A failure fails every save of the batch.
      await this.bootFiles
        .exclusive(() => this.writeBatch(batch))
        .catch((error: unknown) => {
          for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
        });
    }
    this.draining = false;
  }

  /** The batch's clients as stored now (a client gone meanwhile has nothing to write), each by its own mode. */
  private async writeBatch(batch: Map<number, Waiter[]>): Promise<void> {
    const clients: ClientView[] = [];
    for (const id of batch.keys()) {
      const client = await this.inventory.clientById(id);
      if (client) clients.push(client);
    }
    await this.bootFiles.writeOwnModes(clients);
    for (const waiters of batch.values()) for (const waiter of waiters) waiter.resolve();
  }
}
