import assert from 'node:assert/strict';
import { test } from 'uvu';
import { EventStreamClient } from '../../support/event-stream';
import { eventually } from '../../support/fake-agent';
import { startLab } from '../../support/lab';

interface Entry {
  time: string;
  kind: string;
  summary: string;
  who: string | null;
  state: string | null;
  data: Record<string, unknown>;
}

const sessions = async (s: { get(path: string): Promise<{ body: { entries: Entry[] } }> }, ip: string, query = '') =>
  (await s.get(`/client/timeline?client=${ip}${query}`)).body.entries.filter((e) => e.kind === 'session');

test("sign-ins and sign-outs the agents report (103 events) are on each PC's timeline with the user's name, announced as client.session", async () => {
  const x = await startLab({ ips: ['127.0.71.1', '127.0.71.2'] });
  try {
    const [win, lin] = x.ips as [string, string];
    const stream = await EventStreamClient.open(x.s.port, 'types=client.session');
    const windows = await x.connect(win, { mode: 'windows' });
    const linux = await x.connect(lin, { mode: 'linux' });
    windows.event('start', 'ana.garcia');
    linux.event('start', 'luis');
    await eventually(async () => (await x.entry(win))?.state === 'WINS', 'WINS');
    windows.event('stop', 'ana.garcia');
    await eventually(async () => (await x.entry(win))?.state === 'WIN', 'WIN again');

    const seen = (await eventually(async () => {
      const got = await sessions(x.s, win);
      return got.length === 2 ? got : undefined;
    }, 'the sign-in and the sign-out on the timeline'))!;
    assert.deepEqual(
      seen.map((e) => [e.state, e.who, e.data.user, e.data.os, e.summary]),
      [
        ['stop', 'ana.garcia', 'ana.garcia', 'Windows', 'ana.garcia signed out'],
        ['start', 'ana.garcia', 'ana.garcia', 'Windows', 'ana.garcia signed in'],
      ],
      'newest first, the user as who',
    );
    assert.ok(Date.parse(seen[0]!.time) >= Date.parse(seen[1]!.time), 'in order');
    const other = (await eventually(async () => {
      const got = await sessions(x.s, lin);
      return got.length === 1 ? got : undefined;
    }, "the other PC's sign-in"))!;
    assert.deepEqual([other[0]!.who, other[0]!.data.os], ['luis', 'Linux'], 'each PC its own');
    // Paged as the rest: before the sign-out's time, only the sign-in is left.
    const older = await sessions(x.s, win, `&before=${Date.parse(seen[0]!.time)}`);
    assert.ok(
      older.every((e) => e.state === 'start'),
      'a page before the sign-out',
    );

    await stream.waitFor(() => stream.events.length === 3, 'three client.session events');
    assert.deepEqual(
      stream.events.map((e) => [e.data.client, e.data.action, e.data.user, e.data.os]),
      [
        [win, 'start', 'ana.garcia', 'Windows'],
        [lin, 'start', 'luis', 'Linux'],
        [win, 'stop', 'ana.garcia', 'Windows'],
      ],
    );
    stream.close();

    // A refused event (no session to stop) is not recorded: the sign-in after it is, alone.
    linux.event('stop', 'luis');
    linux.event('stop', 'luis');
    linux.event('start', 'marta');
    const after = (await eventually(async () => {
      const got = await sessions(x.s, lin);
      return got.some((e) => e.who === 'marta') ? got : undefined;
    }, 'the next sign-in'))!;
    assert.deepEqual(
      after.map((e) => [e.state, e.who]),
      [
        ['start', 'marta'],
        ['stop', 'luis'],
        ['start', 'luis'],
      ],
      'one sign-out: the second, refused, is not on the timeline',
    );
  } finally {
    await x.close();
  }
});

test.run();
