// Engine-independent: runs once, on SQLite.
// (a real smbd, smbclient playing the agent.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { answerBytes, eventually } from '../../support/fake-agent';
import { makePartitionImage } from '../../support/partition-image';
import { type Smbd, startSmbd } from '../../support/smbd';
import { createAnswer, imageSite, type ImageSite } from './helpers';

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const password = 'og-test';

function shareConfig(smbd: Smbd) {
  return {
    repository: {
      share: {
        enabled: true,
        config_file: smbd.shareFile,
        smb_conf: smbd.smbConf,
        user: smbd.user,
        password,
        host: '127.0.0.1',
        port: smbd.port,
        check_s: 5,
      },
    },
  };
}

async function shareState(x: ImageSite): Promise<any> {
  const r = await x.s.get('/images/repository');
  assert.equal(r.status, 200, r.text);
  return r.body.share;
}

test('the ogimages share kept in step: smbd serves repository.directory, read-only but while a create runs; smbclient puts an image as the agent does and gets it back', async () => {
  const smbd = await startSmbd();
  const work = mkdtempSync(path.join(tmpdir(), 'ogserve-share-'));
  const x = await imageSite(1, shareConfig(smbd));
  try {
    const share = await eventually(async () => {
      const s = await shareState(x);
      return s.reachable && s.problems.length === 0 ? s : undefined;
    }, 'the share answering');
    assert.deepEqual(
      [share.enabled, share.name, share.path, share.writable, share.in_step, share.last_reload.ok],
      [true, 'ogimages', path.resolve(x.directory), false, true, true],
      'the share is the repository directory, read-only, as ogserve wrote it',
    );
    assert.ok(
      x.s.logs.some((l) => /smbd's password of '.*' set from repository.share.password/.test(l.msg)),
      'ogserve set the agents password in smbd',
    );
    const section = readFileSync(smbd.shareFile, 'utf8');
    assert.match(section, /\[ogimages\]\n/);
    assert.match(section, new RegExp(`path = ${path.resolve(x.directory).replace(/[/.]/g, '\\$&')}\n`));
    assert.match(section, /read only = yes\n/);

    const { image, bytes } = await makePartitionImage(work, 'lab');
    writeFileSync(`${image}.full.sum`, md5(bytes));
    const refused = await smbd.client('ogimages', password, `put ${image} lab.img`);
    assert.notEqual(refused.code, 0, 'no create under way: the share is read-only');
    assert.match(refused.out, /NT_STATUS_(ACCESS_DENIED|MEDIA_WRITE_PROTECTED)/, refused.out);

    // The agent's create: it writes the image and its md5 on the share, then answers.
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', { none: true });
    const r = await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '2', code: '131', name: 'lab', id: '0' });
    assert.equal(r.status, 200, r.text);
    const request = await agent.waitFor('image/create');
    assert.equal((await shareState(x)).writable, true, 'writable while the create runs');
    assert.match(readFileSync(smbd.shareFile, 'utf8'), /read only = no\n\s+write list = /);
    const put = await smbd.client('ogimages', password, `put ${image} lab.img; put ${image}.full.sum lab.img.full.sum`);
    assert.equal(put.code, 0, put.out);
    const { checksum: _sum, ...answer } = createAnswer(request, { size: bytes.length, filesystem: 'EXT4' });
    agent.write(answerBytes(200, answer));
    assert.equal((await x.settled(ip)).last_cmd.result, 'success');
    const [stored] = await x.images();
    assert.deepEqual(
      [stored.sha256, stored.checksum, stored.size, stored.state],
      [sha256(bytes), md5(bytes), bytes.length, 'available'],
      'ogserve hashed what the agent wrote on the share',
    );
    await eventually(async () => !(await shareState(x)).writable, 'read-only again once the create ended');

    // Read back as a restore does.
    const back = path.join(work, 'back.img');
    const got = await smbd.client('ogimages', password, `get lab.img ${back}`);
    assert.equal(got.code, 0, got.out);
    assert.ok(readFileSync(back).equals(bytes), 'the image comes back byte for byte');
    const hidden = await smbd.client('ogimages', password, 'ls .trash');
    assert.notEqual(hidden.code, 0, "ogserve's own folders are not on the share");
  } finally {
    await x.close();
    await smbd.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('the share drifts or smbd stops: GET /images/repository says so, ogserve writes its section again, and a create is refused while smbd cannot be told', async () => {
  const smbd = await startSmbd();
  const x = await imageSite(1, shareConfig(smbd));
  const heard: any[] = [];
  x.s.app.events.onAny((name, payload) => {
    if (name === 'image.share') heard.push(payload);
  });
  try {
    await eventually(async () => (await shareState(x)).problems.length === 0, 'the share well');
    // Someone edits the section: it is written again, and the change said.
    writeFileSync(smbd.shareFile, '[ogimages]\n   path = /tmp\n   read only = no\n   guest ok = yes\n');
    const drifted = await shareState(x);
    assert.equal(drifted.in_step, false);
    assert.match(drifted.problems.join('\n'), /is not the section ogserve wrote \(changed or removed\): written again/);
    assert.match(readFileSync(smbd.shareFile, 'utf8'), /read only = yes\n/, 'its own section is back');
    const again = await shareState(x);
    assert.deepEqual([again.in_step, again.problems], [true, []], 'in step again');

    // smbd stops: not answering is a problem the dashboard shows, announced once.
    await smbd.stop();
    const down = await shareState(x);
    assert.equal(down.reachable, false);
    assert.match(down.problems.join('\n'), /smbd does not answer on 127\.0\.0\.1:\d+/);
    assert.ok(
      heard.some((h) => h.reachable === false),
      'image.share announced it',
    );
    const ip = x.ips[0]!;
    await x.connect(ip);
    const refused = await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '2', code: '131', name: 'x', id: '0' });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.error, 'share_unavailable', 'a create is refused: the share could not be made writable');
    await smbd.start();
    await eventually(async () => {
      const s = await shareState(x);
      return s.reachable && s.problems.length === 0;
    }, 'well again once smbd is back');
  } finally {
    await x.close();
    await smbd.close();
  }
});

test.run();
