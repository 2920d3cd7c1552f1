import type { IncomingMessage } from 'node:http';
import { type Access, ErrorCode, HttpError, Reply, badRequest, isIpv4, type RequestContext } from 'ogserve';
import { EventFilter, commaList } from './filter';
import type { EventHub } from './hub';
import { type EventRules, Reader } from './reader';

/** What GET /events needs to turn `?room=` into the room's client addresses. */
export type RoomClients = (room: number) => Promise<string[] | undefined>;

const maxListItems = 4096;

/**
 * GET /events: checks the filters (a 400 names the parameter), then turns the answer into
 * a text/event-stream that stays open until the client leaves or the service stops.
 */
export async function openStream(ctx: RequestContext<unknown>, hub: EventHub, rules: EventRules, roomClients: RoomClients): Promise<Reply> {
  const { query } = ctx;
  const types = commaList(query.get('types') ?? undefined);
  if (types.length > maxListItems) throw badRequest(ErrorCode.invalidField, `types: at most ${maxListItems} types`, 'types');
  const bad = types.find((t) => !/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*(\.\*)?$/.test(t));
  if (bad !== undefined)
    throw badRequest(ErrorCode.invalidField, `types: '${bad}' is not an event type (e.g. client.state or command.*)`, 'types');
  const clients = await clientFilter(query, roomClients, ctx.access);
  const lastEventId = lastEventIdOf(ctx.req, query);
  if (hub.full) throw new HttpError(503, 'unavailable', 'too many event streams are open (events.max_subscribers)');

  const head = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' };
  return Reply.stream(200, head, (res) => {
    // retry: how long a browser waits before reconnecting; the comment line sends the headers.
    res.write('retry: 2000\n: connected\n\n');
    // What the reader may see of each event is checked against its access as the event goes.
    hub.subscribe(res, new EventFilter(types, clients), new Reader(ctx.access!, rules), lastEventId);
  });
}

/**
 * The addresses `?clients=` and `?room=` name. A limited key naming a client outside its
 * scope is refused, as a room outside is: the filter would pick out the events that name it
 * (a job's, with the client cut from the list), and so tell what happened to it.
 */
async function clientFilter(query: URLSearchParams, roomClients: RoomClients, access?: Access): Promise<Set<string> | undefined> {
  const listed = query.has('clients') ? commaList(query.get('clients') ?? undefined) : undefined;
  if (listed) {
    if (listed.length > maxListItems) throw badRequest(ErrorCode.invalidField, `clients: at most ${maxListItems} addresses`, 'clients');
    const bad = listed.find((ip) => !isIpv4(ip));
    if (bad !== undefined) throw badRequest(ErrorCode.invalidField, `clients: '${bad}' is not an IPv4 address`, 'clients');
    const outside = access?.scope ? await access.scope.outside(listed) : [];
    if (outside.length > 0) {
      const which = `${outside.length === 1 ? 'client' : 'clients'} ${outside.slice(0, 10).join(', ')}${outside.length > 10 ? ', ...' : ''}`;
      const reach = `what the key '${access?.name}' may reach (${access?.scope?.description})`;
      throw new HttpError(403, ErrorCode.forbidden, `clients: ${which} ${outside.length === 1 ? 'is' : 'are'} outside ${reach}`, 'clients');
    }
  }
  const room = query.get('room');
  if (room === null) return listed && new Set(listed);
  if (!/^[1-9][0-9]{0,9}$/.test(room)) throw badRequest(ErrorCode.invalidField, 'room: must be a room id', 'room');
  const inRoom = await roomClients(Number(room));
  if (!inRoom) throw badRequest(ErrorCode.unknownId, `room: no room has id ${room}`, 'room');
  return new Set([...(listed ?? []), ...inRoom]);
}

function lastEventIdOf(req: IncomingMessage, query: URLSearchParams): number | undefined {
  const header = req.headers['last-event-id'];
  const value = typeof header === 'string' ? header : (query.get('last_event_id') ?? undefined);
  if (value === undefined || value === '') return undefined;
  if (!/^[0-9]{1,15}$/.test(value)) throw badRequest(ErrorCode.invalidField, 'Last-Event-ID: must be an event id', 'last_event_id');
  return Number(value);
}
