import { App, type AppOptions } from '../../core/app';
import { type ConfigEnvironment, Config } from './site-config';

export {
  Config,
  type ConfigEnvironment,
  CoreSchema,
  type CoreSettings,
  databaseTypes,
  defaultConfigFile,
  packageRoot,
} from './site-config';

export interface ReadOptions extends ConfigEnvironment {
  /** A site config file merged over config/default.json. */
  configFile?: string;
  /** Values merged last (tests use this). */
  overrides?: Record<string, unknown>;
}

/** The app of a site whose configuration is read as ogserve reads it: the defaults, the file, the environment, the overrides. */
export function createApp(options: ReadOptions & Omit<AppOptions, 'config'>): Promise<App> {
  const { configFile, overrides, env, stateDir, ...app } = options;
  // A config error rejects, as a failed start does.
  return Promise.resolve().then(() => App.create({ ...app, config: new Config(configFile, overrides, { env, stateDir }) }));
}
