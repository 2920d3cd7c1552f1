import path from 'node:path';
import type { PluginContext } from 'ogserve';
import { Done } from '../inventory';
import type { LiveInstaller } from './installer';
import { IsoListing, LiveInstalled, LiveInstallBody, LiveNameBody } from './install-schemas';

/**
 * Installing, removing and choosing the default live image (admin): what `ogserve live` does
 * on the command line. ISOs come from `live.iso_dir` alone, by file name: a request never
 * names a path on the server, and a 300 MB upload never goes through the JSON body.
 */
export function installRoutes(ctx: PluginContext<unknown>, installer: LiveInstaller): void {
  const { router } = ctx;
  router.get(
    '/live/isos',
    { permission: 'admin', response: IsoListing, summary: 'The ISOs in live.iso_dir that POST /live/install takes' },
    async () => ({ isos: await installer.isos() }),
  );
  router.post(
    '/live/install',
    { permission: 'admin', body: LiveInstallBody, response: LiveInstalled, summary: 'Install a live image from an ISO of live.iso_dir' },
    ({ body }) => installer.install({ iso: path.join(installer.isoDir, body.iso) }, body.name),
  );
  router.post(
    '/live/default',
    { permission: 'admin', body: LiveNameBody, response: Done, summary: 'Make an installed live image the default (the ogLive link)' },
    async ({ body }) => {
      await installer.setDefault(body.name);
      return {};
    },
  );
  router.post(
    '/live/remove',
    { permission: 'admin', body: LiveNameBody, response: Done, summary: 'Remove an installed live image no client boots' },
    async ({ body }) => {
      await installer.remove(body.name);
      return {};
    },
  );
}
