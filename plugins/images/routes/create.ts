import type { EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { ErrorCode, badRequest } from '../../../core/errors';
import type { PluginContext } from '../../../core/plugin';
import { toInt } from '../../../core/schema-types';
import { type AgentLink, DispatchAnswer } from '../../agents';
import type { ClientView, Inventory, RepositoryView } from '../../inventory';
import { repositoryAddressFor } from '../../inventory';
import type { Image } from '../entities/image';
import type { PendingCreates } from '../pending';
import { ImageCreate } from '../schemas';
import type { ImageStore } from '../store';
import { requireImage, requireRepository } from './lookups';

type CreateBody = Static<typeof ImageCreate>;

/**
 * The repository an image is written to: the one the request names (by id, or by one of
 * its addresses), else the one the image already lives in, else the client's own.
 */
async function targetRepository(
  inventory: Inventory,
  body: CreateBody,
  image: Image | null,
  client: ClientView | undefined,
): Promise<RepositoryView> {
  if (body.repository_id !== undefined) return requireRepository(inventory, toInt(body.repository_id), 'repository_id');
  if (body.repository !== undefined) {
    const repository = await inventory.repositoryByAddress(body.repository);
    if (!repository) throw badRequest(ErrorCode.unknownId, `no repository has the address ${body.repository}`, 'repository');
    return repository;
  }
  const id = image?.repositoryId || client?.repositoryId;
  if (!id)
    throw badRequest(
      ErrorCode.missingField,
      "'repository_id' is required: neither the image nor the client has a repository",
      'repository_id',
    );
  return requireRepository(inventory, id, 'repository_id');
}

/** The image a request refers to: by id when not "0" (its name must match), else by name if it exists. */
async function existingImage(store: ImageStore, em: EntityManager, body: CreateBody): Promise<Image | null> {
  const id = toInt(body.id);
  if (id === 0) return store.byName(em, body.name);
  const image = await requireImage(store, em, id, 'id');
  if (image.name !== body.name) throw badRequest(ErrorCode.conflict, `image ${id} is named '${image.name}', not '${body.name}'`, 'name');
  return image;
}

/**
 * POST /image/create: relayed to the client's agent. Nothing is written now; the
 * record is created (or refreshed, when the name exists) from the agent's answer.
 */
export function createRoutes(ctx: PluginContext, store: ImageStore, inventory: Inventory, link: AgentLink, pending: PendingCreates): void {
  const spec = {
    permission: 'image',
    scoped: 'clients',
    body: ImageCreate,
    response: DispatchAnswer,
    summary: "Create or refresh an image from one client's partition",
  } as const;
  ctx.router.post('/image/create', spec, async ({ body, em }) => {
    if (new Set(body.clients).size > 1) throw badRequest(ErrorCode.invalidField, 'an image is created from one client', 'clients');
    const ip = body.clients[0]!;
    // Two agents writing one image file at once would corrupt it.
    const busyWith = pending.creating(body.name);
    if (busyWith !== undefined) throw badRequest(ErrorCode.conflict, `image '${body.name}' is being created from ${busyWith}`, 'name');
    const [client] = await inventory.clientsByIps([ip]);
    const image = await existingImage(store, em, body);
    const repository = await targetRepository(inventory, body, image, client);
    const address = repositoryAddressFor(client, repository.addresses);
    if (!address)
      throw badRequest(
        ErrorCode.invalidField,
        `repository ${repository.id} has no address`,
        body.repository_id === undefined ? 'repository' : 'repository_id',
      );
    const request = {
      disk: String(body.disk),
      partition: String(body.partition),
      code: String(body.code),
      id: String(image?.id ?? 0),
      name: body.name,
      repository: address,
      ...(body.backup === undefined ? {} : { backup: body.backup }),
    };
    const dispatch = link.dispatch([ip], { method: 'POST', path: 'image/create', body: request });
    const answer = dispatch.answers.get(ip);
    if (answer) {
      pending.track(
        ip,
        {
          name: body.name,
          repositoryId: repository.id,
          description: body.description,
          centerId: body.center_id === undefined ? undefined : toInt(body.center_id),
          groupId: body.group_id === undefined ? undefined : toInt(body.group_id),
        },
        answer,
      );
    }
    return { clients: dispatch.outcomes };
  });
}
