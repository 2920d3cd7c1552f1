import type { DestinationStream } from 'pino';
import { App } from '../../core/app';
import type { CoreSettings } from '../../core/config';
import { StartupError } from '../../core/errors';
import { Inventory } from '../../plugins/inventory';
import type { PlanRules } from './plan/context';

/** The ogserve an import goes into: its config, database and plugins, with no port opened. */
export interface Target {
  rules: PlanRules;
  /** Which database, without secrets: `sqlite /var/lib/ogserve/ogserve.sqlite`. */
  description: string;
  close(): Promise<void>;
}

/**
 * Load the target as `ogserve serve --config FILE` would, without starting it: plugins are
 * registered (so their checks on clients apply) but nothing listens and nothing runs.
 */
export async function openTarget(configFile: string | undefined, logStream: DestinationStream): Promise<Target> {
  const app = await App.create({ configFile, logStream });
  try {
    if (!app.plugins.some((plugin) => plugin.name === 'inventory')) {
      throw new StartupError('the inventory plugin is not enabled in the target config: there is nothing to import into');
    }
    const inventory = app.container.resolve(Inventory);
    return {
      rules: {
        checkClient: (fields) => inventory.checkClient(fields),
        scheduler: app.plugins.some((plugin) => plugin.name === 'scheduler'),
      },
      description: describeDatabase(app.settings.database),
      close: () => app.close(),
    };
  } catch (error) {
    await app.close();
    throw error;
  }
}

function describeDatabase(database: CoreSettings['database']): string {
  if (database.type === 'sqlite') return `sqlite ${database.path}`;
  return `${database.type} ${database.user ? `${database.user}@` : ''}${database.ip}${database.port ? `:${database.port}` : ''}/${database.name}`;
}
