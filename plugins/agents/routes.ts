import type { Static, TObject } from '@sinclair/typebox';
import { ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import type { ClientView, Inventory } from '../inventory';
import { type HardwareTypeNames, storedHardware } from './hardware';
import { type AgentCommand, dispatchAnswer, paramsOf, sendCommand, withClients } from './commands';
import type { AgentLink } from './link';
import { askerOf } from './observers';
import type { defineAgentCommands } from './own-commands';
import {
  ClientQuery,
  ClientsAnswer,
  ClientsBody,
  DispatchAnswer,
  HardwareAnswer,
  SessionAnswer,
  SessionQuery,
  SoftwareAnswer,
  SoftwareQuery,
} from './schemas';
import { storedSoftware } from './software';
import type { Dispatch } from './types';

const respond = (dispatch: Dispatch) => ({ clients: dispatch.outcomes });

/**
 * The REST side of the agent link: GET/POST /clients, the relayed commands (which answer
 * at once with who was sent the command, who was busy and who is not connected) and the
 * read-backs of what agents reported.
 */
export function agentRoutes(
  ctx: PluginContext,
  link: AgentLink,
  inventory: Inventory,
  commands: ReturnType<typeof defineAgentCommands>,
  hardwareNames: HardwareTypeNames,
): void {
  const { router, db } = ctx;

  // Consoles poll these two: kept out of the request log, as the reference.
  router.get('/clients', { permission: 'read', log: false, scoped: 'filtered', response: ClientsAnswer }, async ({ access }) => {
    const inside = await access?.scope?.addresses();
    return link.listingAnswer(inside);
  });
  // A state probe consoles poll: changes nothing, so not an audited action either.
  router.post(
    '/clients',
    { permission: 'operate', scoped: { clients: 'clients' }, body: ClientsBody, log: false, audit: false, response: DispatchAnswer },
    async ({ body }) => respond(await link.dispatch(body.clients, { method: 'POST', path: 'probe' })),
  );

  const relay = <P extends TObject>(path: string, command: AgentCommand<P>, permission: 'operate' | 'image') =>
    router.post(
      path,
      { permission, scoped: { clients: 'clients' }, body: withClients(command.params), response: DispatchAnswer },
      async ({ body, access, req }) => {
        // Generic over P, TypeScript cannot see `clients` in the composed body.
        const asked = body as unknown as Static<P> & { clients: string[] };
        return dispatchAnswer(await sendCommand(link, command, paramsOf(asked), asked.clients, askerOf(access, req)));
      },
    );
  relay('/poweroff', commands.poweroff, 'operate');
  relay('/reboot', commands.reboot, 'operate');
  relay('/stop', commands.stop, 'operate');
  relay('/refresh', commands.refresh, 'operate');
  relay('/hardware', commands.hardware, 'operate');
  relay('/session', commands.session, 'operate');
  relay('/software', commands.software, 'operate');
  relay('/setup', commands.setup, 'image');

  const known = (ip: string, field: string): Promise<ClientView> => inventory.requireClient(ip, field);

  // One client: {sessions}. Several: the same, for the first, plus {clients:[{addr, sessions}]}
  // for all of them in the order asked; the key is always there, so callers need one shape.
  router.get(
    '/session',
    { permission: 'read', scoped: { clients: ['client', 'clients'] }, body: SessionQuery, response: SessionAnswer },
    async ({ body }) => {
      const field = body.client ? 'client' : 'clients';
      const ips = [...new Set(body.client ?? body.clients ?? [])];
      if (ips.length === 0) throw badRequest(ErrorCode.missingField, "'client' (or 'clients') must list an address", 'client');
      const clients: { addr: string; sessions: { disk: number; partition: number; name: string }[] }[] = [];
      for (const ip of ips) {
        const client = await known(ip, field);
        const sessions = (await inventory.diskSetup(client.id))
          .filter((p) => p.partition > 0 && p.os !== '')
          .map((p) => ({ disk: p.disk, partition: p.partition, name: p.os }));
        clients.push({ addr: ip, sessions });
      }
      return { sessions: clients[0]!.sessions, clients };
    },
  );

  router.get(
    '/hardware',
    { permission: 'read', scoped: { clients: 'client' }, body: ClientQuery, response: HardwareAnswer },
    async ({ body }) => {
      const client = await known(body.client[0]!, 'client');
      return { hardware: await storedHardware(db, client.id, hardwareNames) };
    },
  );

  router.get(
    '/software',
    { permission: 'read', scoped: { clients: 'client' }, body: SoftwareQuery, response: SoftwareAnswer },
    async ({ body }) => {
      const client = await known(body.client[0]!, 'client');
      return { software: await storedSoftware(db, client.id, toInt(body.disk), toInt(body.partition)) };
    },
  );
}
