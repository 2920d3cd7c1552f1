import { inject, injectable, type PluginEvents, type Logger, PluginLog } from 'ogserve';

type Kind = 'create' | 'restore';

/** What a create or restore request sent to a client was about. */
interface Run {
  kind: Kind;
  name: string;
  /** Known for a restore and a refresh when sent; a new image's once its record is stored. */
  id?: number;
}

const paths: Record<string, Kind> = { 'image/create': 'create', 'image/restore': 'restore' };

/**
 * One log line when an image create or restore ends, the only sign in the log that an hours
 * long command finished: the client, the image, success or why not, and how long it took.
 * An agent runs one command at a time, so the client's address identifies the run. How the
 * command ended comes from the agent link's command events; what it was about is noted
 * here when its request is made (by a REST call or a queued step alike).
 */
@injectable()
export class ImageRunLog {
  private readonly runs = new Map<string, Run>();

  constructor(@inject(PluginLog) private readonly log: Logger) {}

  /** A create or restore request was made for `ip`. */
  requested(ip: string, run: Run): void {
    this.runs.set(ip, run);
  }

  /** The answer to `ip`'s create was stored as image `id`. */
  stored(ip: string, id: number): void {
    const run = this.runs.get(ip);
    if (run?.kind === 'create') run.id = id;
  }

  listen(events: PluginEvents): void {
    events.on('command.answered', ({ client, command, status, result, duration_ms }) => {
      if (result === 'success') this.ended(client, command, duration_ms);
      else
        this.ended(client, command, duration_ms, status === 200 ? 'its answer could not be stored' : `the agent answered ${status}`, {
          status,
        });
    });
    events.on('command.failed', ({ client, command, reason, duration_ms }) =>
      this.ended(
        client,
        command,
        duration_ms,
        reason === 'disconnected'
          ? 'the agent disconnected'
          : reason === 'interrupted'
            ? 'another command interrupted it'
            : `it failed (${reason})`,
        { reason },
      ),
    );
    events.on('command.timed_out', ({ client, command, duration_ms }) =>
      this.ended(client, command, duration_ms, 'no answer within agents.command_timeout_s', { reason: 'timeout' }),
    );
  }

  private ended(ip: string, command: string, durationMs: number, failure?: string, fields: Record<string, unknown> = {}): void {
    const kind = paths[command];
    if (!kind) return;
    const run = this.runs.get(ip);
    if (run?.kind === kind) this.runs.delete(ip);
    const known = run?.kind === kind ? run : undefined;
    // Asked on another instance of a cluster: what it was about is known there.
    const image = known ? `image '${known.name}'${known.id ? ` (id ${known.id})` : ''}` : 'image';
    const where = `${kind === 'create' ? 'from' : 'to'} ${ip}${known ? '' : ' (asked on another instance)'}`;
    const seconds = (durationMs / 1000).toFixed(1);
    const record = {
      client: ip,
      image: known?.id ?? null,
      name: known?.name ?? null,
      command,
      duration_s: Number(seconds),
      ...fields,
    };
    const done = kind === 'create' ? 'created' : 'restored';
    if (!failure) this.log.info({ ...record, ok: true }, `${image} ${done} ${where} in ${seconds} s`);
    else this.log.warn({ ...record, ok: false }, `${image} not ${done} ${where}: ${failure}, after ${seconds} s`);
  }
}
