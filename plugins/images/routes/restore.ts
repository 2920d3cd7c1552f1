import { type PluginContext, IpList } from 'ogserve';
import { type AgentLink, askerOf, DispatchAnswer, dispatchAnswer, dispatchEach, paramsOf, withClients } from '../../agents';
import type { Inventory } from '../../inventory';
import type { ImageCommands } from '../commands';
import { fileInside } from '../files';
import type { RestoreMethods } from '../restore-methods';
import { ImageRestoreParams } from '../schemas';

/**
 * POST /image/restore: relayed to each client's agent with the body the agent reads. Each
 * client gets the address of the image's repository on its own network; clients that
 * need different addresses get separate requests, answered as one list in the order asked.
 * The image and its center restriction are checked once for all the clients. A type another
 * plugin carries out (RestoreMethods: MULTICAST) is set up by it before the agents are sent
 * the type it gives each, and told once they are.
 */
export function restoreRoutes(
  ctx: PluginContext,
  commands: ImageCommands,
  inventory: Inventory,
  link: AgentLink,
  methods: RestoreMethods,
  directory: string,
): void {
  const spec = {
    permission: 'image',
    scoped: { clients: 'clients' },
    body: withClients(ImageRestoreParams, IpList({ minItems: 1 })),
    response: DispatchAnswer,
    summary: "Restore an image onto clients' partition",
  } as const;
  ctx.router.post('/image/restore', spec, async ({ body, em, access, req }) => {
    const params = paramsOf(body);
    const method = methods.get(commands.restoreType(params, methods.types()));
    const ips = [...new Set(body.clients)];
    const image = await commands.restoredImage(em, params, ips);
    const clients = new Map((await inventory.clientsByIps(ips)).map((c) => [c.ip, c]));
    const addresses = await commands.restoreAddresses(image);
    const asker = askerOf(access, req);
    const origin = { kind: 'image/restore', params, asker };
    const restored = { id: image.id, name: image.name, repositoryId: image.repositoryId, file: fileInside(directory, image.name, '.img') };
    const prepared = await method?.prepare({ image: restored, params, ips, clients, asker });
    let dispatch: Awaited<ReturnType<typeof dispatchEach>>;
    try {
      const request = (ip: string) => commands.restoreRequest(image, params, addresses, clients.get(ip), prepared?.agentType(ip));
      dispatch = await dispatchEach(link, ips, request, origin);
    } catch (error) {
      prepared?.abandoned();
      throw error;
    }
    await prepared?.sent(dispatch);
    return dispatchAnswer(dispatch);
  });
}
