/**
 * Child process for crash tests: open the service's database as `node dist/cli/main.js`
 * would, then store an agent's disk report of `count` partitions of `size` bytes for one
 * client, the way the agents plugin does. Prints `storing` before and `stored` after.
 * Usage: node store-disks-child.js CONFIG CLIENT_ID COUNT SIZE
 */
import { Inventory, type DiskEntry } from '../../plugins/inventory';
import { createApp } from '../../cli/config';

async function main(): Promise<void> {
  const [configFile, clientId, count, size] = process.argv.slice(2);
  const app = await createApp({ configFile, logStream: { write: () => undefined } as never });
  const entries: DiskEntry[] = Array.from({ length: Number(count) }, (_, i) => ({
    disk: 1 + Math.floor(i / 100),
    partition: i % 100,
    code: 7,
    size: BigInt(size!),
    filesystem: 'EXT4',
    os: 'Linux',
  }));
  process.stdout.write('storing\n');
  await app.container.resolve(Inventory).storeDiskSetup(Number(clientId), entries);
  process.stdout.write('stored\n');
  await app.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
