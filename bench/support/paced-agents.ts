import { FakeAgent } from '../../test/support/fake-agent';

/**
 * A child process holding fake agents that answer `refresh` each at its own time: after
 * `quietMs`, spread at random over `spreadMs`, as a lab's PCs finish at their own pace. It
 * keeps when each answer was written, for the parent to measure how long a page took to show it.
 * argv: <agent port> <quiet ms> <spread ms> <address>...; reports {connected}, then on any
 * message {answeredAt: {address: epoch ms}} and exits.
 */
async function main(): Promise<void> {
  const [port, quiet, spread, ...addresses] = process.argv.slice(2);
  const answeredAt: Record<string, number> = {};
  const agents = await Promise.all(
    addresses.map(async (localAddress) => {
      const agent = await FakeAgent.connect({ port: Number(port), localAddress });
      agent.on(
        'refresh',
        (request, self) => {
          const delayMs = Number(quiet) + Math.random() * Number(spread);
          answeredAt[localAddress] = Date.now() + delayMs;
          return { ...self.defaultReply(request), delayMs };
        },
        true,
      );
      return agent;
    }),
  );
  process.send!({ connected: agents.length });
  process.on('message', () => {
    process.send!({ answeredAt }, () => {
      for (const agent of agents) agent.destroy();
      process.exit(0);
    });
  });
}

void main();
