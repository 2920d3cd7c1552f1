import { type Access, type Permission, scopeOf, type Route } from 'ogserve';
import type { FleetEvent } from './event-log';

/** What reading one event type takes: the permission, and whether a limited token may. */
interface ReadRule {
  permission: Permission;
  scoped: boolean;
}

/** Any event no route claims: what GET /events itself takes, and for a limited token only about its clients. */
const streamRule: ReadRule = { permission: 'read', scoped: true };

/**
 * Who may read each event type, from the route table: an event that carries what a route
 * answers (the route lists it in `events`) is read with that route's rights, as a REST
 * answer would be; every other event with the stream's own.
 */
export class EventRules {
  private readonly rules = new Map<string, ReadRule[]>();

  constructor(routes: readonly Readonly<Route>[]) {
    for (const route of routes) {
      for (const type of route.events) {
        const rule = { permission: route.permission ?? 'read', scoped: route.scoped !== undefined };
        this.rules.set(type, [...(this.rules.get(type) ?? []), rule]);
      }
    }
  }

  /** Whether `access` may read events of `type`: every route that answers them would answer it. */
  allows(access: Access, type: string): boolean {
    return (this.rules.get(type) ?? [streamRule]).every(
      (rule) => access.permissions.has(rule.permission) && (rule.scoped || !scopeOf(access, rule.permission)),
    );
  }
}

/** The clients an event names (`client`, or a `clients` list), by address. */
function clientsOf(event: FleetEvent): string[] {
  const { client, clients } = event.data;
  const named = typeof client === 'string' ? [client] : [];
  if (Array.isArray(clients)) for (const ip of clients) if (typeof ip === 'string') named.push(ip);
  return named;
}

/**
 * One reader of the stream, through the access it opened the stream with: every event it
 * would be sent is checked here, as a REST answer is for every request. A type its rights
 * do not reach is never sent; to a token limited to part of the fleet, an event naming no
 * client inside is not sent, and a `clients` list is cut to those inside; once the
 * credential no longer holds (revoked, expired), the stream ends. One check for every
 * event type, and for any credential that says whether it still holds.
 */
export class Reader {
  private readonly allowed = new Map<string, boolean>();

  constructor(
    private readonly access: Access,
    private readonly rules: EventRules,
  ) {}

  /** False once the credential is gone: the stream ends. */
  get holds(): boolean {
    return this.access.holds?.() ?? true;
  }

  /** Whether events must go through `limit` (a token limited to part of the fleet). */
  get scoped(): boolean {
    return this.access.scope !== undefined;
  }

  /** Whether this reader's rights reach events of `type` at all. */
  mayRead(type: string): boolean {
    if (type === 'reset') return true;
    let allowed = this.allowed.get(type);
    if (allowed === undefined) {
      allowed = this.rules.allows(this.access, type);
      this.allowed.set(type, allowed);
    }
    return allowed;
  }

  /**
   * Each event as a limited reader may see it, in the same places: undefined for one naming
   * no client inside its scope, a copy with the `clients` list cut to those inside. The
   * scope is asked once for the whole batch, as the inventory stands now.
   */
  async limit(events: readonly FleetEvent[]): Promise<(FleetEvent | undefined)[]> {
    const scope = this.access.scope;
    if (!scope) return [...events];
    const named = events.flatMap(clientsOf);
    const outside = new Set(named.length > 0 ? await scope.outside(named) : []);
    return events.map((event) => {
      if (event.type === 'reset') return event;
      const { client, clients } = event.data;
      if (typeof client === 'string' && outside.has(client)) return undefined;
      const inside = Array.isArray(clients) ? clients.filter((ip) => typeof ip === 'string' && !outside.has(ip)) : [];
      if (typeof client !== 'string' && inside.length === 0) return undefined;
      const cut = Array.isArray(clients) && inside.length < clients.length;
      return cut ? { ...event, data: { ...event.data, clients: inside } } : event;
    });
  }
}
