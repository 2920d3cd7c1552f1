import type { Logger } from '../log';
import type { Answered } from './hooks';

/**
 * The request log: one line per request, once its answer is sent (or its connection closed
 * first), refused requests included:
 * `<source ip>:<port> <METHOD> /<path> clients=<ip>,<ip> status=<code> ms=<duration>`.
 * The routes consoles poll (`log: false`) are left out.
 */
export function requestLogLine(log: Logger, unlogged: ReadonlySet<string>): (answered: Answered) => void {
  return ({ req, clients, status, ms }) => {
    // Below info nothing would be written: no source address asked for.
    if (!log.isLevelEnabled('info')) return;
    const method = req.method ?? '';
    const path = (req.url ?? '').split('?')[0]!;
    if (unlogged.has(`${method} ${path}`)) return;
    const source = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    log.info(
      { status, ms },
      `${source}:${req.socket.remotePort} ${method} ${path} clients=${clients.join(',')} status=${status ?? 'aborted'} ms=${ms}`,
    );
  };
}
