import { ErrorCode, badRequest, type PluginContext, toInt, IpList } from 'ogserve';
import { type AgentLink, askerOf, DispatchAnswer, dispatchAnswer, dispatchEach, paramsOf, withClients } from '../../agents';
import type { ImageCommands } from '../commands';
import type { PendingCreates } from '../pending';
import { ImageCreateParams } from '../schemas';

/**
 * POST /image/create: relayed to the client's agent. Nothing is written now; the
 * record is created (or refreshed, when the name exists) from the agent's answer.
 */
export function createRoutes(ctx: PluginContext, commands: ImageCommands, link: AgentLink, pending: PendingCreates): void {
  const spec = {
    permission: 'image',
    scoped: { clients: 'clients' },
    // An image is taken from one client.
    body: withClients(ImageCreateParams, IpList({ minItems: 1 })),
    response: DispatchAnswer,
    summary: "Create or refresh an image from one client's partition",
  } as const;
  ctx.router.post('/image/create', spec, async ({ body, em, access, req }) => {
    if (new Set(body.clients).size > 1) throw badRequest(ErrorCode.invalidField, 'an image is created from one client', 'clients');
    const ip = body.clients[0]!;
    // Two agents writing one image file at once would corrupt it.
    const busyWith = pending.creating(body.name);
    if (busyWith !== undefined) throw badRequest(ErrorCode.conflict, `image '${body.name}' is being created from ${busyWith}`, 'name');
    const { request, repository } = await commands.prepareCreate(em, paramsOf(body), ip);
    const dispatch = await dispatchEach(link, [ip], () => request, {
      kind: request.path,
      params: paramsOf(body),
      asker: askerOf(access, req),
    });
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
    return dispatchAnswer(dispatch);
  });
}
