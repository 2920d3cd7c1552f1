import http from 'node:http';
import { Config } from './config';
import { type Command, UsageError } from './command';
import { parseOptions } from './options';

/**
 * `ogserve wait-ready [--config FILE] [--timeout SECONDS]`: wait until the service that
 * config describes answers GET /readyz with 200 (exit 0), or give up (exit 1). The systemd
 * unit runs it after the start, so the unit is "started" only once the service can serve.
 */
export const waitReady: Command = {
  name: 'wait-ready',
  summary: 'wait until the service answers GET /readyz (for systemd and scripts)',
  usage: [
    'Usage: ogserve wait-ready [--config FILE] [--timeout SECONDS]',
    '',
    'Polls GET /readyz of the REST interface the config describes (rest.ip, rest.port;',
    'every address means this host, 127.0.0.1) until it answers 200. Exit 0 when ready,',
    '1 when the timeout (default 60 s) passes first.',
  ].join('\n'),
  async run(args) {
    const options = parseOptions(args, { values: { '--config': ['-f'], '--timeout': ['-t'] } });
    if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
    const timeout = Number(options.values['--timeout'] ?? 60);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError('--timeout must be a number of seconds');
    const { rest } = new Config(options.values['--config']).core;
    const host = rest.ip === '0.0.0.0' ? '127.0.0.1' : rest.ip;
    const deadline = Date.now() + timeout * 1000;
    let last = 'no answer';
    while (Date.now() < deadline) {
      const status = await readyStatus(host, rest.port);
      if (status === 200) return 0;
      last = status === undefined ? 'no answer' : `status ${status}`;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    process.stderr.write(`ogserve: not ready at http://${host}:${rest.port}/readyz after ${timeout} s (${last})\n`);
    return 1;
  },
};

function readyStatus(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/readyz', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}
