// Engine-independent: runs once, on SQLite.
// System needs: strace
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { biosFileName, uefiFileName } from '../../../plugins/pxe-modes/file-names';
import { prepareSite, spawnServer } from '../../support/child-server';
import { within } from '../../support/fake-agent';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { makeTestDir, removeTestStore } from '../../support/server';

/**
 * What a power cut cannot undo: each boot file's data reaches the disk before the rename
 * that puts it in place, and the folder is synced after the renames. Seen from outside, in
 * the system calls of the real service process (strace attached to it; .ci/run installs it).
 */

interface Call {
  at: number;
  name: string;
  args: string;
  result: string;
}

/** Every traced call of every thread (`strace -ff -ttt` writes one file per thread), in time order. */
function readTrace(prefix: string): Call[] {
  const dir = path.dirname(prefix);
  const calls: Call[] = [];
  for (const file of readdirSync(dir).filter((f) => f.startsWith(`${path.basename(prefix)}.`))) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      const m = /^(\d+\.\d+) (\w+)\((.*)\)\s+= (-?\d+)/.exec(line);
      if (m) calls.push({ at: Number(m[1]), name: m[2]!, args: m[3]!, result: m[4]! });
    }
  }
  return calls.sort((a, b) => a.at - b.at);
}

const quoted = (text: string) => JSON.stringify(text);

function lastIndex(calls: Call[], match: (call: Call) => boolean): number {
  for (let i = calls.length - 1; i >= 0; i--) if (match(calls[i]!)) return i;
  return -1;
}

test('each boot file is synced before its rename, and its folder after the renames', async () => {
  const dir = makeTestDir();
  const ips = ['10.0.0.1', '10.0.0.2'];
  const macs = ['0a0000000001', '0a0000000002'];
  try {
    await prepareSite(dir, async (s) => {
      const room = await addRoom(s, await addCenter(s));
      for (const [i, ip] of ips.entries()) await addClient(s, room, ip, macs[i]!);
    });
    const server = await spawnServer({ dir });
    const prefix = path.join(dir, 'trace');
    try {
      const strace = spawn(
        'strace',
        ['-f', '-ff', '-ttt', '-e', 'trace=openat,fdatasync,fsync,rename,renameat,renameat2', '-o', prefix, '-p', String(server.pid)],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      const exited = new Promise<number | null>((resolve) => {
        strace.once('exit', (code) => resolve(code));
        strace.once('error', (error) => {
          stderr += `${error.message} (is strace installed?)`;
          resolve(-1);
        });
      });
      await within(
        new Promise<void>((resolve, reject) => {
          strace.stderr.on('data', (d: Buffer) => {
            stderr += d.toString();
            if (/attached/.test(stderr)) resolve();
          });
          void exited.then(() => reject(new Error(`strace could not attach: ${stderr}`)));
        }),
        10_000,
        'strace to attach',
      );
      const r = await server.post('/mode', { clients: ips, mode: 'pxe' });
      assert.equal(r.status, 200, r.text);
      strace.kill('SIGINT');
      await exited;
    } finally {
      await server.stop();
    }

    const calls = readTrace(prefix);
    const bios = path.join(dir, 'tftpboot', 'menu.lst');
    const uefi = path.join(dir, 'tftpboot', 'grub');
    const targets = macs.flatMap((mac) => [path.join(bios, biosFileName(mac)), path.join(uefi, uefiFileName(mac))]);
    for (const target of targets) {
      const renameAt = calls.findIndex((c) => c.name.startsWith('rename') && c.args.includes(`, ${quoted(target)}`) && c.result === '0');
      assert.ok(renameAt >= 0, `${path.basename(target)} was renamed into place: ${calls.length} calls traced`);
      const temp = /"([^"]+\.tmp)"/.exec(calls[renameAt]!.args)?.[1];
      assert.ok(temp, `renamed from a temp file: ${calls[renameAt]!.args}`);
      const openAt = lastIndex(calls.slice(0, renameAt), (c) => c.name === 'openat' && c.args.includes(quoted(temp)));
      assert.ok(openAt >= 0, `the temp file ${path.basename(temp)} was opened`);
      const fd = calls[openAt]!.result;
      const synced = calls
        .slice(openAt + 1, renameAt)
        .some((c) => (c.name === 'fdatasync' || c.name === 'fsync') && c.args === fd && c.result === '0');
      assert.ok(synced, `${path.basename(temp)} (fd ${fd}) was synced between its open and its rename`);
    }
    for (const folder of [bios, uefi]) {
      const lastRename = lastIndex(calls, (c) => c.name.startsWith('rename') && c.args.includes(`, ${quoted(`${folder}/`)}`.slice(0, -1)));
      assert.ok(lastRename >= 0, `renames into ${path.basename(folder)}`);
      const opened = calls.findIndex((c, i) => i > lastRename && c.name === 'openat' && c.args.includes(`${quoted(folder)},`));
      assert.ok(opened >= 0, `${path.basename(folder)} opened after its last rename`);
      const fd = calls[opened]!.result;
      assert.ok(
        calls.slice(opened + 1).some((c) => c.name === 'fsync' && c.args === fd && c.result === '0'),
        `${path.basename(folder)} (fd ${fd}) synced after its renames`,
      );
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
