import type { PluginCluster, Logger } from 'ogserve';
import type { BootFileChange, BootFiles } from './service';

/**
 * Each instance keeps its own boot folders complete, so that whichever box answers TFTP
 * (the one holding the virtual address, say) serves every client's files: what one writes
 * or removes, the others write or remove too, from the clients as that one saw them. On
 * folders the instances share, the repeat writes the same bytes again, atomically.
 */
export function replicateBootFiles(
  cluster: Pick<PluginCluster, 'broadcast' | 'on' | 'onReconnect' | 'onLeave'>,
  bootFiles: BootFiles,
  log: Logger,
): void {
  // Put this instance's folders right against the records (temp files stay: another
  // instance may be writing in a folder shared with this one).
  const reconcile = (why: string) =>
    void bootFiles
      .reconcile({ tempFiles: false })
      .catch((error: Error) => log.error({ err: error }, `boot files not checked against the records after ${why}: ${error.message}`));
  // Changes told while the link to the others was down were lost.
  cluster.onReconnect(() => reconcile('a reconnection'));
  // An instance killed after telling its files but before storing the records (POST /mode
  // writes files first) left files here that the records do not name.
  cluster.onLeave((instance) => reconcile(`instance ${instance} left`));
  cluster.on<BootFileChange>(
    'pxe-modes.files',
    (change, from) =>
      void bootFiles
        .exclusive(() => bootFiles.repeat(change))
        .catch((error: unknown) =>
          log.error({ err: error, from }, `boot files changed on instance ${from} not repeated here: ${(error as Error).message}`),
        ),
  );
  bootFiles.onChange = (change) => cluster.broadcast('pxe-modes.files', change);
}
