import { ErrorCode, badRequest } from '../../../core/errors';
import type { PluginContext } from '../../../core/plugin';
import { toInt } from '../../../core/schema-types';
import { type AgentLink, type Dispatch, DispatchAnswer } from '../../agents';
import type { Inventory } from '../../inventory';
import { repositoryAddressFor } from '../../inventory';
import { ImageRestore, restoreTypes } from '../schemas';
import type { ImageStore } from '../store';
import { requireImage } from './lookups';

/**
 * POST /image/restore: relayed to each client's agent with the body the agent reads. Each
 * client gets the address of the image's repository on its own network; clients that
 * need different addresses get separate requests, answered as one list in the order asked.
 */
export function restoreRoutes(ctx: PluginContext, store: ImageStore, inventory: Inventory, link: AgentLink): void {
  const spec = {
    permission: 'image',
    scoped: 'clients',
    body: ImageRestore,
    response: DispatchAnswer,
    summary: "Restore an image onto clients' partition",
  } as const;
  ctx.router.post('/image/restore', spec, async ({ body, em }) => {
    const type = body.type.toUpperCase();
    if (!(restoreTypes as readonly string[]).includes(type))
      throw badRequest(ErrorCode.invalidField, `'type' must be one of ${restoreTypes.join(', ')}`, 'type');
    const image = await requireImage(store, em, toInt(body.id), 'id');
    if (body.name !== undefined && body.name !== image.name)
      throw badRequest(ErrorCode.conflict, `image ${image.id} is named '${image.name}', not '${body.name}'`, 'name');
    const clients = new Map((await inventory.clientsByIps(body.clients)).map((c) => [c.ip, c]));

    const scopes = await store.scopes(image.id);
    if (scopes.length > 0) {
      const outside = [...clients.values()].filter((c) => !scopes.includes(c.room.centerId)).map((c) => c.ip);
      if (outside.length > 0)
        throw badRequest(
          ErrorCode.conflict,
          `image '${image.name}' is restricted to other centers than that of ${outside.slice(0, 10).join(', ')}`,
          'clients',
        );
    }

    const addresses = (await inventory.repository(image.repositoryId))?.addresses ?? [];
    const byAddress = new Map<string, string[]>();
    for (const ip of new Set(body.clients)) {
      const address = repositoryAddressFor(clients.get(ip), addresses, body.repository);
      if (!address)
        throw badRequest(ErrorCode.missingField, `'repository' is required: the image's repository has no address`, 'repository');
      byAddress.set(address, [...(byAddress.get(address) ?? []), ip]);
    }
    const outcomes = new Map<string, Dispatch['outcomes'][number]>();
    for (const [address, ips] of byAddress) {
      const request = {
        disk: String(body.disk),
        partition: String(body.partition),
        name: image.name,
        repository: address,
        type,
        profile: String(body.profile ?? image.softwareId),
        id: String(image.id),
      };
      for (const outcome of link.dispatch(ips, { method: 'POST', path: 'image/restore', body: request }).outcomes)
        outcomes.set(outcome.addr, outcome);
    }
    return { clients: [...new Set(body.clients)].map((ip) => outcomes.get(ip)!) };
  });
}
