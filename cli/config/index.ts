import pino from 'pino';
import { App, type AppOptions } from '../../core/app';
import { prettyStream } from '../log-pretty';
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
  const { configFile, overrides, env, stateDir, logStream, ...app } = options;
  // A config error rejects, as a failed start does.
  return Promise.resolve().then(() => {
    const config = new Config(configFile, overrides, { env, stateDir });
    // Core writes JSON lines; `log.format: "pretty"` turns each into one a person reads in a terminal.
    const pretty = config.core.log.format === 'pretty';
    return App.create({ ...app, config, logStream: pretty ? prettyStream(logStream ?? pino.destination(1)) : logStream });
  });
}
