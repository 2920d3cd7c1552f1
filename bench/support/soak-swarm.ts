import { FakeAgent, type SeenRequest } from '../../test/support/fake-agent';

/**
 * A child process of the soak holding many live fake agents that keep answering whatever
 * the service sends (probes, refreshes, shell runs). argv: <agent port> <address>...
 * Messages in: 'stats' (reply with counts), 'leave' (close every agent, reply, exit).
 * Messages out: {connected, failed} once connected; {requests, disconnected} on 'stats'.
 */
async function main(): Promise<void> {
  const [port, ...addresses] = process.argv.slice(2);
  const agents: FakeAgent[] = [];
  let failed = 0;
  let disconnected = 0;
  let leaving = false;
  const requests: Record<string, number> = {};
  const shell = (request: SeenRequest) => ({ body: { cmd: request.body?.run ?? '', out: `ran ${request.body?.run ?? ''}\n`, retcode: 0 } });
  const batch = 250;
  for (let i = 0; i < addresses.length; i += batch) {
    await Promise.all(
      addresses.slice(i, i + batch).map((localAddress) =>
        FakeAgent.connect({ port: Number(port), localAddress }).then(
          (agent) => {
            agents.push(agent);
            agent.on('shell/run', shell, true);
            agent.socket.on('data', (chunk: Buffer) => {
              const path = /^[A-Z]+ \/(\S+)/.exec(chunk.toString('latin1', 0, 64))?.[1];
              if (path) requests[path] = (requests[path] ?? 0) + 1;
            });
            // Any close the soak did not ask for is a lost agent.
            void agent.closed.then(() => {
              if (!leaving) disconnected++;
            });
          },
          () => failed++,
        ),
      ),
    );
  }
  // The fake agent keeps every request it saw, for tests; a soak would grow without bound.
  setInterval(
    () =>
      agents.forEach((agent) => {
        agent.requests.length = 0;
      }),
    10_000,
  ).unref();
  process.send!({ connected: agents.length, failed });
  process.on('message', (message) => {
    if (message === 'stats') process.send!({ requests, disconnected });
    if (message === 'leave') {
      leaving = true;
      for (const agent of agents) agent.destroy();
      process.send!({ requests, disconnected }, () => process.exit(0));
    }
  });
}

void main();
