import { FakeAgent, answerBytes } from '../../test/support/fake-agent';

/**
 * A child process holding fake agents that answer every hardware request with one large
 * answer (the same bytes for all, made once), so the bench server reads them from another
 * process, as real agents' answers come.
 * An agent the service drops connects again at once.
 * argv: <agent port> <answer bytes> <shape> <address>...; reports {connected} to the parent.
 * Shapes: `text`, one long string (a shell output, a huge inventory line); `lines`, hardware
 * lines of a plausible length; `values`, a long JSON array of small numbers (the most objects
 * a parser can be made to build per byte).
 */
async function main(): Promise<void> {
  const [port, bytes, shape, ...addresses] = process.argv.slice(2);
  const answer = largeAnswer(Number(bytes), shape as Shape);
  const agents = new Map<string, FakeAgent>();
  let stopping = false;
  // An agent the service drops connects again at once, as real agents do.
  const connect = async (localAddress: string): Promise<void> => {
    const agent = await FakeAgent.connect({ port: Number(port), localAddress });
    agent.on('hardware', { raw: answer }, true);
    agents.set(localAddress, agent);
    void agent.closed.then(() => {
      if (!stopping) void connect(localAddress);
    });
  };
  await Promise.all(addresses.map(connect));
  process.send!({ connected: agents.size });
  process.on('message', () => {
    stopping = true;
    for (const agent of agents.values()) agent.destroy();
    process.exit(0);
  });
}

type Shape = 'text' | 'lines' | 'values';

/** A 200 answer to hardware of about `bytes` bytes in all. */
function largeAnswer(bytes: number, shape: Shape): Buffer {
  const room = bytes - answerBytes(200, { hardware: '' }).length;
  let body: unknown;
  if (shape === 'text') body = { hardware: `cpu=${'x'.repeat(room - 4)}` };
  else if (shape === 'lines') {
    const line = 'dis=ATA Samsung SSD 870 EVO 1TB, serial S6PUNX0T123456, firmware SVT02B6Q\n';
    body = { hardware: line.repeat(Math.floor(room / line.length)) };
  } else {
    // "[1, 2, ...]": three bytes an element once past the header.
    body = { hardware: 'cpu=x\n', values: Array.from({ length: Math.floor((room - 20) / 3) }, () => 7) };
  }
  return Buffer.from(answerBytes(200, body), 'latin1');
}

void main();
