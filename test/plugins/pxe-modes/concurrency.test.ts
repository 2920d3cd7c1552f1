import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { biosFileName, uefiFileName } from '../../../plugins/pxe-modes/file-names';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { startServer, type TestServer } from '../../support/server';
import { biosFile, readIfExists, uefiFile } from './support';

const COUNT = 40;
const ips = Array.from({ length: COUNT }, (_, i) => `127.0.3.${i + 1}`);
const modes = ['ogLive', 'pxe', '11'];
const lives = ['ogLive-5.0.0-i386-r20190601', 'ogLive-focal-5.13.0-27-beta-amd64-r20210706'];

/** Both boot files of every client, in `ips` order. */
function files(s: TestServer): string[] {
  return ips.map(
    (_, i) => `${readIfExists(biosFile(s, biosFileName(macFor(i + 1))))}\n${readIfExists(uefiFile(s, uefiFileName(macFor(i + 1))))}`,
  );
}

/** What each client's record says its files should be: `<boot mode> <live directory>`. */
async function records(s: TestServer): Promise<string[]> {
  return Promise.all(
    ips.map(async (ip) => {
      const { body } = await s.get('/client/info', { client: [ip] });
      return `${body.boot} ${body.livedir}`;
    }),
  );
}

async function ok(request: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const r = await request;
  assert.equal(r.status, 200, `${what}: ${r.text}`);
}

/** What the files of each mode and live image are when nothing else runs, by `<mode> <live image>`. */
async function filesOfEveryMode(s: TestServer): Promise<Map<string, string[]>> {
  const expected = new Map<string, string[]>();
  for (const mode of modes) {
    for (const live of lives) {
      await ok(s.post('/mode', { clients: ips, mode }), mode);
      await ok(s.post('/live/set', { clients: ips, name: live }), live);
      expected.set(`${mode} ${live}`, files(s));
    }
  }
  return expected;
}

/** Every client has the files its record names. */
async function assertFilesFollowRecords(s: TestServer, expected: Map<string, string[]>, round: number): Promise<void> {
  const named = await records(s);
  const actual = files(s);
  for (const [i, ip] of ips.entries())
    assert.equal(actual[i], expected.get(named[i]!)![i], `round ${round}: ${ip} records ${named[i]} and has its files`);
}

test('concurrent POST /mode and /live/set requests leave every client with the files its record names', async () => {
  const s = await startServer({ config: { plugins: ['inventory', 'pxe-modes', 'live'] } });
  try {
    for (const name of lives) mkdirSync(path.join(s.dir, 'tftpboot', name), { recursive: true });
    const room = await addRoom(s, await addCenter(s));
    for (const [i, ip] of ips.entries()) await addClient(s, room, ip, macFor(i + 1));
    const expected = await filesOfEveryMode(s);
    assert.equal(new Set(modes.map((m) => expected.get(`${m} ${lives[0]}`)![0])).size, modes.length, 'each mode gives different files');
    assert.notEqual(expected.get(`ogLive ${lives[0]}`)![0], expected.get(`ogLive ${lives[1]}`)![0], 'the live image shows in ogLive files');

    for (let round = 0; round < 3; round++) {
      const requests = Array.from({ length: 24 }, (_, i) => {
        const clients = i % 2 ? ips : [...ips].reverse();
        return i % 3 === 2
          ? s.post('/live/set', { clients, name: lives[i % lives.length] })
          : s.post('/mode', { clients, mode: modes[i % modes.length] });
      });
      for (const r of await Promise.all(requests)) assert.equal(r.status, 200, r.text);
      await assertFilesFollowRecords(s, expected, round);
    }
  } finally {
    await s.close();
  }
});

test('saves of single clients, written together while earlier ones are written, give each client the files of its own record', async () => {
  const s = await startServer({ config: { plugins: ['inventory', 'pxe-modes', 'live'] } });
  try {
    for (const name of lives) mkdirSync(path.join(s.dir, 'tftpboot', name), { recursive: true });
    const room = await addRoom(s, await addCenter(s));
    // Added all at once: most wait for the first one's files and go in batches.
    const added = await Promise.all(
      ips.map((ip, i) => s.post('/client/add', { ip, mac: macFor(i + 1), room, boot: modes[i % modes.length], livedir: lives[i % 2] })),
    );
    for (const r of added) assert.equal(r.status, 200, r.text);
    const ids = added.map((r) => r.body.id as number);
    const expected = await filesOfEveryMode(s);
    for (let round = 0; round < 3; round++) {
      await ok(s.post('/mode', { clients: ips, mode: modes[round] }), modes[round]!);
      // Each client saved with its own mode and live image at once, some twice.
      const requests = ids.flatMap((id, i) => {
        const save = (n: number) => s.post('/client/update', { id, boot: modes[(i + n) % modes.length], livedir: lives[(i + n) % 2] });
        return i % 4 === 0 ? [save(round), save(round + 1)] : [save(round)];
      });
      for (const r of await Promise.all(requests)) assert.equal(r.status, 200, r.text);
      await assertFilesFollowRecords(s, expected, round);
    }
  } finally {
    await s.close();
  }
});

test.run();
