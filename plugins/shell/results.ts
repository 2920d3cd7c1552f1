import { inject, injectable, PluginConfig } from 'ogserve';

/** What GET/POST /shell/output shows for one client. */
export interface ShellResult {
  /** The command string as the REST caller sent it. */
  cmd: string;
  /** The agent's return code; null when the agent did not report one (the reference agent). */
  retcode: number | null;
  /** Seconds since 1970 when the answer arrived. */
  timestamp: number;
  output: string;
}

/**
 * The last shell command of each client and its result, in memory only. Each stored output
 * holds at most `maxOutputBytes` bytes of UTF-8 (its end, where errors usually are), so the
 * whole store stays under clients x maxOutputBytes. Sending a new command drops the result
 * of the older one: a client shows nothing while its newest command runs, and nothing if
 * that command fails without output.
 */
@injectable()
export class ShellResults {
  private readonly results = new Map<string, ShellResult>();
  /** Clients with a command on its way, with the command as sent. */
  private readonly running = new Map<string, string>();

  private readonly maxOutputBytes: number;

  constructor(@inject(PluginConfig) config: { max_output_bytes: number }) {
    this.maxOutputBytes = config.max_output_bytes;
  }

  started(ip: string, cmd: string): void {
    this.results.delete(ip);
    this.running.set(ip, cmd);
  }

  /** The command as sent to a running client (undefined when this plugin did not send it). */
  commandOf(ip: string): string | undefined {
    return this.running.get(ip);
  }

  /** Keep a result (its output's end when too long); returns what was kept. */
  store(ip: string, result: ShellResult): ShellResult {
    const kept = { ...result, output: lastBytes(result.output, this.maxOutputBytes) };
    this.results.set(ip, kept);
    return kept;
  }

  finished(ip: string): void {
    this.running.delete(ip);
  }

  forget(ip: string): void {
    this.results.delete(ip);
  }

  /** Results of the clients asked, in the order asked; running and never-run clients left out. */
  view(ips: string[]): (ShellResult & { addr: string })[] {
    const out: (ShellResult & { addr: string })[] = [];
    for (const ip of new Set(ips)) {
      const result = this.results.get(ip);
      if (result && !this.running.has(ip))
        out.push({ addr: ip, retcode: result.retcode, cmd: result.cmd, timestamp: result.timestamp, output: result.output });
    }
    return out;
  }
}

/** The end of `text` that fits in `max` bytes of UTF-8, cut on a character boundary. */
export function lastBytes(text: string, max: number): string {
  if (Buffer.byteLength(text, 'utf8') <= max) return text;
  const bytes = Buffer.from(text, 'utf8');
  let start = bytes.length - max;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString('utf8');
}
