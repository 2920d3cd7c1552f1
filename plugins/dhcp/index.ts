import { type CoreSettings, definePlugin, hostAddress } from 'ogserve';
import { Inventory } from '../inventory';
import { Backups } from './backups';
import { checkedPools } from './desired';
import { DhcpBackupEntity } from './entities/backup';
import './events';
import { KeaControl } from './kea-client';
import type { BootChoice } from './kea-config';
import { DhcpMetrics } from './metrics';
import type { PushDeps } from './push';
import { dhcpRoutes } from './routes';
import { DhcpConfig } from './schemas';
import { DhcpSync } from './sync';

/**
 * iPXE's boot file when `boot_files.ipxe` is empty: the boot plugin's script URL where that
 * plugin is on. Core has no optional dependency, so the URL is made here as the boot plugin
 * makes it by default (the REST listener's address and port); a site that sets
 * `boot.public_url` sets `dhcp.boot_files.ipxe` too.
 */
function ipxeFile(configured: string, bootOn: boolean, rest: CoreSettings['rest']): string {
  if (configured || !bootOn) return configured;
  return `${restUrl(rest)}/boot/ipxe?mac=\${mac}`;
}

/**
 * UEFI HTTP boot's first stage when `boot_files.http` is empty: the boot plugin's URL of
 * `snponly.efi` (it serves the first stages at /boot/files/) where that plugin is on, made
 * as `ipxeFile` makes its URL.
 */
function httpFile(configured: string, bootOn: boolean, rest: CoreSettings['rest']): string {
  if (configured || !bootOn) return configured;
  return `${restUrl(rest)}/boot/files/snponly.efi`;
}

function restUrl(rest: CoreSettings['rest']): string {
  const port = Number(rest.port);
  return `http://${hostAddress(rest.ip).address}${port === 80 ? '' : `:${port}`}`;
}

/**
 * Kea from the inventory: each client a host reservation in the subnet of its room's
 * network, boot file names by firmware as client classes, all marked as ogserve's in Kea's
 * user-context; what the site wrote itself is never changed. Changes go through the Control
 * Agent (config-get, config-test, config-set, config-write), debounced and batched, by one
 * instance of several; each configuration replaced is kept (POST /dhcp/restore).
 */
export default definePlugin({
  name: 'dhcp',
  requires: ['inventory'],
  schemaVersion: 1,
  entities: [DhcpBackupEntity],
  config: DhcpConfig,
  register(ctx) {
    const { config } = ctx;
    const inventory = ctx.use(Inventory);
    const bootOn = ctx.plugins.some((p) => p.name === 'boot');
    const boot: BootChoice = {
      bios: config.boot_files.bios,
      uefi: config.boot_files.uefi,
      ipxe: ipxeFile(config.boot_files.ipxe, bootOn, ctx.settings.rest),
      http: httpFile(config.boot_files.http, bootOn, ctx.settings.rest),
      nextServer: config.next_server,
    };
    const backups = new Backups(ctx.db, config.backups);
    const push: PushDeps = {
      kea: new KeaControl(config.control_agent),
      inventory,
      pools: checkedPools(config.pools),
      backups,
      boot,
      events: ctx.events,
      log: ctx.log,
    };
    const metrics = new DhcpMetrics(ctx.metrics);
    const sync = new DhcpSync(push, { debounceMs: config.debounce_ms, retryMaxMs: config.retry_max_ms }, metrics, ctx.log, ctx.events);

    // Any write that may move a reservation: clients, and rooms (netmask, router, DNS) and
    // what holds them. Another instance's writes arrive on the inventory's cluster topic.
    const changed = () => sync.changed();
    for (const event of ['inventory.created', 'inventory.updated', 'inventory.deleted'] as const)
      ctx.events.on(
        event,
        ({ kind }) => {
          if (kind !== 'repository' && kind !== 'server') changed();
        },
        'keep Kea in step',
      );
    ctx.events.on('client.saved', changed, 'keep Kea in step');
    ctx.events.on('client.removed', changed, 'keep Kea in step');
    ctx.cluster.on('inventory.changed', changed);
    sync.elect(ctx.cluster);
    ctx.onStop(() => sync.stop());

    dhcpRoutes(ctx, { push, sync, backups, url: config.control_agent, pushesHere: () => ctx.cluster.holds('dhcp-push') });
  },
});
