import net from 'node:net';

/**
 * A scriptable stand-in for the reference agent (ogClient), speaking its wire format byte
 * for byte: it connects to the server, reads the HTTP/1.1 requests the server writes and
 * writes HTTP/1.0 answers with Python's JSON layout (", " and ": " separators, non-ASCII
 * escaped). It may bind any 127.x.y.z source address, so one process can be thousands of
 * clients. Like the real agent it reads one request at a time and discards bytes that
 * follow a request in the same read (counted in `discardedBytes`).
 */

export type AgentMode = 'live' | 'linux' | 'windows' | 'virtual';

export interface SeenRequest {
  method: string;
  /** Path without the leading slash, e.g. 'refresh'. */
  path: string;
  /** The exact bytes received for this request. */
  raw: string;
  headers: Record<string, string>;
  /** Parsed JSON body; undefined when Content-Length is 0. */
  body: any;
}

export interface Reply {
  status?: number;
  /** Serialised the way the Python agent does. */
  body?: unknown;
  /** Exact bytes to write instead of a formatted answer. */
  raw?: string | Buffer;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Write the answer in pieces of this many bytes, one per event-loop turn. */
  splitEvery?: number;
  /** Write nothing. */
  none?: boolean;
  /** Close the connection after answering (poweroff, reboot, stop, session do). */
  closeAfter?: boolean;
}

export type Script = Reply | ((request: SeenRequest, agent: FakeAgent) => Reply);

export interface FakeAgentOptions {
  /** The server's agent port. */
  port: number;
  /** Source address, any 127.x.y.z. */
  localAddress?: string;
  /** The server's address (127.0.0.1): another only from a network namespace a test made. */
  host?: string;
  mode?: AgentMode;
  /** Link speed in Mb/s reported by a live agent. */
  speed?: number;
  /** The live agent's answer to refresh and setup. */
  configuration?: object;
}

const reasons: Record<number, string> = {
  103: 'Early Hints',
  200: 'OK',
  202: 'Accepted',
  400: 'Bad Request',
  401: 'Unauthorized',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** json.dumps(value) with Python's defaults. */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  }
  if (typeof value === 'string')
    return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value);
}

/** The bytes of an agent answer, as ogRest.py `restResponse` writes them. */
export function answerBytes(status: number, body?: unknown): string {
  const json = body === undefined ? '' : pythonJson(body);
  return `HTTP/1.0 ${status} ${reasons[status] ?? 'Unknown'}\r\nContent-Length: ${json.length}\r\nContent-Type: application/json\r\n\r\n${json}`;
}

/** A live agent's refresh answer: one 100 GiB disk with two partitions (KiB, strings). */
export const defaultConfiguration = {
  serial_number: 'SN-1234',
  disk_setup: [{ disk: '1', disk_type: 'DISK', partition: '0', code: '2', filesystem: '', os: '', size: '104857600', used_size: '0' }],
  partition_setup: [
    { disk: '1', disk_type: '', partition: '1', code: 'ef00', filesystem: 'FAT32', os: '', size: '524288', used_size: '10' },
    {
      disk: '1',
      disk_type: '',
      partition: '2',
      code: '8300',
      filesystem: 'EXT4',
      os: 'Ubuntu 22.04 LTS',
      size: '52428800',
      used_size: '25',
    },
  ],
  link: 1000,
};

const headerEnd = '\r\n\r\n';

export class FakeAgent {
  readonly requests: SeenRequest[] = [];
  /** Bytes that arrived after a complete request in the same read (the real agent drops them). */
  discardedBytes = 0;
  /** When true, answers like a busy agent: 202 to probes, 503 to non-exempt requests. */
  busy = false;
  readonly mode: AgentMode;
  readonly closed: Promise<void>;
  private buffer = '';
  private readonly scripts = new Map<string, { script: Script; always: boolean }[]>();
  private readonly waiters: { test: (r: SeenRequest) => boolean; resolve: (r: SeenRequest) => void }[] = [];
  private isClosed = false;

  private constructor(
    readonly socket: net.Socket,
    private readonly options: FakeAgentOptions,
  ) {
    this.mode = options.mode ?? 'live';
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk.toString('latin1')));
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.isClosed = true;
        resolve();
      }),
    );
  }

  static connect(options: FakeAgentOptions): Promise<FakeAgent> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({
        host: options.host ?? '127.0.0.1',
        port: options.port,
        localAddress: options.localAddress ?? '127.0.0.1',
      });
      const agent = new FakeAgent(socket, options);
      socket.once('connect', () => resolve(agent));
      socket.once('error', reject);
    });
  }

  get isConnected(): boolean {
    return !this.isClosed;
  }

  /** Answer the next request of `path` with `script` (queued; each is used once unless `always`). */
  on(path: string, script: Script, always = false): this {
    this.scripts.set(path, [...(this.scripts.get(path) ?? []), { script, always }]);
    return this;
  }

  /** The first request of `path` not yet taken (number `index`), waiting up to `timeoutMs`. */
  waitFor(path: string, index = 0, timeoutMs = 5000): Promise<SeenRequest> {
    const seen = this.requests.filter((r) => r.path === path);
    if (seen.length > index) return Promise.resolve(seen[index]!);
    let count = seen.length;
    return within(
      new Promise<SeenRequest>((resolve) =>
        this.waiters.push({
          test: (r) => r.path === path && count++ === index,
          resolve,
        }),
      ),
      timeoutMs,
      `fake agent ${this.options.localAddress}: no request #${index} for /${path}`,
    );
  }

  /** Write raw bytes to the server. */
  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** An unsolicited 103 session event, as the agent's UDP helper triggers it. */
  event(action: string, user: string, extra: Record<string, unknown> = {}): void {
    this.write(answerBytes(103, { event: 'session', action, user, ...extra }));
  }

  close(): Promise<void> {
    this.socket.end();
    this.socket.destroySoon?.();
    return within(this.closed, 5000, 'fake agent did not close');
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onData(text: string): void {
    this.buffer += text;
    const end = this.buffer.indexOf(headerEnd);
    if (end < 0) return;
    const head = this.buffer.slice(0, end);
    const headers: Record<string, string> = {};
    for (const line of head.split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? '0');
    const total = end + headerEnd.length + length;
    if (this.buffer.length < total) return;
    const raw = this.buffer.slice(0, total);
    this.discardedBytes += this.buffer.length - total;
    this.buffer = '';
    const [method = '', target = ''] = head.split('\r\n')[0]!.split(' ');
    const bodyText = raw.slice(end + headerEnd.length);
    let body: unknown;
    try {
      body = bodyText ? JSON.parse(bodyText) : undefined;
    } catch {
      body = { unparseable: bodyText };
    }
    const request: SeenRequest = { method, path: target.replace(/^\//, ''), raw, headers, body };
    this.requests.push(request);
    for (const waiter of [...this.waiters]) {
      if (waiter.test(request)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(request);
      }
    }
    void this.answer(request);
  }

  private reply(request: SeenRequest): Reply {
    const list = this.scripts.get(request.path);
    if (list && list.length > 0) {
      const { script } = list[0]!.always ? list[0]! : list.shift()!;
      return typeof script === 'function' ? script(request, this) : script;
    }
    return this.defaultReply(request);
  }

  /** What ogClient answers in each mode. */
  defaultReply(request: SeenRequest): Reply {
    const exempt = ['stop', 'reboot', 'poweroff', 'probe'].includes(request.path);
    if (this.busy && !exempt) return { status: 503 };
    const speed = this.options.speed ?? 1000;
    const configuration = this.options.configuration ?? defaultConfiguration;
    switch (request.path) {
      case 'probe': {
        const idle = { live: { status: 'OPG', speed }, linux: { status: 'LINUX' }, windows: { status: 'WIN' }, virtual: { status: 'VDI' } }[
          this.mode
        ];
        return this.busy ? { status: 202, body: { ...idle, status: 'BSY' } } : { status: 200, body: idle };
      }
      case 'refresh':
      case 'setup':
        if (this.mode === 'linux') return { body: { status: 'LINUX' } };
        if (this.mode === 'windows') return { body: { status: 'WIN' } };
        return { body: configuration };
      case 'hardware':
        return { body: { hardware: 'cpu=Intel Core i5 3.2GHz\nmem=QEMU 8192MiB\nnet=Intel 82540EM Gigabit\n' } };
      case 'software':
        return { body: { partition: request.body?.partition, software: 'Ubuntu 22.04 LTS\nbash 5.1\ncoreutils 8.32\n' } };
      case 'poweroff':
      case 'reboot':
        return { status: 202, closeAfter: true };
      case 'stop':
        return { none: true, closeAfter: true };
      case 'session':
      case 'shell/run':
        return { status: 200 };
      default:
        return { status: 400 };
    }
  }

  private async answer(request: SeenRequest): Promise<void> {
    const reply = this.reply(request);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (!reply.none && this.isConnected) {
      const source = reply.raw ?? answerBytes(reply.status ?? 200, reply.body);
      const bytes = typeof source === 'string' ? Buffer.from(source, 'latin1') : source;
      if (reply.splitEvery) {
        for (let i = 0; i < bytes.length; i += reply.splitEvery) {
          this.socket.write(bytes.subarray(i, i + reply.splitEvery));
          await new Promise((r) => setTimeout(r, 1));
        }
      } else {
        this.socket.write(bytes);
      }
    }
    if (reply.closeAfter) this.socket.end();
  }
}

/** `promise`, or a rejection naming `what` after `ms`: no test waits forever. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Poll `check` until it returns a truthy value, or fail after `ms`. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
