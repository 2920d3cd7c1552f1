import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { BootClock } from '../../../plugins/boot';
import { macFor } from '../../support/fixtures';
import { startLab } from '../../support/lab';
import { makeTestDir, removeTestStore } from '../../support/server';
import { parsePrometheus } from '../../support/prometheus';
import { eventually, pcGet } from './support';

const start = Date.UTC(2026, 10, 27, 8, 0, 0);
const ip = '127.0.61.1';
const mac = macFor(1);
const kernel = Buffer.alloc(3000, 1);
const initrd = Buffer.alloc(5000, 2);

/**
 * A lab of one PC whose boot timeline runs on a ManualClock at `at`, with an ogLive's kernel
 * and initrd to fetch; on `dir` when given, populated already on a `restart`.
 */
async function site(config: Record<string, unknown> = {}, options: { dir?: string; restart?: boolean; at?: number } = {}) {
  const clock = new ManualClock(options.at ?? start);
  const services = container.createChildContainer();
  services.register(BootClock, { useValue: clock });
  const lab = await startLab({
    ips: [ip],
    server: { container: services, config, dir: options.dir },
    ...(options.restart ? { populate: false as const } : {}),
  });
  const live = path.join(lab.s.dir, 'tftpboot', 'ogLive');
  mkdirSync(live, { recursive: true });
  writeFileSync(path.join(live, 'ogvmlinuz'), kernel);
  writeFileSync(path.join(live, 'oginitrd.img'), initrd);
  const timeline = async (query = '') => {
    const r = await lab.s.get(`/boot/timeline?client=${ip}${query}`);
    assert.equal(r.status, 200, r.text);
    return r.body as { client: string; boots: { started: string; stages: Record<string, unknown>[] }[] };
  };
  const fetch = async (urlPath: string) => assert.equal((await pcGet(lab.s.port, urlPath, { from: ip })).status, 200, urlPath);
  return { ...lab, clock, timeline, fetch };
}

const iso = (ms: number) => new Date(ms).toISOString();

test("a PC's boot as stages: script, kernel, initrd with their bytes, its agent up with its state; the next boot on top; only the last boots kept", async () => {
  const x = await site({ boot: { timeline_boots: 2 } });
  try {
    await x.fetch(`/boot/ipxe?mac=${mac}`);
    await eventually(async () => (await x.timeline()).boots.length === 1, 'the script begins a boot');
    await x.clock.advance(1000);
    await x.fetch(`/boot/files/ogLive/ogvmlinuz?mac=${mac}`);
    await eventually(async () => (await x.timeline()).boots[0]!.stages.length === 2, 'the kernel');
    await x.clock.advance(1000);
    await x.fetch(`/boot/files/ogLive/oginitrd.img?mac=${mac}`);
    await eventually(async () => (await x.timeline()).boots[0]!.stages.length === 3, 'the initrd');
    await x.clock.advance(5000);
    const agent = await x.connect(ip);
    await eventually(async () => (await x.timeline()).boots[0]!.stages.length === 4, 'the agent');
    const [boot] = (await x.timeline()).boots;
    assert.equal(boot!.started, iso(start));
    assert.deepEqual(
      boot!.stages.map(({ ms: _ms, ...stage }) => stage),
      [
        { stage: 'script', at: iso(start) },
        { stage: 'kernel', at: iso(start + 1000), bytes: kernel.length, cut_short: false },
        { stage: 'initrd', at: iso(start + 2000), bytes: initrd.length, cut_short: false },
        { stage: 'agent', at: iso(start + 7000), state: 'OPG' },
      ],
    );
    assert.ok(
      boot!.stages.slice(1, 3).every((s) => typeof s.ms === 'number'),
      'each transfer says how long it took',
    );
    const metrics = parsePrometheus((await x.s.get('/metrics')).text);
    assert.ok(metrics.value('ogserve_boot_bytes_total')! >= kernel.length + initrd.length, 'bytes served are counted');

    // Back to a local disk and up again, much later: an agent coming up with no boot before it is no stage.
    await agent.close();
    await x.clock.advance(3600_000);
    await x.connect(ip);
    await x.clock.advance(60_000);
    await x.fetch(`/boot/ipxe?mac=${mac}`);
    await eventually(async () => (await x.timeline()).boots.length === 2, 'a second boot');
    const boots = (await x.timeline()).boots;
    assert.deepEqual(
      boots.map((b) => [b.started, b.stages.map((s) => s.stage)]),
      [
        [iso(start + 3667_000), ['script']],
        [iso(start), ['script', 'kernel', 'initrd', 'agent']],
      ],
      'newest first; the reconnection long after the first boot is in neither',
    );
    assert.equal((await x.timeline('&boots=1')).boots.length, 1, 'boots=1: the newest only');
    await x.clock.advance(60_000);
    await x.fetch(`/boot/ipxe?mac=${mac}`);
    await eventually(async () => (await x.timeline()).boots[0]!.started === iso(start + 3727_000), 'a third boot');
    assert.equal((await x.timeline()).boots.length, 2, 'boot.timeline_boots: 2 kept');
  } finally {
    await x.close();
  }
});

test('first stages begin a boot: UEFI HTTP boot of snponly.efi then the script is one boot; a script chaining GRUB too; a loader after a whole boot, or minutes after a script, begins another', async () => {
  const x = await site();
  try {
    const extra = path.join(x.s.dir, 'tftpboot');
    writeFileSync(path.join(extra, 'snponly.efi'), Buffer.alloc(1000, 3));
    writeFileSync(path.join(extra, 'grubx64.efi'), Buffer.alloc(2000, 4));
    const stages = async () => (await x.timeline()).boots.map((b) => [b.started, b.stages.map((s) => s.stage)]);
    let recorded = 0;
    // Each stage recorded before the clock moves on.
    const step = async (urlPath: string, advance: number) => {
      await x.fetch(urlPath);
      recorded++;
      await eventually(async () => (await stages()).flatMap(([, s]) => s).length === recorded, `${urlPath} recorded`);
      await x.clock.advance(advance);
    };
    // UEFI HTTP boot: the first stage from /boot/files (from the PC's own address), then iPXE's script and the kernel.
    await step('/boot/files/snponly.efi', 2000);
    await step(`/boot/ipxe?mac=${mac}`, 1000);
    await step(`/boot/files/ogLive/ogvmlinuz?mac=${mac}`, 120_000);
    assert.deepEqual(await stages(), [[iso(start), ['loader', 'script', 'kernel']]], 'one boot, begun by its loader');
    // A loader after the kernel: a new boot. Its script joins it; GRUB chained from it within a minute too.
    await step('/boot/files/snponly.efi', 2000);
    await step(`/boot/ipxe?mac=${mac}`, 3000);
    await step('/boot/files/grubx64.efi', 600_000);
    assert.deepEqual((await stages())[0], [iso(start + 123_000), ['loader', 'script', 'loader']], 'the script chaining GRUB: one boot');
    // A script alone, then a loader more than two minutes after it: the PC booted again.
    await step(`/boot/ipxe?mac=${mac}`, 150_000);
    await step('/boot/files/snponly.efi', 0);
    assert.deepEqual((await stages()).slice(0, 2), [
      [iso(start + 878_000), ['loader']],
      [iso(start + 728_000), ['script']],
    ]);
  } finally {
    await x.close();
  }
});

test('a boot begun before a restart gets its agent after it; an agent of a PC with no boot under way is no stage', async () => {
  const dir = makeTestDir();
  try {
    const first = await site({}, { dir });
    try {
      await first.fetch(`/boot/ipxe?mac=${mac}`);
      await eventually(async () => (await first.timeline()).boots.length === 1, 'the script begins a boot');
    } finally {
      await first.close();
    }
    // The new process knows from the rows which PCs are booting: the agent is that boot's stage.
    const x = await site({}, { dir, restart: true, at: start + 60_000 });
    try {
      await x.connect(ip);
      await eventually(async () => (await x.timeline()).boots[0]?.stages.length === 2, 'the agent after the restart');
      assert.deepEqual(
        (await x.timeline()).boots[0]!.stages.map((s) => [s.stage, s.at]),
        [
          ['script', iso(start)],
          ['agent', iso(start + 60_000)],
        ],
      );
    } finally {
      await x.close();
    }
    // Long after: its agent comes up with no boot under way, and its next boot is a boot of its own.
    const later = await site({}, { dir, restart: true, at: start + 3600_000 });
    try {
      await later.connect(ip);
      await later.clock.advance(1000);
      await later.fetch(`/boot/ipxe?mac=${mac}`);
      await eventually(async () => (await later.timeline()).boots.length === 2, 'a second boot');
      assert.deepEqual(
        (await later.timeline()).boots.map((b) => b.stages.map((s) => s.stage)),
        [['script'], ['script', 'agent']],
        'the agent long after the first boot is in neither',
      );
    } finally {
      await later.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('GET /boot/timeline refuses a bad or unknown client and a bad boots count, naming the field', async () => {
  const x = await site();
  try {
    for (const [query, field] of [
      ['', 'client'],
      ['?client=10.0.0', 'client'],
      ['?client=10.9.9.9', 'client'],
      [`?client=${ip}&boots=0`, 'boots'],
      [`?client=${ip}&boots=many`, 'boots'],
      [`?client=${ip}&boots=51`, 'boots'],
    ] as const) {
      const r = await x.s.get(`/boot/timeline${query}`);
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      assert.equal(r.body.field, field, query);
    }
    assert.deepEqual(await x.timeline(), { client: ip, boots: [] }, 'a PC never booted over the network');
  } finally {
    await x.close();
  }
});

test.run();
