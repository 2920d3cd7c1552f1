import { ApiError, get, post, session } from '../api';
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
    let ticket: string;
    try {
      ({ ticket } = await post<{ ticket: string }>('/events/ticket'));
    } catch {
      if (!stopped) usePolling();
      return;
    }
    if (stopped || !session.current) return;
    aborter = new AbortController();
    try {
      const response = await fetch(`/events?ticket=${encodeURIComponent(ticket)}`, {
        headers: { Accept: 'text/event-stream' },
        // The ticket stands for the caller, key or session cookie alike (POST /events/ticket sent its CSRF token).
        credentials: 'omit',
        signal: aborter.signal,
      });
      if (!response.ok || !response.body) throw new Error(`GET /events answered ${response.status}`);
      source.mode = 'events';
      onMode('events');
      clearTimeout(timer);
      changed();
      // Read as text rather than through EventSource, so every event type counts, named or not.
      await readEvents(response.body, changed);
    } catch {
      // A broken stream: fall through to polling.
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

/** Calls `onEvent` for each Server-Sent Event of the stream (blocks ending in a blank line that carry data). */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: () => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (block.split('\n').some((line) => line.startsWith('data:'))) onEvent();
      end = buffered.indexOf('\n\n');
    }
  }
}
