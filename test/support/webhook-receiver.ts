import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver in a child process of its own, so that receiving costs the server's
 * event loop nothing (as a real receiver elsewhere would). `healthy` answers 204 at once,
 * `failing` 500, `hanging` reads each delivery and never answers.
 */
export type ReceiverMode = 'healthy' | 'failing' | 'hanging';

export interface WebhookReceiver {
  url: string;
  /** How many deliveries came so far. */
  count(): Promise<number>;
  /** The event ids received so far, in the order they came. */
  ids(): Promise<number[]>;
  close(): void;
}

export async function startWebhookReceiver(mode: ReceiverMode): Promise<WebhookReceiver> {
  const proc: ChildProcess = fork(__filename, [mode], { stdio: 'inherit' });
  const { port } = await new Promise<{ port: number }>((resolve) => proc.once('message', (m) => resolve(m as { port: number })));
  const ask = <T>(question: 'count' | 'ids'): Promise<T> =>
    new Promise((resolve) => {
      proc.once('message', (m) => resolve(m as T));
      proc.send(question);
    });
  return {
    url: `http://127.0.0.1:${port}/${mode}`,
    count: () => ask<number>('count'),
    ids: () => ask<number[]>('ids'),
    close: () => void proc.kill(),
  };
}

/** The child: argv <mode>; sends {port} once listening, then answers 'count' and 'ids'. */
function serve(mode: ReceiverMode): void {
  const ids: number[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      ids.push((JSON.parse(body) as { id: number }).id);
      if (mode === 'healthy') res.writeHead(204).end();
      else if (mode === 'failing') res.writeHead(500).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (question) => process.send!(question === 'count' ? ids.length : ids));
  process.on('disconnect', () => process.exit(0));
}

if (require.main === module) serve(process.argv[2] as ReceiverMode);
