// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { type MulticastLab, startMulticastLab } from '../../support/multicast-lab';

/**
 * Issue 55's lab: the real service in a network namespace, three PCs on a bridge restoring a
 * real partition image through the shipped ogLive hook (udp-receiver | lzop -dc |
 * partclone.restore), each PC's fate read from udp-sender by the service.
 */

let lab: MulticastLab;

test.before(async () => {
  lab = await startMulticastLab();
});

test.after(async () => {
  await lab?.close();
});

const restore = async () => {
  lab.blank();
  const r = await lab.request('POST', '/image/restore', {
    clients: lab.net.pcIps,
    disk: '1',
    partition: '2',
    id: String(lab.image),
    type: 'MULTICAST',
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(
    r.body.clients.map((c: { outcome: string }) => c.outcome),
    ['sent', 'sent', 'sent'],
  );
  const listed = await lab.request('GET', `/multicast/sessions?job=${r.body.job}`);
  return { job: r.body.job as number, session: listed.body.sessions[0].id as number };
};

const session = async (id: number) => (await lab.request('GET', `/multicast/sessions/${id}`)).body;
const jobLines = async (job: number) =>
  ((await lab.request('GET', `/jobs/${job}`)).body.clients as { addr: string; state: string; outcome: string }[]).map((c) => [
    c.addr,
    c.state,
    c.outcome,
  ]);
/** Once the stream runs: some bytes sent. */
const streaming = (id: number) => eventually(async () => (await session(id)).bytes > 0, `session ${id} streaming`, 30_000);
const restores = (pc: number) => lab.said[pc]!.filter((l) => 'restore' in l).length;

test('one stream restores the three PCs: each partition byte for byte as the image was made, e2fsck clean; each PC done in its job', async () => {
  const { job, session: id } = await restore();
  await eventually(async () => (await jobLines(job)).every(([, state]) => state !== 'sent'), 'every PC answered', 60_000);
  assert.deepEqual(
    await jobLines(job),
    lab.net.pcIps.map((ip) => [ip, 'done', 'success']),
  );
  const done = await session(id);
  assert.deepEqual([done.state, done.joined, done.expected, done.address, done.interface], ['done', 3, 3, lab.net.serverIp, 'eth0']);
  assert.deepEqual(
    done.clients.map((c: { addr: string; state: string; bytes: number }) => [c.addr, c.state, c.bytes]),
    lab.net.pcIps.map((ip) => [ip, 'done', done.size]),
  );
  const original = readFileSync(lab.partition);
  for (const [i, target] of lab.targets.entries()) {
    assert.ok(readFileSync(target).equals(original), `PC ${i + 1}'s partition is the image's, byte for byte`);
    execFileSync('e2fsck', ['-fn', target], { stdio: 'ignore' });
  }
});

test('a PC frozen mid-stream (SIGSTOP) is dropped and reported as such, while the other two finish', async () => {
  const before = restores(2);
  const { job, session: id } = await restore();
  await streaming(id);
  const [frozen] = lab.net.pidsOf(lab.net.pcs[2]!, 'udp-receiver');
  assert.ok(frozen, "PC 3's udp-receiver");
  process.kill(frozen, 'SIGSTOP');
  try {
    await eventually(async () => (await jobLines(job)).slice(0, 2).every(([, state]) => state === 'done'), 'the other two done', 60_000);
    const after = await session(id);
    assert.equal(after.state, 'done');
    const [one, two, three] = after.clients;
    assert.deepEqual([one.state, two.state], ['done', 'done']);
    assert.deepEqual([three.addr, three.state, three.reason], [lab.net.pcIps[2], 'dropped', 'timeout']);
    assert.ok(three.bytes > 0 && three.bytes < after.size, `it had part of the stream: ${three.bytes} of ${after.size} bytes`);
    const [, , line] = await jobLines(job);
    assert.equal(line![1], 'failed', 'its job line failed as soon as it was dropped, before its agent answered');
    assert.match(
      line![2]!,
      new RegExp(
        `^dropped from multicast session ${id} \\(timeout\\) at \\d{4}-\\d\\d-\\d\\dT.*Z, after ${three.bytes} of ${after.size} bytes$`,
      ),
    );
    const original = readFileSync(lab.partition);
    for (const pc of [0, 1]) assert.ok(readFileSync(lab.targets[pc]!).equals(original), `PC ${pc + 1} restored`);
  } finally {
    process.kill(frozen, 'SIGCONT');
  }
  // Let go, it finds no more stream: its hook fails, and its agent answers (a failure its job line already has).
  await eventually(() => restores(2) > before, "PC 3's hook ended", 30_000);
  assert.deepEqual((lab.said[2]!.filter((l) => 'restore' in l).pop() as { restore: number }).restore, 4, 'exit 4: the stream failed');
  assert.equal((await jobLines(job))[2]![1], 'failed');
});

test('cancel mid-stream: the sender stops, every PC is cancelled in the session and failed in its job', async () => {
  const { job, session: id } = await restore();
  await streaming(id);
  const r = await lab.request('DELETE', `/multicast/sessions/${id}`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.state, 'cancelled');
  assert.deepEqual(
    r.body.clients.map((c: { state: string }) => c.state),
    ['cancelled', 'cancelled', 'cancelled'],
  );
  assert.deepEqual(lab.net.pidsOf(lab.net.server, 'udp-sender'), [], 'no sender');
  await eventually(
    async () =>
      (await jobLines(job)).every(
        ([, state, outcome]) => state === 'failed' && outcome === `multicast session ${id} was cancelled by api_token`,
      ),
    'every job line failed, saying the session was cancelled',
  );
  // The hooks give up once nothing comes (receive timeout): the agents are free again.
  await eventually(
    async () => ((await lab.request('GET', '/clients')).body.clients as { state: string }[]).every((c) => c.state !== 'BSY'),
    'the agents idle',
    60_000,
  );
});

test('ogserve killed mid-session leaves no udp-sender once it starts again; the session is failed, saying so', async () => {
  // PC 3's agent hangs (stopped): it is sent the restore and never joins, so the sender waits
  // (silently: a sender streaming to a dead ogserve dies at its next line, of SIGPIPE).
  const [agent3] = [lab.agents[2]!];
  process.kill(agent3.pid!, 'SIGSTOP');
  let pid: number | undefined;
  try {
    const { job, session: id } = await restore();
    await eventually(async () => (await session(id)).joined === 2, 'two PCs joined, the sender waiting for the third', 30_000);
    [pid] = lab.net.pidsOf(lab.net.server, 'udp-sender');
    assert.ok(pid, 'the sender');
    await lab.kill();
    assert.deepEqual(lab.net.pidsOf(lab.net.server, 'udp-sender'), [pid], 'the killed service left its sender running');
    await lab.start(2);
    assert.deepEqual(lab.net.pidsOf(lab.net.server, 'udp-sender'), [], 'the start ended it');
    const failed = await session(id);
    assert.deepEqual(
      [failed.state, failed.reason],
      ['failed', `ogserve stopped without ending its sender (pid ${pid}), which its next start ended`],
    );
    assert.deepEqual(
      failed.clients.map((c: { state: string }) => c.state),
      ['failed', 'failed', 'missing'],
    );
    assert.deepEqual(
      (await jobLines(job)).map(([, state]) => state),
      ['failed', 'failed', 'failed'],
      'its job ended: no answer can come to a stopped service',
    );
    assert.ok(
      lab.service.lines.some((l) => l.includes(`ended udp-sender (pid ${pid}) that ogserve left running when it was stopped`)),
      'the start says what it ended',
    );
  } finally {
    process.kill(agent3.pid!, 'SIGCONT');
  }
});

test.run();
