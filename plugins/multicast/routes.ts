import type { EntityManager } from '@mikro-orm/core';
import type { IncomingMessage } from 'node:http';
import { type Access, ErrorCode, HttpError, type PluginContext, badRequest, positive } from 'ogserve';
import { type AgentCommands, type AgentLink, DispatchAnswer, askerOf, dispatchAnswer, sendCommand } from '../agents';
import { SessionEntity } from './entities/session';
import { findSession, listSessions, parseSessionsQuery, type SessionView } from './listing';
import { RetryBody, SessionDetail, SessionsList } from './schemas';
import type { MulticastSessions } from './sessions';

/** What the session events carry is what these routes answer: the event stream sends them to the same readers. */
const sessionEvents = ['multicast.session', 'multicast.client'];

/** States of a PC the image did not reach: what a retry sends to again. */
const retried = new Set(['dropped', 'missing', 'cancelled', 'failed']);

function sessionId(req: IncomingMessage): number {
  return positive((req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? '', 'id');
}

/** The session as `access` may see it, or a 404; `whole`: a limited caller may act only on a session all of whose PCs are its own. */
async function visibleSession(
  ctx: PluginContext<unknown>,
  sessions: MulticastSessions,
  req: IncomingMessage,
  access: Access | undefined,
  em: EntityManager,
  whole = false,
): Promise<SessionView> {
  const id = sessionId(req);
  const running = (n: number) => sessions.running(n);
  const view = await findSession(ctx.db, id, running, await access?.scope?.addresses(), em);
  if (!view) throw new HttpError(404, ErrorCode.notFound, `no multicast session with id ${id}`);
  if (whole && access?.scope && view.clients.length < ((await findSession(ctx.db, id, running, undefined, em))?.clients.length ?? 0))
    throw new HttpError(403, ErrorCode.forbidden, `multicast session ${id} sends to PCs outside ${access.scope.description}`);
  return view;
}

/** GET /multicast/sessions[/:id], DELETE /multicast/sessions/:id (cancel), POST /multicast/sessions/:id/retry. */
export function sessionRoutes(ctx: PluginContext<unknown>, sessions: MulticastSessions, link: AgentLink, commands: AgentCommands): void {
  const running = (id: number) => sessions.running(id);
  ctx.router.get(
    '/multicast/sessions',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: SessionsList,
      events: sessionEvents,
      summary: 'Multicast sessions, newest first: ?state=&image=&room=&job=&before=&limit=',
    },
    async ({ query, access, em }) => listSessions(ctx.db, parseSessionsQuery(query), running, await access?.scope?.addresses(), em),
  );

  ctx.router.get(
    '/multicast/sessions/:id',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: SessionDetail,
      events: sessionEvents,
      summary: "One multicast session: its sender's state and rate, and each PC's part (joined, bytes, dropped, done)",
    },
    async ({ req, access, em }) => visibleSession(ctx, sessions, req, access, em),
  );

  ctx.router.delete(
    '/multicast/sessions/:id',
    {
      permission: 'image',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: SessionDetail,
      summary: 'Cancel a multicast session: its sender stops, and each PC still in it is told so in its job',
    },
    async ({ req, access, em }) => {
      const view = await visibleSession(ctx, sessions, req, access, em, true);
      const live = sessions.running(view.id);
      if (!live) {
        if (view.state === 'waiting' || view.state === 'sending')
          throw badRequest(ErrorCode.conflict, `id: multicast session ${view.id} is run by another instance`, 'id');
        throw badRequest(ErrorCode.conflict, `id: multicast session ${view.id} has already ended (${view.state})`, 'id');
      }
      await sessions.cancel(live, `cancelled by ${access?.name ?? 'a caller'}`);
      return (await visibleSession(ctx, sessions, req, access, em))!;
    },
  );

  ctx.router.post(
    '/multicast/sessions/:id/retry',
    {
      permission: 'image',
      scoped: 'filtered',
      body: RetryBody,
      response: DispatchAnswer,
      summary: "Send the image again, by another restore type (UNICAST by default), to the session's PCs it did not reach",
    },
    async ({ req, access, body, em }) => {
      const view = await visibleSession(ctx, sessions, req, access, em);
      const failed = view.clients.filter((c) => retried.has(c.state)).map((c) => c.addr);
      const ips = body.clients ? body.clients.filter((ip) => failed.includes(ip)) : failed;
      if (body.clients?.some((ip) => !failed.includes(ip)))
        throw badRequest(
          ErrorCode.invalidField,
          `clients: only PCs the session did not reach may be sent it again (${failed.join(', ') || 'none'})`,
          'clients',
        );
      if (ips.length === 0) throw badRequest(ErrorCode.invalidField, `multicast session ${view.id} reached every one of its PCs`, 'id');
      const command = commands.get('image_restore');
      if (!command) throw new HttpError(503, ErrorCode.internal, 'no image_restore command is defined');
      const stored = await em.findOneOrFail(SessionEntity, { id: view.id });
      const params = { ...(JSON.parse(stored.params) as object), type: body.type ?? 'UNICAST' };
      return dispatchAnswer(await sendCommand(link, command, params, ips, askerOf(access, req)));
    },
  );
}
