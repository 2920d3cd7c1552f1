import type { Logger, PluginEvents } from 'ogserve';
import type { Inventory } from '../inventory';
import type { Backups } from './backups';
import { type DesiredSubnet, type PoolSetting, desiredSubnets } from './desired';
import { type KeaConfig, type KeaControl, KeaRefused, KeaResult } from './kea-client';
import { type BootChoice, hasLeaseCommands, mergedConfig, ownedPart, readdressed, summary } from './kea-config';

export interface PushDeps {
  kea: KeaControl;
  inventory: Pick<Inventory, 'allClients' | 'rooms'>;
  /** `dhcp.pools`, checked. */
  pools: readonly PoolSetting[];
  backups: Backups;
  boot: BootChoice;
  events: PluginEvents;
  log: Logger;
}

export interface Pushed {
  changed: boolean;
  backup?: number;
  leasesDeleted: string[];
  /** config-write's refusal: Kea runs the change, its file does not have it. */
  writeError?: string;
}

/** The inventory as Kea subnets now. */
export async function desiredNow(deps: Pick<PushDeps, 'inventory' | 'pools'>): Promise<DesiredSubnet[]> {
  return desiredSubnets(await deps.inventory.allClients(), deps.pools, deps.pools.length > 0 ? await deps.inventory.rooms() : []);
}

/**
 * One push: config-get, ogserve's part replaced by the inventory's, and if that changes
 * anything: config-test, the replaced configuration kept, config-set, config-write, and the
 * leases of re-addressed PCs deleted where the lease_cmds hook is loaded. Throws
 * KeaUnreachable (try again later) or KeaRefused (reported; the same would be refused again).
 */
export async function pushInventory(deps: PushDeps): Promise<Pushed> {
  const current = await deps.kea.configGet();
  const desired = await desiredNow(deps);
  const next = mergedConfig(current, desired, deps.boot);
  if (ownedPart(current) === ownedPart(next)) return { changed: false, leasesDeleted: [] };
  const stale = hasLeaseCommands(current) ? readdressed(current, desired) : [];
  const done = await replaceConfig(deps, current, next, 'sync');
  const leasesDeleted: string[] = [];
  for (const ip of stale) {
    const answer = await deps.kea.command('lease4-del', { 'ip-address': ip });
    if (answer.result === KeaResult.success) leasesDeleted.push(ip);
    else if (answer.result !== KeaResult.empty) deps.log.warn({ ip, answer: answer.text }, `lease4-del ${ip}: ${answer.text}`);
  }
  await emitDone(deps, next, 'sync', done.backup, leasesDeleted);
  return { ...done, changed: true, leasesDeleted };
}

/** config-test, keep `current` as a backup, config-set, config-write. */
export async function replaceConfig(
  deps: Pick<PushDeps, 'kea' | 'backups' | 'log'>,
  current: KeaConfig,
  next: KeaConfig,
  reason: 'sync' | 'restore',
): Promise<{ backup: number; writeError?: string }> {
  const tested = await deps.kea.command('config-test', { Dhcp4: next });
  if (tested.result !== KeaResult.success) throw new KeaRefused(`config-test: ${tested.text ?? `result ${tested.result}`}`);
  const backup = await deps.backups.save(current, reason, new Date());
  const set = await deps.kea.command('config-set', { Dhcp4: next });
  if (set.result !== KeaResult.success) throw new KeaRefused(`config-set: ${set.text ?? `result ${set.result}`}`);
  const writeError = await deps.kea.configWrite();
  if (writeError) deps.log.warn({ err: writeError }, `Kea runs the new configuration but did not write it to its file: ${writeError}`);
  return writeError ? { backup, writeError } : { backup };
}

export async function emitDone(
  deps: Pick<PushDeps, 'events'>,
  config: KeaConfig,
  reason: 'sync' | 'restore',
  backup: number,
  leasesDeleted: string[],
): Promise<void> {
  await deps.events.emit('dhcp.sync.done', {
    at: new Date().toISOString(),
    reason,
    ...summary(config),
    backup,
    leases_deleted: leasesDeleted,
  });
}
