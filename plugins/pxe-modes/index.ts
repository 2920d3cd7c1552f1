import { Counter } from 'prom-client';
import { Type } from '@sinclair/typebox';
import { definePlugin } from 'ogserve';
import { Inventory } from '../inventory';
import { replicateBootFiles } from './replication';
import { modeRoutes } from './routes';
import { serverAddress } from './server-address';
import { SavedClientFiles } from './saved-clients';
import { BootFiles, UnknownModeError } from './service';
import { logSetup } from './setup-log';
import { Templates } from './templates';

export { BootFiles, UnknownModeError } from './service';

export default definePlugin({
  name: 'pxe-modes',
  requires: ['inventory'],
  config: Type.Object(
    {
      /** Legacy-firmware (grub4dos) per-client files. */
      bios_dir: Type.String({ default: 'tftpboot/menu.lst', path: true }),
      /** UEFI (GRUB) per-client files. */
      uefi_dir: Type.String({ default: 'tftpboot/grub', path: true }),
      /** Holds bios/ and uefi/ template sets; bundled ones unless a site file sets it. */
      templates_dir: Type.String({ default: 'templates/pxe', path: 'install' }),
      /** Address put in boot parameters; '' = rest.ip unless 0.0.0.0, else the first non-loopback IPv4. */
      server_ip: Type.Union([Type.String({ format: 'ipv4' }), Type.Literal('')], {
        default: '',
        expected: 'an IPv4 address, or empty for the automatic choice',
      }),
      /** LANG passed to the live image; '' = this process's LANG, as the reference. */
      lang: Type.String({ default: '', maxLength: 64 }),
      /** Screen mode: digits give `vga=<n>`, other values `video=<value>`; '' = vga=788. */
      vga: Type.String({ default: '', maxLength: 64 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const { config } = ctx;
    const server = serverAddress(config.server_ip, ctx.settings.rest.ip);
    const templates = new Templates(config.templates_dir);
    const filesWritten = new Counter({
      name: 'ogserve_boot_files_written_total',
      help: 'Boot files (BIOS and UEFI) written',
      registers: [ctx.metrics],
    });
    const bootFiles = new BootFiles(
      {
        biosDir: config.bios_dir,
        uefiDir: config.uefi_dir,
        serverIp: server.address,
        lang: config.lang || process.env.LANG || '',
        vga: config.vga,
      },
      templates,
      inventory,
      ctx.log,
      (files) => filesWritten.inc(files),
    );
    ctx.provide(BootFiles, bootFiles);
    replicateBootFiles(ctx.cluster, bootFiles, ctx.log);
    ctx.onStart(async () => {
      await logSetup(ctx.log, server, templates, config);
      // A kill between a change's files and its record (POST /mode, an import, a delete)
      // leaves files the records do not name: put them right before anything is served.
      // A folder that cannot be read is logged; the rest of the service still starts.
      await bootFiles
        .reconcile()
        .catch((error: Error) => ctx.log.error({ err: error }, `boot files not checked against the records: ${error.message}`));
    });
    modeRoutes(ctx, bootFiles, inventory);

    // A client saved with a mode that has no template would be left without boot files.
    ctx.events.hook('client.check', async ({ boot }) => {
      if (boot !== undefined && !(await bootFiles.modes()).includes(boot)) throw new UnknownModeError(boot, 'boot');
    });
    // Under the lock of POST /mode: a save racing it must not leave the other mode's files.
    // A batch (a cascade, a delete of several clients) is one sweep of the folders, which
    // also takes whatever an earlier crash left.
    ctx.events.on('clients.removed', (clients) =>
      bootFiles.exclusive(async () => {
        if (clients.length === 1) await bootFiles.deleteFor(clients[0]!);
        else await bootFiles.deleteAll(clients);
      }),
    );
    const savedClients = new SavedClientFiles(bootFiles, inventory);
    ctx.events.on('client.saved', (saved) => savedClients.write(saved.id), 'write the boot files');
  },
});
