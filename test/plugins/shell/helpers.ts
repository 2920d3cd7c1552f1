import assert from 'node:assert/strict';
import { eventually } from '../../support/fake-agent';
import { type Lab, addresses, startLab } from '../../support/lab';

export interface ShellOutput {
  addr: string;
  retcode: number | null;
  cmd: string;
  timestamp: number;
  output: string;
}

export interface ShellSite extends Lab {
  /** POST /shell/output for `ips`, asserting 200. */
  output(ips: string[]): Promise<ShellOutput[]>;
  /** POST /shell/output for `ips` once it lists `count` clients (waits up to 5 s). */
  outputOnce(ips: string[], count?: number): Promise<ShellOutput[]>;
}

/** A server with the shell plugin and `count` clients 127.0.3.1, ... whose first `connected` fake agents are connected and idle. */
export async function shellSite(count: number, shell: Record<string, unknown> = {}, connected = count): Promise<ShellSite> {
  const lab = await startLab({
    ips: addresses('127.0.3', count),
    server: { config: { plugins: ['inventory', 'agents', 'shell'], shell } },
  });
  try {
    for (const ip of lab.ips.slice(0, connected)) await lab.connect(ip);
  } catch (error) {
    await lab.close();
    throw error;
  }
  const output = async (asked: string[]): Promise<ShellOutput[]> => {
    const r = await lab.s.post('/shell/output', { clients: asked });
    assert.equal(r.status, 200, `POST /shell/output: ${r.text}`);
    return r.body.clients;
  };
  return {
    ...lab,
    output,
    async outputOnce(asked, count = asked.length) {
      let last: ShellOutput[] = [];
      await eventually(async () => (last = await output(asked)).length === count, `${count} result(s) for ${asked.join(',')}`);
      return last;
    },
  };
}
