import { Reply, normalizeMac, type PluginContext } from 'ogserve';
import { askerOf } from '../agents';
import type { Assigner } from './assign';
import { confirmMoved } from './confirm';
import type { Discovery } from './discovery';
import { colonMac, discoveredEvents } from './events';
import {
  AssignAnswer,
  AssignBody,
  ConfirmAnswer,
  ConfirmBody,
  DiscoveredList,
  ForgetAnswer,
  ForgetBody,
  type EnrolSettings,
} from './schemas';

/**
 * GET /discovered (read) and POST /discovered/assign, /forget, /confirm (admin). Discovered
 * PCs are in no center or room: tokens limited to some are refused these routes.
 */
export function enrolRoutes(
  ctx: PluginContext<EnrolSettings>,
  deps: { discovery: Discovery; assigner: Assigner; confirm: Omit<Parameters<typeof confirmMoved>[1], 'discovery'> },
): void {
  const { router } = ctx;
  router.get(
    '/discovered',
    {
      permission: 'read',
      bodyPolicy: 'ignored',
      response: DiscoveredList,
      events: discoveredEvents,
      summary: 'PCs nobody registered that booted for discovery, with the hardware their agents reported',
    },
    // A site's new lab may be hundreds of PCs with their components: past the usual cap.
    async () => Reply.json({ discovered: await deps.discovery.list() }, { uncapped: true }),
  );
  router.post(
    '/discovered/assign',
    { permission: 'admin', body: AssignBody, response: AssignAnswer, summary: 'Make discovered PCs clients of a room, in one transaction' },
    async ({ body, access, req, log }) => deps.assigner.assign(body, { req, log, asker: askerOf(access, req) }),
  );
  router.post(
    '/discovered/forget',
    { permission: 'admin', body: ForgetBody, response: ForgetAnswer, summary: 'Forget discovered PCs (switched off first if asked)' },
    async ({ body }) => ({ forgotten: (await deps.discovery.forget(body.macs.map(normalizeMac), body.poweroff ?? false)).map(colonMac) }),
  );
  router.post(
    '/discovered/confirm',
    {
      permission: 'admin',
      body: ConfirmBody,
      response: ConfirmAnswer,
      summary: 'Confirm that PCs found again are the clients whose serial numbers they reported',
    },
    async ({ body, log }) => {
      const { clients, warnings } = await confirmMoved(body.macs, { ...deps.confirm, discovery: deps.discovery }, log);
      return warnings.length > 0 ? { clients, warnings } : { clients };
    },
  );
}
