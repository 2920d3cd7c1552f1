import type { Logger } from 'ogserve';

/**
 * A command that failed, logged once, at warn, by the instance that knows it failed: the one
 * holding the agent (no answer in time, disconnected mid-command, interrupted), the one that
 * stores the answer (an error status, an answer that could not be stored), or the one that
 * asked when the instance holding the agent is gone. Fields: the client's address (`ip`, as
 * every agent log line), `command` (its path) and `reason`. Successes are not logged: the
 * events (command.answered) say them.
 */
export function logCommandFailure(log: Logger, ip: string, command: string, reason: string, extra: object = {}): void {
  log.warn({ ...extra, ip, command, reason }, `command ${command} to ${ip} failed: ${reason}`);
}
