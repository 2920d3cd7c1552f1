import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { FakeAgent, answerBytes } from './fake-agent';

/**
 * A PC of a namespace lab: run inside the PC's network namespace (`ip netns exec`), it
 * connects to the server's agent port from the PC's own address as the reference agent does,
 * and answers an image/restore as the agent does with the ogLive's restoreImageCustom hook on
 * its PATH: it runs the hook with `repo name disk partition type`, then answers 200 when it
 * exits 0 (the agent's `{disk, partition, image_id}`), 500 otherwise. It connects again
 * whenever the service goes. One JSON line on stdout per event: `{"ready": true}` at each
 * connection, `{"restore": <exit code>, "type": "..."}`.
 *
 *   node lab-agent.js '{"server": "192.168.77.1", "port": 18889, "ip": "192.168.77.11", "hook": "...", "target": "..."}'
 */
interface Options {
  server: string;
  port: number;
  ip: string;
  hook: string;
  /** The PC's partition: a file of the partition's size (OGSERVE_TARGET of the hook). */
  target: string;
}

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** One connection: the agent answers until the service closes it (a restart, a kill). */
async function serve(agent: FakeAgent): Promise<void> {
  agent.on(
    'image/restore',
    (request) => {
      const { repository, name, disk, partition, type, id } = request.body as Record<string, string>;
      // What the hook says (udp-receiver, partclone) goes beside the partition, for a failure's reading.
      const log = openSync(`${options.target}.log`, 'a');
      const hook = spawn(options.hook, [repository!, name!, disk!, partition!, type!], {
        env: { ...process.env, OGSERVE_TARGET: options.target, OGSERVE_RECEIVE_TIMEOUT: '10' },
        stdio: ['ignore', 'ignore', log],
      });
      closeSync(log);
      hook.once('exit', (code) => {
        say({ restore: code, type });
        agent.write(code === 0 ? answerBytes(200, { disk, partition, image_id: id }) : answerBytes(500, {}));
      });
      return { none: true };
    },
    true,
  );
  await agent.waitFor('refresh', 0, 30_000);
  say({ ready: true });
  await agent.closed;
}

/** Connects, and connects again whenever the service goes, as the agent does. */
async function main(): Promise<void> {
  for (;;) {
    const agent = await FakeAgent.connect({ port: options.port, host: options.server, localAddress: options.ip }).catch(() => undefined);
    if (agent) await serve(agent).catch(() => agent.destroy());
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`lab agent ${options.ip}: ${(error as Error).message}\n`);
  process.exit(1);
});
