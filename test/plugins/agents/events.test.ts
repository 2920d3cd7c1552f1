import assert from 'node:assert/strict';
import { test } from 'uvu';
import { answerBytes, eventually } from '../../support/fake-agent';
import { type Site, site } from './helpers';

test('103 session events move LNX<->LNXS and WIN<->WINS and are logged', async () => {
  const x = await site(2);
  try {
    const [lin, win] = x.ips as [string, string];
    const linux = await x.connect(lin, { mode: 'linux' });
    const windows = await x.connect(win, { mode: 'windows' });
    linux.event('start', 'alice');
    windows.event('start', 'bob');
    await eventually(async () => (await x.entry(lin))?.state === 'LNXS', 'LNXS');
    await eventually(async () => (await x.entry(win))?.state === 'WINS', 'WINS');
    assert.ok(
      x.s.logs.some((l) => l.msg === `User logged in: ip=${lin}, user=alice, os=Linux`),
      'login logged',
    );
    linux.event('stop', 'alice');
    windows.event('stop', 'bob');
    await eventually(async () => (await x.entry(lin))?.state === 'LNX', 'LNX again');
    await eventually(async () => (await x.entry(win))?.state === 'WIN', 'WIN again');
    assert.ok(
      x.s.logs.some((l) => l.msg === `User logged out: ip=${win}, user=bob, os=Windows`),
      'logout logged',
    );
  } finally {
    await x.close();
  }
});

/** How many ignored events the log accounts for: first lines count 1, summaries their count. */
function ignoredEvents(x: Site, ip?: string): number {
  return x.s.logs
    .filter((l) => /agent event ignored/.test(l.msg) && (ip === undefined || l.ip === ip))
    .reduce((sum, l) => sum + Number(l.count), 0);
}

test('events that make no sense are logged and ignored, not a disconnect', async () => {
  const x = await site(2, { peer_log_interval_s: 0.2 });
  try {
    const [live, lin] = x.ips as [string, string];
    const agent = await x.connect(live);
    const linux = await x.connect(lin, { mode: 'linux' });
    agent.event('start', 'carol'); // OPG has no session
    linux.event('stop', 'dave'); // LNX has no session to stop
    linux.write(answerBytes(103, { event: 'party', action: 'start', user: 'x' }));
    linux.write(answerBytes(103, { event: 'session', action: 'startX', user: 'x' }));
    linux.write(answerBytes(103, { event: 'session', action: 'start', user: 7 }));
    linux.write(answerBytes(103, ['session']));
    await eventually(() => ignoredEvents(x) === 6, 'six refusals accounted for in the log');
    assert.equal((await x.entry(live))?.state, 'OPG', 'live state unchanged');
    assert.equal((await x.entry(lin))?.state, 'LNX', 'linux state unchanged');
    assert.ok(agent.isConnected && linux.isConnected, 'both still connected');
    linux.event('start', 'erin');
    await eventually(async () => (await x.entry(lin))?.state === 'LNXS', 'a valid event still works afterwards');
  } finally {
    await x.close();
  }
});

test('an event in the middle of a command does not take the command answer', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip, { mode: 'linux' });
    agent.on('hardware', (_req, a) => {
      a.event('start', 'frank');
      return { delayMs: 50, body: { hardware: 'cpu=x' } };
    });
    const d = await x.link.dispatch([ip], { method: 'GET', path: 'hardware' });
    const answer = await d.answers.get(ip)!;
    assert.equal(answer.status, 200, 'the command gets its own answer');
    assert.equal((await x.entry(ip))?.state, 'LNXS', 'the event applied');
    assert.equal((await x.entry(ip))?.last_cmd.result, 'success', 'stored');
  } finally {
    await x.close();
  }
});

test('a refresh answered with the agent kind resets a session state (as the reference)', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip, { mode: 'windows' });
    agent.event('start', 'gina');
    await eventually(async () => (await x.entry(ip))?.state === 'WINS', 'WINS');
    await x.s.post('/refresh', { clients: [ip] });
    await agent.waitFor('refresh', 1);
    await eventually(async () => (await x.entry(ip))?.state === 'WIN', 'back to WIN');
  } finally {
    await x.close();
  }
});

test('ignored events are logged once per address per interval, with a count', async () => {
  const x = await site(2);
  try {
    const [first, second] = x.ips as [string, string];
    const noisy = await x.connect(first, { mode: 'linux' });
    const other = await x.connect(second, { mode: 'linux' });
    for (let i = 0; i < 200; i++) noisy.event('stop', `u${i}`); // LNX has no session to stop
    other.event('stop', 'v');
    other.event('stop', 'w');
    await eventually(() => x.s.logs.some((l) => l.ip === second && /agent event ignored/.test(l.msg)), 'the other address logged');
    // One after the other on each connection: once the last is handled, all the others were.
    noisy.event('start', 'last');
    await eventually(async () => (await x.entry(first))?.state === 'LNXS', 'the valid event after the flood');
    const lines = x.s.logs.filter((l) => /agent event ignored/.test(l.msg));
    assert.equal(lines.filter((l) => l.ip === first).length, 1, `200 ignored events, one line within the interval: ${lines.length} lines`);
    assert.equal(lines.filter((l) => l.ip === second).length, 1, 'another address gets its own line');
    assert.match(lines.find((l) => l.ip === first)!.msg, /makes no sense in state LNX/, 'the first says why');
  } finally {
    await x.close();
  }
});

test('at the end of the interval each address gets one summary line with its count', async () => {
  const x = await site(1, { peer_log_interval_s: 0.3 });
  try {
    const [ip] = x.ips as [string];
    const agent = await x.connect(ip, { mode: 'linux' });
    for (let i = 0; i < 50; i++) agent.event('stop', `u${i}`);
    await eventually(() => ignoredEvents(x, ip) === 50, 'all 50 accounted for');
    const summaries = x.s.logs.filter((l) => l.ip === ip && /agent event ignored \d+ more time\(s\) within 0\.3 s/.test(l.msg));
    assert.ok(summaries.length >= 1, 'a summary line with the count');
    assert.ok(
      summaries.every((l) => l.level === 'warn' && Number(l.count) > 0),
      'warnings with their count',
    );
  } finally {
    await x.close();
  }
});

test.run();
