// Engine-independent: runs once, on SQLite.
// (a real partition image restored through /images/files.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { ByteSender } from '../../../plugins/transfers';
import { answerBytes, eventually } from '../../support/fake-agent';
import { macFor } from '../../support/fixtures';
import { type Nginx, startFront } from '../../support/nginx';
import { makePartitionImage, sizeOf } from '../../support/partition-image';
import { createAnswer, imageSite } from './helpers';

const script = path.resolve(__dirname, '../../../../templates/oglive/restoreImageCustom');
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** The processes below `pid` (its children, theirs...) with their names, from /proc. */
function descendants(pid: number): { pid: number; name: string }[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
      names.set(Number(entry), name);
    } catch {}
  }
  const below = (p: number): boolean => {
    for (let at = parents.get(p); at !== undefined && at > 1; at = parents.get(at)) if (at === pid) return true;
    return false;
  };
  return [...parents.keys()].filter(below).map((p) => ({ pid: p, name: names.get(p)! }));
}

/**
 * The ogLive hook restores a real partclone image through /images/files, its curl killed a
 * quarter through: resumed, byte for byte, each byte counted for its PC in the job. The bytes
 * sent by ogserve itself, or (`nginx`) by the nginx of packaging/nginx/ogserve.conf in front
 * of it, ogserve told of each request's bytes by nginx's log (the hook asks 2 MiB at a time).
 */
async function restoreOverHttp(sender: 'ogserve' | 'nginx'): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'ogserve-http-restore-'));
  const handoff = { transfers: { handoff: 'nginx', handoff_log_port: 0 }, rest: { trusted_proxies: ['127.0.0.1'] } };
  const x = await imageSite(1, { repository: { http_restore: true }, ...(sender === 'nginx' ? handoff : {}) });
  let nginx: Nginx | undefined;
  try {
    if (sender === 'nginx') nginx = await startFront(work, { upstream: x.s.port, log: x.s.app.container.resolve(ByteSender).logPort });
    // The image as the agent creates it: partclone.ext4 | lzop -1 of a real ext4 file system.
    const { partition, bytes } = await makePartitionImage(work, 'lab', 24);
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => {
      mkdirSync(x.directory, { recursive: true });
      writeFileSync(path.join(x.directory, 'lab.img'), bytes);
      writeFileSync(path.join(x.directory, 'lab.img.full.sum'), md5(bytes));
      return { body: createAnswer(request, { size: bytes.length, checksum: md5(bytes), filesystem: 'EXT4' }) };
    });
    await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '2', code: '131', name: 'lab', id: '0' });
    await x.settled(ip);
    const [image] = await x.images();
    assert.equal(image.state, 'available');

    agent.on('image/restore', { none: true });
    const restore = await x.s.post('/image/restore', { clients: [ip], disk: '1', partition: '2', id: String(image.id), type: 'http' });
    assert.equal(restore.status, 200, restore.text);
    const job = restore.body.job as number;
    const sent = await agent.waitFor('image/restore');
    assert.deepEqual([sent.body.type, sent.body.name], ['HTTP', 'lab'], 'the agent is asked for an HTTP restore of lab');

    // The agent runs the hook (the field notes: restoreImageCustom REPOSITORY NAME DISK PARTITION METHOD).
    const target = path.join(work, 'restored.ext4');
    const hook = spawn('bash', [script, sent.body.repository, sent.body.name, sent.body.disk, sent.body.partition, sent.body.type], {
      env: {
        ...process.env,
        OGSERVE_URL: `http://127.0.0.1:${nginx?.port ?? x.s.port}`,
        OGSERVE_CHUNK: sender === 'nginx' ? '2M' : '',
        OGSERVE_TARGET: target,
        OGSERVE_MAC: macFor(1),
        OGSERVE_LIMIT_RATE: '2M',
        OGSERVE_TRIES: '5',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    hook.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const ended = new Promise<number | null>((resolve) => hook.once('exit', resolve));

    // A quarter through, its download is cut (the PC's curl killed): the hook asks for the rest.
    const line = async () => (await x.s.get(`/images/transfers?job=${job}`)).body.transfers[0];
    await eventually(async () => (await line())?.bytes > bytes.length / 4, 'a quarter of the image fetched', 30_000);
    // Its decompressor held still, the pipe fills and the curl under way stands in the middle of
    // its body (with chunks, one ends and the next starts): that curl is killed.
    const lzop = descendants(hook.pid!).find((p) => p.name === 'lzop');
    assert.ok(lzop, `the hook's lzop is running: ${JSON.stringify(descendants(hook.pid!))}`);
    process.kill(lzop.pid, 'SIGSTOP');
    try {
      await eventually(async () => {
        const curl = descendants(hook.pid!).find((p) => p.name === 'curl');
        if (!curl) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (!descendants(hook.pid!).some((p) => p.pid === curl.pid)) return false;
        process.kill(curl.pid, 'SIGKILL');
        return true;
      }, "the hook's curl killed mid-body");
    } finally {
      process.kill(lzop.pid, 'SIGCONT');
    }
    const code = await ended;
    assert.equal(code, 0, said);
    assert.match(said, /cut at byte \d+ of \d+: resuming/, 'it resumed after the cut');
    assert.match(said, /restored lab\.img, sha256 [0-9a-f]{64} as ogserve's record/);

    // Byte for byte: partclone writes the used blocks, the rest of the partition is as mkfs left it (zeros).
    rmSync(`${target}.log`, { force: true });
    const restored = readFileSync(target);
    const original = readFileSync(partition);
    assert.ok(restored.length <= original.length, 'no more than the partition');
    assert.ok(
      Buffer.concat([restored, Buffer.alloc(sizeOf(partition) - restored.length)]).equals(original),
      'the restored partition is the original byte for byte',
    );

    const done = await line();
    assert.deepEqual(
      [done.client, done.bytes, done.size, done.done, done.bodies > 1, done.job],
      [ip, bytes.length, bytes.length, true, true, job],
      'the PC got the whole image in more than one body, counted in its job',
    );
    agent.write(answerBytes(200, { disk: sent.body.disk, partition: sent.body.partition, image_id: sent.body.id }));
    await eventually(async () => (await x.s.get(`/jobs/${job}`)).body.finished, 'the job finished');
  } finally {
    await nginx?.stop();
    await x.close();
    rmSync(work, { recursive: true, force: true });
  }
}

test('restore type HTTP: the ogLive hook restores a real partclone image through /images/files, cut in the middle and resumed, byte for byte, each byte counted for its PC in the job', () =>
  restoreOverHttp('ogserve'));

test('restore type HTTP with nginx sending the bytes (transfers.handoff): the same restore, cut and resumed, counted from nginx log', () =>
  restoreOverHttp('nginx'));

test('restore type HTTP is refused until repository.http_restore says the hook is in place', async () => {
  const x = await imageSite();
  try {
    const r = await x.s.post('/image/restore', { clients: [x.ips[0]], disk: '1', partition: '2', id: '1', type: 'HTTP' });
    assert.deepEqual([r.status, r.body.field], [400, 'type'], r.text);
    assert.match(r.body.message, /repository\.http_restore/);
  } finally {
    await x.close();
  }
});

test.run();
