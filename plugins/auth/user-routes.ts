import type { EntityManager } from '@mikro-orm/core';
import type { IncomingMessage } from 'node:http';
import { ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import type { AuditChange, AuditValue } from '../audit';
import { Done, UserCreate, UserList, UserName, UserPassword, UserUpdate, UserView } from './schemas';
import type { UserView as View, UserStore } from './users';

/** A user's fields the audit log describes (a password only as changed, never its value). */
const described = ['role', 'shell', 'centers', 'rooms', 'disabled'] as const;
const value = (v: unknown): AuditValue => (Array.isArray(v) ? v.join(', ') : (v as AuditValue));

/** What a write did to a user, field by field, as the audit log keeps it: an add's values, an update's before and after. */
function changesOf(username: string, before: View | undefined, after: View | undefined): AuditChange[] {
  const changes: AuditChange[] = [];
  for (const field of described) {
    const was = before && value(before[field]);
    const now = after && value(after[field]);
    if (before && after && JSON.stringify(was) === JSON.stringify(now)) continue;
    if (!before && (now === false || now === '')) continue;
    const change: AuditChange = { entity: 'user', id: 0, name: username, field };
    if (before) change.before = was as AuditValue;
    if (after) change.after = now as AuditValue;
    changes.push(change);
  }
  return changes;
}

const noSuchUser = (username: string) => badRequest(ErrorCode.unknownId, `no user named '${username}'`, 'username');

/** Managing local users takes the admin permission: GET/POST/DELETE /users, POST /users/disable, /users/enable, /users/password. */
export function userRoutes(ctx: PluginContext, users: UserStore): void {
  const { router } = ctx;
  // Each write tells the audit log what it did to whom (nobody listens without the audit plugin).
  const tell = async (req: IncomingMessage, changes: AuditChange[]) => {
    if (changes.length > 0) await ctx.events.tell('audit.details', { req, changes });
  };
  const find = async (username: string, em: EntityManager) =>
    (await users.list(em)).find((u) => u.username.toLowerCase() === username.toLowerCase());
  router.get('/users', { permission: 'admin', response: UserList, summary: 'Every local user, without passwords' }, async ({ em }) => ({
    users: await users.list(em),
  }));

  router.post(
    '/users',
    { permission: 'admin', body: UserCreate, response: UserView, summary: 'Add a local user' },
    async ({ body, req, em }) => {
      const made = await users.add({ ...body, centers: body.centers?.map(toInt), rooms: body.rooms?.map(toInt) }, em);
      await tell(req, changesOf(made.username, undefined, made));
      return made;
    },
  );

  router.post(
    '/users/update',
    {
      permission: 'admin',
      body: UserUpdate,
      response: UserView,
      summary: "Change a local user's role, shell right or centers and rooms (their sessions end)",
    },
    async ({ body, req, em }) => {
      const done = await users.update({ ...body, centers: body.centers?.map(toInt), rooms: body.rooms?.map(toInt) }, em);
      if (!done) throw noSuchUser(body.username);
      await tell(req, changesOf(done.after.username, done.before, done.after));
      return done.after;
    },
  );

  router.delete(
    '/users',
    { permission: 'admin', body: UserName, response: Done, summary: 'Remove a local user' },
    async ({ body, req, em }) => {
      const before = await find(body.username, em);
      if (!(await users.remove(body.username, em))) throw noSuchUser(body.username);
      if (before) await tell(req, changesOf(before.username, before, undefined));
      return {};
    },
  );

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    router.post(
      `/users/${action}`,
      { permission: 'admin', body: UserName, response: Done, summary: `${action[0]!.toUpperCase()}${action.slice(1)} a local user` },
      async ({ body, req, em }) => {
        const before = await find(body.username, em);
        if (!(await users.setDisabled(body.username, disabled, em))) throw noSuchUser(body.username);
        if (before) await tell(req, changesOf(before.username, before, { ...before, disabled }));
        return {};
      },
    );
  }

  router.post(
    '/users/password',
    { permission: 'admin', body: UserPassword, response: Done, summary: "Set a local user's password (their sessions end)" },
    async ({ body, req, em }) => {
      if (!(await users.setPassword(body.username, body.password, em))) throw noSuchUser(body.username);
      await tell(req, [{ entity: 'user', id: 0, name: body.username, field: 'password', before: '(secret)', after: '(secret)' }]);
      return {};
    },
  );
}
