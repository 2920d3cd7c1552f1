import { ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import { Done, UserCreate, UserList, UserName, UserPassword, UserView } from './schemas';
import type { UserStore } from './users';

const noSuchUser = (username: string) => badRequest(ErrorCode.unknownId, `no user named '${username}'`, 'username');

/** Managing local users takes the admin permission: GET/POST/DELETE /users, POST /users/disable, /users/enable, /users/password. */
export function userRoutes(ctx: PluginContext, users: UserStore): void {
  const { router } = ctx;
  router.get('/users', { permission: 'admin', response: UserList, summary: 'Every local user, without passwords' }, async () => ({
    users: await users.list(),
  }));

  router.post('/users', { permission: 'admin', body: UserCreate, response: UserView, summary: 'Add a local user' }, async ({ body }) =>
    users.add({ ...body, centers: body.centers?.map(toInt), rooms: body.rooms?.map(toInt) }),
  );

  router.delete('/users', { permission: 'admin', body: UserName, response: Done, summary: 'Remove a local user' }, async ({ body }) => {
    if (!(await users.remove(body.username))) throw noSuchUser(body.username);
    return {};
  });

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    router.post(
      `/users/${action}`,
      { permission: 'admin', body: UserName, response: Done, summary: `${action[0]!.toUpperCase()}${action.slice(1)} a local user` },
      async ({ body }) => {
        if (!(await users.setDisabled(body.username, disabled))) throw noSuchUser(body.username);
        return {};
      },
    );
  }

  router.post(
    '/users/password',
    { permission: 'admin', body: UserPassword, response: Done, summary: "Set a local user's password (their sessions end)" },
    async ({ body }) => {
      if (!(await users.setPassword(body.username, body.password))) throw noSuchUser(body.username);
      return {};
    },
  );
}
