import { type PluginContext, IpList } from 'ogserve';
import { type AgentLink, askerOf, DispatchAnswer, dispatchAnswer, dispatchEach, paramsOf, withClients } from '../../agents';
import type { Inventory } from '../../inventory';
import type { ImageCommands } from '../commands';
import { ImageRestoreParams } from '../schemas';

/**
 * POST /image/restore: relayed to each client's agent with the body the agent reads. Each
 * client gets the address of the image's repository on its own network; clients that
 * need different addresses get separate requests, answered as one list in the order asked.
 * The image and its center restriction are checked once for all the clients.
 */
export function restoreRoutes(ctx: PluginContext, commands: ImageCommands, inventory: Inventory, link: AgentLink): void {
  const spec = {
    permission: 'image',
    scoped: { clients: 'clients' },
    body: withClients(ImageRestoreParams, IpList({ minItems: 1 })),
    response: DispatchAnswer,
    summary: "Restore an image onto clients' partition",
  } as const;
  ctx.router.post('/image/restore', spec, async ({ body, em, access, req }) => {
    const params = paramsOf(body);
    commands.restoreType(params);
    const ips = [...new Set(body.clients)];
    const image = await commands.restoredImage(em, params, ips);
    const clients = new Map((await inventory.clientsByIps(ips)).map((c) => [c.ip, c]));
    const addresses = await commands.restoreAddresses(image);
    const origin = { kind: 'image/restore', params, asker: askerOf(access, req) };
    const dispatch = await dispatchEach(link, ips, (ip) => commands.restoreRequest(image, params, addresses, clients.get(ip)), origin);
    return dispatchAnswer(dispatch);
  });
}
