import type { IncomingMessage } from 'node:http';
import type { PluginContext, RequestContext } from 'ogserve';
import type { Inventory } from '../inventory';
import type { BootFiles } from '../pxe-modes';
import './events';
import { colonMac, macFrom } from './mac';
import type { BootMetrics } from './metrics';
import { PerAddressLimit } from './rate-limit';
import type { RefusalLog } from './refusal-log';
import type { BootSettings } from './schemas';
import { messageScript, scriptReply } from './script-text';
import type { IpxeTemplates, ScriptVariables } from './templates';
import { discoverMode, type UnknownPcs } from './unknown-pcs';

/** The live directory an unknown PC's ogLive boots: the default link oglivecli keeps. */
const defaultLivedir = 'ogLive';

/**
 * GET /boot/ipxe?mac=<mac> and GET /boot/ipxe/<mac>: a PC's iPXE script for its boot mode.
 * Public (a PC holds no key), so they answer only scripts: a bad MAC and too many requests
 * are scripts too (400, 429), which say so on the PC's screen.
 */
export function scriptRoutes(
  ctx: PluginContext<BootSettings>,
  deps: {
    inventory: Inventory;
    bootFiles: BootFiles;
    templates: IpxeTemplates;
    metrics: BootMetrics;
    refusals: RefusalLog;
    unknown: UnknownPcs;
    filesUrl: string;
  },
): void {
  const { inventory, bootFiles, templates, metrics, refusals, unknown, filesUrl } = deps;
  const limit = new PerAddressLimit(ctx.config.scripts_per_minute);

  const answer = async (rc: RequestContext<unknown>, asked: string | null | undefined) => {
    const wait = limit.take(rc.address);
    if (wait > 0) {
      const message = `too many boot requests from ${rc.address}; try again in ${wait} s`;
      metrics.refusedFor('too_many_scripts');
      refusals.note('429 too_many_scripts', message);
      return scriptReply(messageScript(message), 429, { 'Retry-After': String(wait) });
    }
    const mac = macFrom(asked);
    if (!mac) return scriptReply(messageScript(`'${asked ?? ''}' is not a MAC address (aa:bb:cc:dd:ee:ff)`), 400);
    const client = await inventory.clientByMac(mac);
    const common = { files_url: filesUrl, mac_query: `?mac=${mac}` };
    let vars: ScriptVariables;
    if (client) vars = { ...(await bootFiles.templateVariables(client)), ...common };
    else {
      // A PC nobody registered: its network's setting; `discover` asks the plugin that discovers PCs.
      const setting = unknown.modeAt(rc.address);
      // A failure of the plugin that discovers boots the PC from its disk, as a refusal does.
      const discovery =
        setting.mode === discoverMode
          ? await unknown.discover({ mac, address: rc.address, network: setting.network }).catch((error: Error) => {
              rc.log.error({ err: error, mac }, `unknown PC not discovered: ${error.message}`);
              return undefined;
            })
          : undefined;
      vars = {
        mode: setting.mode === discoverMode && !discovery ? 'local' : setting.mode,
        params: '',
        oglivedir: discovery?.livedir ?? defaultLivedir,
        server_ip: bootFiles.server.address,
        repo_ip: '',
        client: null,
        ...common,
      };
    }
    const { mode } = vars;
    let script: string | undefined;
    try {
      script = await templates.render(mode, vars);
    } catch (error) {
      // A site's template with a mistake: the PC says so and goes on, as for a missing one.
      rc.log.error({ err: error, mode }, `iPXE template of mode '${mode}' failed: ${(error as Error).message}`);
      return scriptReply(messageScript(`the iPXE script of boot mode '${mode}' failed; ask the administrator`));
    }
    if (script === undefined) {
      // A 200, so iPXE runs it: the PC says why it does not boot, then goes on to its next boot device.
      rc.log.warn({ mode, mac }, 'no iPXE template for this boot mode');
      return scriptReply(messageScript(`no iPXE script for boot mode '${mode}' (${colonMac(mac)}); ask the administrator`));
    }
    if (client) void ctx.events.emit('boot.stage', { client: client.ip, stage: 'script' });
    return scriptReply(script);
  };

  const spec = {
    public: true,
    bodyPolicy: 'ignored',
    responseType: 'text/plain',
    summary: "A PC's iPXE script for its boot mode",
  } as const;
  ctx.router.get('/boot/ipxe', spec, (rc) => answer(rc, rc.query.get('mac')));
  ctx.router.get('/boot/ipxe/:mac', spec, (rc) => answer(rc, decoded(paramsOf(rc.req).mac)));
}

/** The path parameters polka matched. */
export function paramsOf(req: IncomingMessage): Record<string, string | undefined> {
  return (req as IncomingMessage & { params?: Record<string, string> }).params ?? {};
}

function decoded(text: string | undefined): string | undefined {
  try {
    return text === undefined ? undefined : decodeURIComponent(text);
  } catch {
    return text;
  }
}
