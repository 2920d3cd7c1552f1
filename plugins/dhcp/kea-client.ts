import http from 'node:http';

/** Kea's own result codes (Control Agent answers, one per service). */
export const KeaResult = { success: 0, error: 1, unsupported: 2, empty: 3 } as const;

export type KeaConfig = Record<string, unknown>;

/** Kea did not answer (the agent down, or the agent up and kea-dhcp4 behind it down): try again later. */
export class KeaUnreachable extends Error {
  override readonly name = 'KeaUnreachable';
}

/** Kea answered and said no (config-test or config-set refused the configuration). */
export class KeaRefused extends Error {
  override readonly name = 'KeaRefused';
}

export interface KeaAnswer {
  result: number;
  text?: string;
  arguments?: Record<string, unknown>;
}

/**
 * The Control Agent's REST API, as Kea 2.2 documents it: one POST per command, with
 * `"service": ["dhcp4"]`, answered by a list holding the server's answer.
 */
export class KeaControl {
  constructor(
    private readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async command(command: string, args?: Record<string, unknown>): Promise<KeaAnswer> {
    const body = JSON.stringify(args === undefined ? { command, service: ['dhcp4'] } : { command, service: ['dhcp4'], arguments: args });
    const text = await this.post(body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new KeaUnreachable(`${command}: the Control Agent answered something that is not JSON`);
    }
    const answer = (Array.isArray(parsed) ? parsed[0] : parsed) as KeaAnswer | undefined;
    if (!answer || typeof answer.result !== 'number') throw new KeaUnreachable(`${command}: the Control Agent answered no result`);
    // The agent answers 1 "forwarding failed" / "unable to forward" when kea-dhcp4's socket is not there.
    if (answer.result === KeaResult.error && /forward|connect|socket/i.test(answer.text ?? ''))
      throw new KeaUnreachable(`${command}: ${answer.text}`);
    return answer;
  }

  /** config-get: the running Dhcp4 section. */
  async configGet(): Promise<KeaConfig> {
    const answer = await this.command('config-get');
    const dhcp4 = answer.arguments?.Dhcp4;
    if (answer.result !== KeaResult.success || !dhcp4 || typeof dhcp4 !== 'object')
      throw new KeaUnreachable(`config-get: ${answer.text ?? `result ${answer.result}`}`);
    return dhcp4 as KeaConfig;
  }

  /**
   * config-write to the file Kea was started with; the error text when it cannot. Kea
   * reopens its control socket on config-set: a moment later the agent may not reach it yet.
   */
  async configWrite(): Promise<string | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.command('config-write');
        return answer.result === KeaResult.success ? undefined : `config-write: ${answer.text ?? `result ${answer.result}`}`;
      } catch (error) {
        if (!(error instanceof KeaUnreachable) || attempt === 10) return `config-write: ${(error as Error).message}`;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  private post(body: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        this.url,
        {
          method: 'POST',
          agent: false,
          timeout: this.timeoutMs,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', (error) => reject(new KeaUnreachable(error.message)));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${this.timeoutMs} ms`)));
      req.on('error', (error) => reject(new KeaUnreachable(`the Control Agent at ${this.url}: ${error.message}`)));
      req.end(body);
    });
  }
}
