import type { Static, TObject } from '@sinclair/typebox';
import type { CoreSettings } from './config-schema';

/** Where the service keeps what it writes (database, API key, boot files), and why there. */
export interface StateDirectory {
  dir: string;
  how: string;
}

/**
 * A site's configuration as core uses it. Reading it (files, `OGSERVE_*` variables, errors
 * by line) is the program's work, not core's: cli/config's `Config` is the one ogserve runs.
 */
export interface SiteConfig {
  /** The file it was read from, if any (the start log names it). */
  readonly file?: string;
  readonly core: CoreSettings;
  readonly stateDir: StateDirectory;
  /** The environment variables that set keys, for the start log. */
  readonly envVariables: readonly string[];
  /** The database is MySQL/MariaDB because the section has the reference's keys and no `type`. */
  readonly databaseTypeInferred: boolean;
  /** One plugin's section, validated, with defaults applied and paths resolved. */
  section<S extends TObject>(name: string, schema: S): Static<S>;
  /** Once the plugins are known: refuse top-level keys that are neither core's nor a known plugin's section. */
  checkSections(pluginNames: Iterable<string>): void;
  /** A disabled plugin's section saying `enabled: true` is refused: the site meant the plugin on. */
  refuseEnabledWhileOff(disabled: Iterable<string>): void;
  /** Where a relative plugin path listed in `plugins` resolves from. */
  baseDirOf(key: string): string;
}
