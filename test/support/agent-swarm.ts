import { FakeAgent } from './fake-agent';

/**
 * A child process holding many fake agents, so the bench measures the server's memory
 * alone and each process stays within its file-descriptor limit (10,000 agents in one
 * process with the server would need ~20,000 descriptors).
 * argv: <agent port> <address>...; reports {connected, failed} to the parent, then waits.
 */
async function main(): Promise<void> {
  const [port, ...addresses] = process.argv.slice(2);
  const agents: FakeAgent[] = [];
  let failed = 0;
  const batch = 250;
  for (let i = 0; i < addresses.length; i += batch) {
    await Promise.all(
      addresses.slice(i, i + batch).map((localAddress) =>
        FakeAgent.connect({ port: Number(port), localAddress }).then(
          (agent) => agents.push(agent),
          () => failed++,
        ),
      ),
    );
  }
  process.send!({ connected: agents.length, failed });
  process.on('message', () => {
    for (const agent of agents) agent.destroy();
    process.exit(0);
  });
}

void main();
