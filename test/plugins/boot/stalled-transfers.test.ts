// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { startServer, type TestServer } from '../../support/server';
import { eventually, holdTransfer, labClient, lingeringGet, metricValue, pcGet, silentGet } from './support';

let s: TestServer;
/** A kernel of 4 MiB: many chunks, each of which must arrive as it was. */
const kernel = randomBytes(4 * 1024 * 1024);
const rootSize = 2 ** 31;
const heard: Record<string, unknown>[] = [];

test.before(async () => {
  s = await startServer({ config: { boot: { max_transfers: 40, stall_s: 1 } } });
  await labClient(s);
  s.app.events.on('test', 'boot.stage', (payload) => void heard.push(payload));
  const folder = path.join(s.dir, 'tftpboot', 'ogLive');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'ogvmlinuz'), kernel);
  // Too large to finish while its reader stops reading (sparse: no disk used).
  const root = openSync(path.join(folder, 'ogclient.sqfs'), 'w');
  ftruncateSync(root, rootSize);
  closeSync(root);
});
test.after(() => s.close());

test('a reader that stops reading is cut after boot.stall_s: its place is free again, its transfer cut short and counted', async () => {
  const held = await holdTransfer(s.port, '/boot/files/ogLive/ogclient.sqfs?mac=aa:bb:cc:dd:ee:01');
  assert.equal(held.status, 200);
  await eventually(async () => (await metricValue(s, 'ogserve_boot_transfers_stalled_total')) === 1, 'the transfer cut', 1000);
  assert.equal(await metricValue(s, 'ogserve_boot_transfers_active'), 0);
  // The server closed it: read on, the reader gets what was sent and then the end.
  const received = await held.readRest();
  assert.ok(received < rootSize, `${received} bytes of ${rootSize}`);
  await eventually(() => heard.some((e) => e.stage === 'root'), 'the root stage announced');
  const root = heard.find((e) => e.stage === 'root')!;
  assert.equal(root.client, '192.168.1.10');
  assert.equal(root.cut_short, true);
});

test('100 connections that send a bad range or never read do not keep a PC from its kernel: it gets its exact bytes', async () => {
  const badRanges = ['bytes=5-1', 'bytes=-0', 'bytes=9999999999999-'];
  // 60 that ask for an unsatisfiable range and keep the connection open once answered.
  const lingering = await Promise.all(
    Array.from({ length: 60 }, (_, i) => lingeringGet(s.port, '/boot/files/ogLive/ogclient.sqfs', { Range: badRanges[i % 3]! })),
  );
  assert.deepEqual(new Set(lingering.map((l) => l.statusLine)), new Set(['HTTP/1.1 416 Range Not Satisfiable']));
  // 40, as many as boot.max_transfers, that ask for the whole root image and read nothing, not even the head.
  const silent = Array.from({ length: 40 }, () => silentGet(s.port, '/boot/files/ogLive/ogclient.sqfs'));
  await eventually(async () => (await metricValue(s, 'ogserve_boot_transfers_active')) > 0, 'the silent readers served');
  // As iPXE does: a 503 is tried again (sooner than its Retry-After, to keep the test short).
  let kernelAnswer = await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz');
  for (let tries = 0; kernelAnswer.status === 503 && tries < 300; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    kernelAnswer = await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz');
  }
  assert.equal(kernelAnswer.status, 200, kernelAnswer.text);
  assert.ok(kernelAnswer.body.equals(kernel), `the kernel's bytes: ${kernelAnswer.body.length} of ${kernel.length}`);
  // Every silent reader was cut (or refused): none is under way, and what each gets once it reads is less than the file.
  await eventually(async () => (await metricValue(s, 'ogserve_boot_transfers_active')) === 0, 'every silent reader cut', 1000);
  for (const received of await Promise.all(silent.map((c) => c.read()))) assert.ok(received < rootSize, `${received} bytes`);
  for (const l of lingering) l.close();
});

test.run();
