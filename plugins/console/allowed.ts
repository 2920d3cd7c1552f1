import { type Access, type PluginContext, type Route, scopeOf, Type } from 'ogserve';

/**
 * GET /console-access: the routes the caller may call, as core decides at each request
 * (the permission the route names, and a token limited to part of the fleet only on routes
 * open to it), so that the console offers only the buttons that will not be refused.
 */
export function allowedRoutes(ctx: PluginContext): void {
  const spec = {
    permission: 'read',
    scoped: 'open',
    bodyPolicy: 'ignored',
    log: false,
    summary: 'the routes the caller may call',
    response: Type.Object({ routes: Type.Array(Type.String()) }),
  } as const;
  ctx.router.get('/console-access', spec, ({ access }) => ({
    routes: ctx.routes.filter((route) => mayCall(access, route)).map((route) => `${route.method} ${route.path}`),
  }));
}

function mayCall(access: Access | undefined, route: Readonly<Route>): boolean {
  if (route.permission === undefined) return true;
  if (!access?.permissions.has(route.permission)) return false;
  return route.scoped !== undefined || scopeOf(access, route.permission) === undefined;
}
