import { definePlugin } from 'ogserve';
import { BootFolders, PerAddressLimit, allowList, stageOfFile, type BootStage } from '../boot';
import { Inventory } from '../inventory';
import { KernelSignatures } from '../live';
import { BootFiles, macOfBootFile } from '../pxe-modes';
import { SecureBootClientEntity, SecureBootRoomEntity } from './entities/secure-boot';
import { TftpFiles } from './files';
import { grubConfig } from './grub-config';
import { SecureBootSettings, secureLoader, uefiLoaders } from './secure-boot';
import { secureBootRoutes } from './secure-boot-routes';
import { TftpMetrics } from './metrics';
import { TftpConfig } from './schemas';
import { type Refusal, TftpServer, type TransferEnd } from './server';
import { Sources } from './sources';

/** Where the TFTP server listens, once started (tests, doctor). */
export class TftpListener {
  address = '';
  port = 0;
}

/** Every shared file together stays under this many times the largest one. */
const sharedBudgetFactor = 4;

/**
 * TFTP, read only, for the first stages of a network boot and for GRUB: the per-PC boot
 * files pxe-modes writes, the boot plugin's folders; each transfer a stage of the PC's boot
 * timeline. Off by default.
 */
export default definePlugin({
  name: 'tftp',
  requires: ['inventory', 'pxe-modes', 'live', 'boot'],
  config: TftpConfig,
  schemaVersion: 1,
  entities: [SecureBootRoomEntity, SecureBootClientEntity],
  register(ctx) {
    const { config } = ctx;
    const inventory = ctx.use(Inventory);
    const secureBoot = new SecureBootSettings(ctx.db, inventory, ctx.use(KernelSignatures), ctx.cluster, ctx.log);
    secureBootRoutes(ctx, secureBoot);
    const sources = new Sources(config.shared_file_max_bytes, config.shared_file_max_bytes * sharedBudgetFactor);
    // A Secure Boot PC asking for iPXE gets shim in its place: its firmware would refuse iPXE (unsigned).
    const substitute = async (file: string, address: string) =>
      uefiLoaders.has(file) && (await secureBoot.forAddress(address)) ? secureLoader : file;
    const files = new TftpFiles(ctx.use(BootFiles).folders, ctx.use(BootFolders).list, sources, [grubConfig], substitute);
    const allowed = allowList(config.allow, 'tftp.allow');
    const rate = new PerAddressLimit(config.requests_per_minute);
    // One line per address and minute: a flood is said once, not once per packet.
    const warned = new PerAddressLimit(1);

    async function announce(end: TransferEnd): Promise<void> {
      // A size probe (firmware asks tsize, then stops at the OACK) sent nothing: no stage.
      if (end.bytes === 0 && end.outcome !== 'done') return;
      const { stage, mac } = stageOf(end.served);
      const client = mac ? await inventory.clientByMac(mac) : await inventory.clientByIp(end.address);
      if (!client) return;
      void ctx.events.emit('boot.stage', {
        client: client.ip,
        stage,
        bytes: end.bytes,
        ms: end.ms,
        cut_short: end.outcome !== 'done',
      });
    }

    const listener = new TftpListener();
    ctx.provide(TftpListener, listener);
    let server: TftpServer | undefined;
    const metrics = new TftpMetrics(ctx.metrics, () => server?.active ?? 0);
    ctx.onStart(async () => {
      await secureBoot.load();
      server = new TftpServer(
        config,
        {
          allowed,
          overRate: (address) => rate.take(address) > 0,
          lookup: (file, address) => files.lookup(file, address),
          refused(reason: Refusal, address: string, file?: string) {
            metrics.refusedFor(reason);
            if ((reason === 'rate' || reason === 'busy') && warned.take(`${reason} ${address}`) === 0)
              ctx.log.warn({ client: address, reason }, `TFTP requests from ${address} dropped (${reason}) for the rest of the minute`);
            else if (reason !== 'rate' && reason !== 'busy') ctx.log.debug({ client: address, file, reason }, 'TFTP request refused');
          },
          started: () => undefined,
          ended(end) {
            metrics.ended(end);
            // As tftpd-hpa logs each request: one line per transfer.
            const { asked, served, address, outcome, bytes, ms, retransmits, message } = end;
            ctx.log.info(
              {
                client: address,
                file: served,
                ...(asked !== served ? { asked } : {}),
                outcome,
                bytes,
                ms,
                retransmits,
                ...(message ? { message } : {}),
              },
              `TFTP transfer of ${served} ${outcome}`,
            );
            announce(end).catch((error: Error) => ctx.log.warn({ err: error }, `boot stage not announced: ${error.message}`));
          },
        },
        ctx.log,
      );
      const listening = await ctx.listen(server.socket, {
        name: 'TFTP',
        ip: config.ip,
        port: Number(config.port),
        ipKey: 'tftp.ip',
        portKey: 'tftp.port',
        note: 'read only',
      });
      server.listening(config.ip);
      Object.assign(listener, listening);
      ctx.log.info({ ...listening, folders: files.where }, 'TFTP files served');
    });
    ctx.onStop(() => {
      server?.close();
      sources.clear();
    });
  },
});

/** The boot stage a file sent over TFTP is, and the MAC of the PC it is for when its name says. */
function stageOf(served: string): { stage: BootStage; mac?: string } {
  const [folder, name, ...rest] = served.split('/');
  if (rest.length === 0 && name !== undefined) {
    const mac = folder === 'menu.lst' ? macOfBootFile('bios', name) : folder === 'grub' ? macOfBootFile('uefi', name) : undefined;
    if (mac) return { stage: 'script', mac };
  }
  return { stage: stageOfFile(served) ?? 'loader' };
}
