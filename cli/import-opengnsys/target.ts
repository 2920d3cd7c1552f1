import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DestinationStream } from 'pino';
import type { App } from '../../core/app';
import { Config, type CoreSettings } from '../config';
import { StartupError } from '../../core/errors';
import type { ImportParts } from '../../core/plugin';
import { Inventory } from '../../plugins/inventory';
import type { LegacySite } from './model';
import { enabledParts } from './parts';
import { type Held, nothingHeld, type PlanRules } from './plan/context';
import { holdsOgserve } from './target-database';
import { createApp } from '../config';

/** The ogserve an import goes into: its config, database and plugins, with no port opened. */
export interface Target {
  app: App;
  rules: PlanRules;
  /** Which database, without secrets: `sqlite /var/lib/ogserve/ogserve.sqlite`. */
  description: string;
  /** What the target holds, one `<count> <what>` per kind it has rows of; empty for an empty inventory. */
  contents: string[];
  /** Whether the target holds only the default repository a fresh inventory seeds (id 1, "Default"). */
  onlyDefaultRepository: boolean;
  /**
   * A dry run's target that holds no ogserve yet: it was left as it is (not created), and
   * the import is checked against an empty inventory in a scratch database instead.
   */
  untouched: boolean;
  /** What the target's enabled plugins give the import: a part a disabled plugin would give is absent. */
  parts: Partial<ImportParts> & Pick<ImportParts, 'inventory'>;
  has(plugin: string): boolean;
  /**
   * Make way for a site: when the target holds only the default repository a fresh
   * inventory seeds and the site has a repository 1, the site's replaces it (neither its id
   * nor its address is held any more).
   */
  yieldTo(site: LegacySite): void;
  close(): Promise<void>;
}

/** Where the target's config and data are, as `ogserve serve` takes them. */
export interface TargetOptions {
  /** `--state-dir`: where the defaults' relative data paths go (database, boot files, images). */
  stateDir?: string;
  /** Only checking (`--dry-run`): a database that does not hold an ogserve yet is not created. */
  dryRun?: boolean;
}

/**
 * Load the target as `ogserve serve --config FILE --state-dir DIR` would, without starting
 * it: plugins are registered (so their checks on clients apply) but nothing listens and
 * nothing runs.
 */
export async function openTarget(
  configFile: string | undefined,
  logStream: DestinationStream,
  options: TargetOptions = {},
): Promise<Target> {
  const { database } = new Config(configFile, {}, { stateDir: options.stateDir }).core;
  // Opened as serve opens it, a missing database would be created, tables and all.
  const scratch = options.dryRun && !(await holdsOgserve(database)) ? mkdtempSync(path.join(tmpdir(), 'ogserve-dry-run-')) : undefined;
  const removeScratch = () => scratch && rmSync(scratch, { recursive: true, force: true });
  const overrides = scratch ? { database: { type: 'sqlite', path: path.join(scratch, 'ogserve.sqlite') } } : {};
  let app: App;
  try {
    app = await createApp({ configFile, logStream, stateDir: options.stateDir, overrides });
  } catch (error) {
    removeScratch();
    throw error;
  }
  try {
    const enabled = enabledParts(app.plugins);
    if (!enabled.inventory) {
      throw new StartupError('the inventory plugin is not enabled in the target config: there is nothing to import into');
    }
    const parts = { ...enabled, inventory: enabled.inventory };
    const inventory = app.container.resolve(Inventory);
    // The importer's run is the owner of its unit of work: no caller hands it one.
    const em = app.database.fork();
    const stored = await parts.inventory.holdings(em);
    const images = parts.images ? await parts.images.holdings(em) : new Map<number, { name: string }>();
    const scheduler = await parts.scheduler?.holdings(em);
    const held = heldOf(stored, images);
    if (scheduler) {
      held.procedures = new Set(scheduler.procedures.keys());
      for (const [id, p] of scheduler.procedures) {
        held.keys.procedureNames.set(`${p.centerId}\u0000${p.name}`, `ogserve procedure ${id}`);
        held.rows.procedures.set(id, {
          identity: `${p.centerId}\u0000${p.name}`,
          shown: `ogserve procedure ${id} (${p.name}, center ${p.centerId})`,
        });
      }
      held.tasks = scheduler.tasks;
      held.schedules = scheduler.schedules;
    }
    const counts: [number, string][] = [
      [stored.centers.size, 'centers'],
      [stored.roomFolders.size, 'room folders'],
      [stored.rooms.size, 'rooms'],
      [stored.computerFolders.size, 'computer folders'],
      [stored.clients.size, 'clients'],
      [stored.servers.size, 'servers'],
      [stored.repositories.size, 'repositories'],
      [images.size, 'images'],
      [scheduler?.procedures.size ?? 0, 'procedures'],
      [scheduler?.tasks.size ?? 0, 'tasks'],
      [scheduler?.schedules.size ?? 0, 'schedules'],
    ];
    const contents = counts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
    const onlyDefaultRepository = contents.length === 1 && stored.repositories.size === 1 && stored.repositories.get(1)?.name === 'Default';
    return {
      app,
      rules: {
        checkClient: (fields) => inventory.checkClient(fields),
        scheduler: parts.scheduler ? parts.scheduler.steps(app.container.resolve(parts.scheduler.service)) : undefined,
        held,
      },
      description: describeDatabase(database),
      contents: onlyDefaultRepository ? [] : contents,
      onlyDefaultRepository,
      untouched: scratch !== undefined,
      parts,
      has: (name) => app.plugins.some((plugin) => plugin.name === name),
      yieldTo(site) {
        if (!onlyDefaultRepository || !site.repositories.some((r) => r.id === 1)) return;
        held.repositories.delete(1);
        for (const [ip, holder] of held.keys.repositoryAddresses)
          if (holder === 'ogserve repository 1') held.keys.repositoryAddresses.delete(ip);
      },
      close: async () => {
        await app.close();
        removeScratch();
      },
    };
  } catch (error) {
    await app.close();
    removeScratch();
    throw error;
  }
}

/** The planner's view of what the inventory and images hold: ids, and the keys each row holds. */
function heldOf(stored: Awaited<ReturnType<ImportParts['inventory']['holdings']>>, images: Map<number, { name: string }>): Held {
  const held = nothingHeld();
  const { keys } = held;
  held.servers = new Set(stored.servers.keys());
  for (const [id, s] of stored.servers) {
    keys.serverIps.set(s.ip, `ogserve server ${id}`);
    held.rows.servers.set(id, { identity: s.ip, shown: `ogserve server ${id} (${s.ip})` });
  }
  held.repositories = new Set(stored.repositories.keys());
  for (const [id, r] of stored.repositories) for (const ip of r.addresses) keys.repositoryAddresses.set(ip, `ogserve repository ${id}`);
  held.centers = new Set(stored.centers.keys());
  for (const [id, c] of stored.centers) {
    keys.centerNames.set(c.name, `ogserve center ${id}`);
    held.rows.centers.set(id, { identity: c.name, shown: `ogserve center ${id} (${c.name})` });
  }
  held.roomFolders = stored.roomFolders;
  held.rooms = new Set(stored.rooms.keys());
  for (const [id, r] of stored.rooms) {
    keys.roomNames.set(`${r.centerId}\u0000${r.name}`, `ogserve room ${id}`);
    held.rows.rooms.set(id, { identity: `${r.centerId}\u0000${r.name}`, shown: `ogserve room ${id} (${r.name}, center ${r.centerId})` });
  }
  held.computerFolders = stored.computerFolders;
  held.clients = new Set(stored.clients.keys());
  for (const [id, c] of stored.clients) {
    held.clientAddresses.set(id, c.ip);
    keys.clientIps.set(c.ip, `ogserve client ${id}`);
    keys.clientMacs.set(c.mac, `ogserve client ${id}`);
    held.rows.clients.set(id, {
      identity: c.mac,
      shown: `ogserve client ${id} (${[c.name, c.ip].filter(Boolean).join(', ')}, mac ${c.mac})`,
    });
  }
  held.images = new Set(images.keys());
  for (const [id, i] of images) {
    keys.imageNames.set(i.name, `ogserve image ${id}`);
    held.rows.images.set(id, { identity: i.name, shown: `ogserve image ${id} (${i.name})` });
  }
  return held;
}

function describeDatabase(database: CoreSettings['database']): string {
  if (database.type === 'sqlite') return `sqlite ${database.path}`;
  const port = database.port ? `:${database.port}` : '';
  return `${database.type} ${database.user ? `${database.user}@` : ''}${database.ip}${port}/${database.name}`;
}
