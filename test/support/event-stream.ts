import http from 'node:http';
import { eventually } from './fake-agent';
import { TOKEN } from './server';

export interface StreamedEvent {
  id: number;
  type: string;
  time: string;
  data: any;
  /** When this reader had it whole (Date.now()): a bench's measure of how soon events come. */
  receivedAt: number;
}

/**
 * A GET /events reader over a real connection: parses the text/event-stream frames as a
 * browser would and keeps every event, in order. `pause()` stops reading from the socket
 * (a stalled subscriber); `close()` leaves.
 */
export class EventStreamClient {
  readonly events: StreamedEvent[] = [];
  /** True once the server ended or dropped the stream. */
  ended = false;
  private buffer = '';

  private constructor(
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
    private readonly res: http.IncomingMessage,
    readonly body: string,
  ) {
    if (status !== 200) return;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.read(chunk));
    res.on('end', () => (this.ended = true));
    res.on('close', () => (this.ended = true));
    res.on('error', () => (this.ended = true));
  }

  /** `query` is the part after `?`; headers replace the default Authorization (pass {} for none). */
  static open(port: number, query = '', headers: Record<string, string> = { Authorization: TOKEN }): Promise<EventStreamClient> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: `/events${query ? `?${query}` : ''}`, headers, agent: false }, (res) => {
        if (res.statusCode === 200) {
          resolve(new EventStreamClient(200, res.headers, res, ''));
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(new EventStreamClient(res.statusCode ?? 0, res.headers, res, text)));
      });
      req.on('error', reject);
    });
  }

  get json(): any {
    return this.body ? JSON.parse(this.body) : undefined;
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }

  /** Wait until an event matches `test`; returns it. */
  async waitFor(test: (e: StreamedEvent) => boolean, what: string, ms = 5000): Promise<StreamedEvent> {
    return (await eventually(() => this.events.find(test), what, ms))!;
  }

  pause(): void {
    this.res.pause();
    // Stop the socket too, so the server's writes pile up in its own buffers.
    this.res.socket.pause();
  }

  /** Read again (after `pause`): what the server sent before it dropped the stream, then its end. */
  resume(): void {
    this.res.socket.resume();
    this.res.resume();
  }

  close(): void {
    this.res.destroy();
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) return;
      const frame = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data) this.events.push({ ...(JSON.parse(data) as StreamedEvent), receivedAt: Date.now() });
    }
  }
}
