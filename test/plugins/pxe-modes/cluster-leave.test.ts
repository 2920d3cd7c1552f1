// PostgreSQL only: several instances on one database (the other passes skip this file).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { Inventory } from '../../../plugins/inventory';
import { BootFiles } from '../../../plugins/pxe-modes';
import { biosFileName } from '../../../plugins/pxe-modes/file-names';
import { startClusterSite } from '../../support/cluster-site';
import { eventually } from '../../support/fake-agent';
import { macFor } from '../../support/fixtures';
import { addresses } from '../../support/lab';
import { testEngine } from '../../support/test-db';

/**
 * POST /mode writes the files (and tells the other instances) before it stores the
 * records. An instance that dies in between leaves the others with files the records do
 * not name; they do not restart, so they put their folders right when it leaves.
 */

if (testEngine === 'postgresql') {
  test('when an instance leaves, the others put their boot files back in line with the records', async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    try {
      const [a, b] = site.servers as [(typeof site.servers)[0], (typeof site.servers)[0]];
      const file = path.join(b.dir, 'tftpboot', 'menu.lst', biosFileName(macFor(1)));
      await eventually(() => {
        try {
          return readFileSync(file, 'utf8').length > 0;
        } catch {
          return false;
        }
      }, 'b to have the boot file');
      const recorded = readFileSync(file, 'utf8');
      // What a's POST /mode had done when it died: files written and told, records not stored.
      const client = (await a.app.container.resolve(Inventory).clientByIp(site.ips[0]!))!;
      const bootFiles = a.app.container.resolve(BootFiles);
      await bootFiles.exclusive(() => bootFiles.writeMany([client], 'pxe'));
      await eventually(() => readFileSync(file, 'utf8') !== recorded, "b to repeat a's files");
      await site.stop(0);
      await eventually(() => readFileSync(file, 'utf8') === recorded, "b's file back to the mode its record names", 5000);
    } finally {
      await site.close();
    }
  });
}

test.run();
