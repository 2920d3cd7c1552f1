import { ApiError, get } from '../api';
import { readServerEvents, type ServerEvent } from '../events';
import type { ClientListing } from '../types';

export interface LiveSource {
  /** 'events' while the server's event stream feeds updates, 'poll' while GET /clients is polled. */
  mode: 'events' | 'poll';
  stop(): void;
}

const pollMs = 2000;

/** What the stream carries that GET /clients shows: each client's state, and how its last command ended. */
const followed = 'client.state,command.answered,command.failed,command.timed_out';

/**
 * Keeps `apply` fed with the clients' states. It asks for an event stream (POST /events/ticket,
 * then GET /events?ticket=&types=), reads GET /clients once the stream is open, then patches
 * that list from the events: `client.state` sets a client's state (`OFF`: it leaves the list, as
 * GET /clients lists connected agents only), a command's end its `last_cmd.result`. Reading the
 * whole list again on every event cost the server a GET /clients per event and console (up to 5
 * a second each) while a lab booted. A server without the stream answers 404 and GET /clients is
 * polled every 2 s instead, as it is whenever the stream breaks, until a new ticket works.
 */
export function followStates(apply: (clients: ClientListing[]) => void, onMode: (mode: LiveSource['mode']) => void): LiveSource {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let aborter: AbortController | undefined;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const source: LiveSource = { mode: 'poll', stop };
  /** The list as last read, patched by the events since. */
  let current = new Map<string, ClientListing>();

  async function fetchStates(): Promise<void> {
    try {
      const { clients } = await get<{ clients: ClientListing[] }>('/clients');
      if (stopped) return;
      current = new Map(clients.map((c) => [c.addr, c]));
      apply(clients);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) stop();
    }
  }

  async function poll(): Promise<void> {
    await fetchStates();
    if (!stopped && source.mode === 'poll') timer = setTimeout(poll, pollMs);
  }

  function usePolling(): void {
    source.mode = 'poll';
    onMode('poll');
    clearTimeout(timer);
    void poll();
  }

  async function openStream(): Promise<void> {
    aborter = new AbortController();
    try {
      await readServerEvents(
        { types: followed },
        patch,
        () => {
          source.mode = 'events';
          onMode('events');
          clearTimeout(timer);
          // What happened while no stream was open is read once; the events carry on from here.
          void fetchStates();
        },
        aborter.signal,
      );
    } catch (error) {
      // No ticket (a server without the events plugin): polling it is, for good.
      if (error instanceof ApiError) {
        if (!stopped) usePolling();
        return;
      }
    }
    if (stopped) return;
    usePolling();
    // Try the stream again later; the poll carries on meanwhile.
    setTimeout(() => {
      if (!stopped) void openStream();
    }, 30_000);
  }

  /** One event applied to the list; the list handed on at most every 200 ms, however many arrive. */
  function patch(event: ServerEvent): void {
    const data = event.data as { client?: string; new?: string; result?: string };
    if (typeof data?.client !== 'string') return;
    const shown = current.get(data.client);
    if (event.type === 'client.state' && typeof data.new === 'string') {
      if (data.new === 'OFF') current.delete(data.client);
      else current.set(data.client, { ...(shown ?? { addr: data.client, last_cmd: { result: 'unknown' } }), state: data.new });
    } else if (shown && event.type.startsWith('command.')) {
      const result = event.type === 'command.answered' ? (data.result ?? 'unknown') : 'failure';
      current.set(data.client, { ...shown, last_cmd: { result } });
    } else return;
    pending ??= setTimeout(() => {
      pending = undefined;
      if (!stopped) apply([...current.values()]);
    }, 200);
  }

  function stop(): void {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(pending);
    aborter?.abort();
  }

  void fetchStates();
  void openStream();
  return source;
}
