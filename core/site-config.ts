import type { Static, TObject } from '@sinclair/typebox';
import type { CoreSettings } from './config-schema';
import type { Logger } from './log';
import type { PluginDefinition } from './plugin';

/**
 * A site's configuration as core uses it. Reading it (files, `OGSERVE_*` variables, errors
 * by line) is the program's work, not core's: cli/config's `Config` is the one ogserve runs.
 */
export interface SiteConfig {
  readonly core: CoreSettings;
  /** Where the service keeps what it writes (database, API key, boot files). */
  readonly stateDir: { readonly dir: string };
  /** One plugin's section, validated, with defaults applied and paths resolved. */
  section<S extends TObject>(name: string, schema: S): Static<S>;
  /**
   * Once the enabled plugins are loaded, in load order, before any section is read: refuse
   * top-level keys no plugin reads (and a disabled plugin's section that says `enabled: true`),
   * then say in the start log what starts, with which config, on which database.
   */
  pluginsLoaded(plugins: readonly PluginDefinition[], log: Logger): void;
  /** The key the Authorization header must carry (`rest.api_token`, else one the program keeps for the site). */
  apiToken(log: Logger): string;
  /** Where a relative plugin path listed in `plugins` resolves from. */
  baseDirOf(key: string): string;
}
