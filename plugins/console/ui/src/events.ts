import { post, session } from './api';

/** One event of the server's stream: its type, when it happened (ISO 8601) and its data, parsed. */
export interface ServerEvent {
  type: string;
  time: string;
  data: unknown;
}

/**
 * Reads the server's event stream (POST /events/ticket, then GET /events?ticket=&<filters>)
 * and hands each event to `onEvent`; `onOpen` once the stream answers. Resolves when the
 * stream ends or breaks after opening; rejects when it cannot be opened (no events plugin, a
 * refused ticket): either way the caller falls back to asking again now and then.
 */
export async function readServerEvents(
  filters: Record<string, string>,
  onEvent: (event: ServerEvent) => void,
  onOpen: () => void,
  signal: AbortSignal,
): Promise<void> {
  const { ticket } = await post<{ ticket: string }>('/events/ticket');
  if (signal.aborted || !session.current) throw new Error('stopped');
  const query = new URLSearchParams({ ticket, ...filters });
  const response = await fetch(`/events?${query}`, {
    headers: { Accept: 'text/event-stream' },
    // The ticket stands for the caller, key or session cookie alike (POST /events/ticket sent its CSRF token).
    credentials: 'omit',
    signal,
  });
  if (!response.ok || !response.body) throw new Error(`GET /events answered ${response.status}`);
  onOpen();
  try {
    await readBlocks(response.body, onEvent);
  } catch {
    // A broken stream ends like a closed one: the caller decides what comes next.
  }
}

/** Server-sent events, read as text rather than through EventSource so every event type counts, named or not. */
async function readBlocks(body: ReadableStream<Uint8Array>, onEvent: (event: ServerEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      const event = parseBlock(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
      if (event) onEvent(event);
      end = buffered.indexOf('\n\n');
    }
  }
}

/** One block of `event:` and `data:` lines; comments (keep-alives) and blocks without data are not events. */
function parseBlock(block: string): ServerEvent | null {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return null;
  try {
    // Each event's data is its envelope: {id, type, time, data}.
    const envelope = JSON.parse(data.join('\n')) as { time?: string; data?: unknown };
    return { type, time: envelope.time ?? new Date().toISOString(), data: envelope.data };
  } catch {
    return { type, time: new Date().toISOString(), data: undefined };
  }
}
