import type { PluginCluster } from '../../core/cluster';
import type { Logger } from '../../core/log';
import type { BootFileChange, BootFiles } from './service';

/**
 * Each instance keeps its own boot folders complete, so that whichever box answers TFTP
 * (the one holding the virtual address, say) serves every client's files: what one writes
 * or removes, the others write or remove too, from the clients as that one saw them. On
 * folders the instances share, the repeat writes the same bytes again, atomically.
 */
export function replicateBootFiles(
  cluster: Pick<PluginCluster, 'shared' | 'send' | 'on' | 'onReconnect'>,
  bootFiles: BootFiles,
  log: Logger,
): void {
  // Changes told while the link to the others was down were lost: put this instance's folders
  // right against the records (temp files stay: another instance may be writing in a folder
  // shared with this one).
  cluster.onReconnect(
    () =>
      void bootFiles
        .reconcile({ tempFiles: false })
        .catch((error: Error) =>
          log.error({ err: error }, `boot files not checked against the records after a reconnection: ${error.message}`),
        ),
  );
  cluster.on<BootFileChange>(
    'pxe-modes.files',
    (change, from) =>
      void bootFiles
        .exclusive(() => bootFiles.repeat(change))
        .catch((error: unknown) =>
          log.error({ err: error, from }, `boot files changed on instance ${from} not repeated here: ${(error as Error).message}`),
        ),
  );
  bootFiles.onChange = (change) => {
    if (!cluster.shared) return;
    void cluster
      .send('*', 'pxe-modes.files', change)
      .catch((error: Error) => log.warn({ err: error }, `the other instances were not told of boot files changed here: ${error.message}`));
  };
}
