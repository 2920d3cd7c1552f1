import { ApiError, get } from '../api';
import { readServerEvents } from '../events';
import type { ClientListing } from '../types';

export interface LiveSource {
  /** 'events' while the server's event stream feeds updates, 'poll' while GET /clients is polled. */
  mode: 'events' | 'poll';
  stop(): void;
}

const pollMs = 2000;

/**
 * Keeps `apply` fed with the clients' states. It asks for an event stream (POST /events/ticket,
 * then GET /events?ticket=) and refetches GET /clients when an event arrives; a server without
 * the stream answers 404 and GET /clients is polled every 2 s instead, as it is whenever the
 * stream breaks, until a new ticket works.
 */
export function followStates(apply: (clients: ClientListing[]) => void, onMode: (mode: LiveSource['mode']) => void): LiveSource {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let aborter: AbortController | undefined;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const source: LiveSource = { mode: 'poll', stop };

  async function fetchStates(): Promise<void> {
    try {
      const { clients } = await get<{ clients: ClientListing[] }>('/clients');
      if (!stopped) apply(clients);
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
        {},
        changed,
        () => {
          source.mode = 'events';
          onMode('events');
          clearTimeout(timer);
          changed();
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

  /** Whatever the event, the states are read again, at most every 200 ms. */
  function changed(): void {
    pending ??= setTimeout(() => {
      pending = undefined;
      void fetchStates();
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
