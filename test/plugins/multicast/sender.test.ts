// Engine-independent: runs once, on SQLite.
// System needs: udpcast
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { endLeftSenders } from '../../../plugins/multicast/leftovers';
import { SenderProcess, type SenderOptions } from '../../../plugins/multicast/sender';
import type { StampedFact } from '../../../plugins/multicast/sender-log';
import { SessionRun } from '../../../plugins/multicast/session-run';
import { eventually, within } from '../../support/fake-agent';
import { type NetLab, makeNetLab } from '../../support/netns';

/** udp-sender in the lab's server namespace, as a site's wrapper would run it: `multicast.udp_sender` names a program. */
function senderWrapper(dir: string, lab: NetLab): string {
  const file = path.join(dir, 'udp-sender');
  writeFileSync(file, `#!/bin/sh\nexec ip netns exec ${lab.server} udp-sender "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

interface Bench {
  dir: string;
  lab: NetLab;
  image: string;
  options: SenderOptions;
  receivers: ChildProcess[];
  receive(pc: number): ChildProcess;
  out(pc: number): string;
  close(): void;
}

function bench(pcs: number, bytes: number): Bench {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-sender-'));
  const lab = makeNetLab(pcs);
  const image = path.join(dir, 'image.img');
  writeFileSync(image, randomFillSync(Buffer.alloc(bytes)));
  const receivers: ChildProcess[] = [];
  const out = (pc: number) => path.join(dir, `pc${pc}.img`);
  return {
    dir,
    lab,
    image,
    receivers,
    options: {
      program: senderWrapper(dir, lab),
      file: image,
      port: 9000,
      address: lab.serverIp,
      minReceivers: pcs,
      maxWaitS: 20,
      retriesUntilDrop: 10,
      maxBitrate: '40m',
    },
    receive(pc) {
      const args = ['--portbase', '9000', '--nokbd', '--interface', 'eth0', '--receive-timeout', '5', '--file', out(pc)];
      const child = lab.spawnIn(lab.pcs[pc - 1]!, 'udp-receiver', args, { stdio: 'ignore' });
      receivers.push(child);
      return child;
    },
    out,
    close() {
      for (const r of receivers) r.kill('SIGKILL');
      lab.remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

test("udp-sender's lines are facts: three PCs join, the stream's bytes, each done, and its record is gone once it exits", async () => {
  const b = bench(3, 6_000_000);
  try {
    const facts: StampedFact[] = [];
    const run = new SessionRun(6_000_000);
    for (const ip of b.lab.pcIps) run.add(ip, 'expected', '', null, Date.now());
    for (const pc of [1, 2, 3]) b.receive(pc);
    const sender = new SenderProcess(b.options, { dir: b.dir, session: 7 }, (fact) => {
      facts.push(fact);
      run.fact(fact, Date.now());
    });
    assert.ok(existsSync(path.join(b.dir, 'senders', '7.json')), 'the running sender is recorded');
    const exit = await within(sender.exited, 60_000, 'the stream to end');
    assert.deepEqual(exit, { code: 0, signal: null, lastWords: '' });
    const kinds = facts.map((f) => f.kind);
    assert.equal(facts[0]?.kind, 'version');
    assert.deepEqual(
      facts
        .filter((f) => f.kind === 'joined')
        .map((f) => (f as { ip: string }).ip)
        .sort(),
      b.lab.pcIps,
      'each PC joined, by its address',
    );
    assert.ok(kinds.indexOf('started') > kinds.lastIndexOf('joined'), 'the transfer starts once the three joined');
    const last = facts.filter((f) => f.kind === 'progress').pop() as { bytes: number };
    assert.equal(last.bytes, 6_000_000, 'the last progress line says the whole file');
    assert.ok(kinds.indexOf('complete') < kinds.indexOf('disconnected'), 'complete, then each PC disconnected');
    assert.deepEqual(
      facts.find((f) => f.kind === 'interface'),
      { kind: 'interface', address: b.lab.serverIp, device: 'eth0' },
    );
    run.exit(exit, Date.now(), undefined, 20);
    assert.equal(run.state, 'done');
    assert.deepEqual(
      [...run.clients.values()].map((c) => [c.ip, c.state, c.bytes]),
      b.lab.pcIps.map((ip) => [ip, 'done', 6_000_000]),
    );
    for (const [i, r] of b.receivers.entries()) assert.equal(await exited(r), 0, `receiver ${i + 1} done`);
    for (const pc of [1, 2, 3]) assert.ok(readFileSync(b.out(pc)).equals(readFileSync(b.image)), `PC ${pc} got the file byte for byte`);
    assert.deepEqual(readdirSync(path.join(b.dir, 'senders')), [], 'its record is removed');
    const log = readFileSync(path.join(b.dir, 'session-7.log'), 'utf8');
    assert.match(log, /Transfer complete\./, "the session's log keeps what it said");
  } finally {
    b.close();
  }
});

test('a PC frozen mid-stream (SIGSTOP) is dropped for timeout, named by its address, while the others finish', async () => {
  const b = bench(3, 20_000_000);
  try {
    const run = new SessionRun(20_000_000);
    for (const ip of b.lab.pcIps) run.add(ip, 'expected', '', null, Date.now());
    for (const pc of [1, 2, 3]) b.receive(pc);
    let frozen: number | undefined;
    const sender = new SenderProcess({ ...b.options, maxBitrate: '20m' }, { dir: b.dir, session: 8 }, (fact) => {
      const { clients } = run.fact(fact, Date.now());
      void clients;
      if (fact.kind === 'progress' && fact.bytes > 1_000_000 && frozen === undefined) {
        [frozen] = b.lab.pidsOf(b.lab.pcs[2]!, 'udp-receiver');
        process.kill(frozen!, 'SIGSTOP');
      }
    });
    const exit = await within(sender.exited, 90_000, 'the stream to end');
    assert.equal(exit.code, 0, `the sender finished for the others: ${JSON.stringify(exit)}`);
    run.exit(exit, Date.now(), undefined, 20);
    const [one, two, three] = b.lab.pcIps.map((ip) => run.clients.get(ip)!);
    assert.equal(three!.state, 'dropped', 'the frozen PC is dropped');
    assert.equal(three!.reason, 'timeout');
    assert.ok(three!.bytes > 0 && three!.bytes < 20_000_000, `it had part of the stream (${three!.bytes} bytes)`);
    assert.ok(three!.slow > 0, 'udp-sender waited on it before dropping it');
    assert.deepEqual([one!.state, two!.state], ['done', 'done'], 'the others finish');
    for (const pc of [1, 2]) assert.ok(readFileSync(b.out(pc)).equals(readFileSync(b.image)), `PC ${pc} got the file byte for byte`);
    process.kill(frozen!, 'SIGCONT');
  } finally {
    b.close();
  }
});

test('stop() ends a sender mid-stream at once (it blocks SIGTERM while it sends); a sender that cannot start says why', async () => {
  const b = bench(1, 20_000_000);
  try {
    const run = new SessionRun(20_000_000);
    run.add(b.lab.pcIps[0]!, 'expected', '', null, Date.now());
    b.receive(1);
    let sending!: () => void;
    const started = new Promise<void>((resolve) => (sending = resolve));
    const sender = new SenderProcess({ ...b.options, maxBitrate: '10m' }, { dir: b.dir, session: 9 }, (fact) => {
      run.fact(fact, Date.now());
      if (fact.kind === 'progress' && fact.bytes > 0) sending();
    });
    await within(started, 30_000, 'the stream to start');
    const exit = await within(sender.stop(), 10_000, 'the sender to stop');
    assert.equal(exit.signal, 'SIGINT', JSON.stringify(exit));
    assert.deepEqual(b.lab.pidsOf(b.lab.server, 'udp-sender'), [], 'no udp-sender is left');
    run.exit(exit, Date.now(), { state: 'cancelled', reason: 'cancelled by test' }, 20);
    assert.deepEqual([run.state, run.clients.get(b.lab.pcIps[0]!)?.state], ['cancelled', 'cancelled']);

    const wrong = new SenderProcess({ ...b.options, address: '10.9.9.9' }, { dir: b.dir, session: 10 }, () => {});
    const failed = await within(wrong.exited, 10_000, 'the sender to give up');
    assert.deepEqual(failed, { code: 1, signal: null, lastWords: 'No suitable network interface found' });
    const missing = new SenderProcess({ ...b.options, program: path.join(b.dir, 'no-such-sender') }, { dir: b.dir, session: 11 }, () => {});
    const none = await within(missing.exited, 10_000, 'the spawn to fail');
    assert.match(none.lastWords, /no-such-sender: spawn .* ENOENT/);
  } finally {
    b.close();
  }
});

test("a sender a killed ogserve left is found by its record and ended at the next start; another process with the record's pid is not", async () => {
  const b = bench(1, 1_000_000);
  try {
    // Nobody joins: it waits (up to max_wait_s), as a killed ogserve's sender would go on waiting.
    const sender = new SenderProcess({ ...b.options, maxWaitS: 600 }, { dir: b.dir, session: 12 }, () => {});
    await eventually(() => b.lab.pidsOf(b.lab.server, 'udp-sender').length === 1, 'the sender running');
    // A record whose pid is this test's own process, started at another time: a reused pid.
    writeFileSync(path.join(b.dir, 'senders', '13.json'), JSON.stringify({ session: 13, pid: process.pid, port: 9002, start: '1' }));
    const left = await endLeftSenders(b.dir);
    assert.deepEqual(left.map((l) => [l.session, l.ended]).sort(), [
      [12, true],
      [13, false],
    ]);
    assert.deepEqual(b.lab.pidsOf(b.lab.server, 'udp-sender'), [], 'the left sender is gone');
    assert.equal((await sender.exited).signal, 'SIGKILL');
    assert.deepEqual(readdirSync(path.join(b.dir, 'senders')), [], 'the records are removed');
    assert.deepEqual(await endLeftSenders(b.dir), [], 'nothing is left for the start after');
  } finally {
    b.close();
  }
});

test.run();
