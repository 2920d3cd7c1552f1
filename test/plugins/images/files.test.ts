import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { test } from 'uvu';
import { ImageStore } from '../../../plugins/images';
import { fileInside, removeImageFiles } from '../../../plugins/images/files';
import { createAnswer, imageSite } from './helpers';

const capture = (name: string, repositoryId: number) => ({
  name,
  repositoryId,
  clientId: 0,
  disk: 1,
  partition: 1,
  code: 7,
  size: 1n,
  datasize: 1n,
  checksum: '',
  permissions: '644',
  lastUpdate: 0n,
  clonator: '',
  compressor: '',
  filesystem: '',
});

test('delete removes the record, the image file and its companions, and nothing else', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => ({ body: createAnswer(request) }));
    await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '7', name: 'gone', id: '0' });
    await agent.waitFor('image/create');
    await x.settled(ip);
    const [image] = await x.images();
    mkdirSync(x.directory, { recursive: true });
    const files = ['gone.img', 'gone.img.full.sum', 'gone.img.sum', 'gone.img.torrent'].map((f) => path.join(x.directory, f));
    const kept = ['gone.img.bak', 'gone2.img', 'other.img'].map((f) => path.join(x.directory, f));
    for (const f of [...files, ...kept]) writeFileSync(f, 'data');
    const r = await x.s.post('/image/delete', { image: String(image.id) });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await x.images(), [], 'record deleted');
    for (const f of files) assert.ok(!existsSync(f), `${path.basename(f)} removed`);
    for (const f of kept) assert.ok(existsSync(f), `${path.basename(f)} kept`);
  } finally {
    await x.close();
  }
});

test('delete without files is not an error; an unknown or malformed id is', async () => {
  const x = await imageSite();
  try {
    const store = x.s.app.container.resolve(ImageStore);
    const id = await store.saveCapture(capture('nofile', x.repository));
    const r = await x.s.post('/image/delete', { image: id });
    assert.equal(r.status, 200, `integer id accepted, missing file fine: ${r.text}`);
    assert.deepEqual(await x.images(), [], 'record deleted');
    const again = await x.s.post('/image/delete', { image: String(id) });
    assert.equal(again.status, 400, again.text);
    assert.deepEqual([again.body.error, again.body.field], ['unknown_id', 'image'], 'unknown id named');
    for (const body of [{}, { image: 'x' }, { image: -1 }, { image: '1; rm -rf /' }, { id: '1' }]) {
      const bad = await x.s.post('/image/delete', body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
      assert.equal(bad.body.field, 'image', `${JSON.stringify(body)} names image`);
    }
  } finally {
    await x.close();
  }
});

test('path tricks in image names: refused at creation, and a stored one never reaches outside the directory', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    for (const name of [
      '../etc',
      'a/b',
      '..',
      '.',
      '.hidden',
      '-rf',
      'a..b',
      'x\u0000y',
      '/abs',
      'a\\b',
      'a b',
      'x;reboot',
      '',
      'n'.repeat(51),
    ]) {
      const r = await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '7', name, id: '0' });
      assert.equal(r.status, 400, `${JSON.stringify(name)}: ${r.text}`);
      assert.equal(r.body.field, 'name', `${JSON.stringify(name)} names the field`);
    }
    assert.equal(agent.requests.filter((q) => q.path === 'image/create').length, 0, 'no refused name reached the agent');

    // A record whose name would escape (say, from a migrated database) deletes no outside file.
    mkdirSync(x.directory, { recursive: true });
    const outside = path.join(path.dirname(x.directory), 'evil.img');
    writeFileSync(outside, 'keep me');
    const store = x.s.app.container.resolve(ImageStore);
    const id = await store.saveCapture(capture('../evil', x.repository));
    const r = await x.s.post('/image/delete', { image: id });
    assert.equal(r.status, 200, r.text);
    assert.ok(existsSync(outside), 'the file outside the repository directory is untouched');
    assert.ok(
      x.s.logs.some((l) => /does not stay inside/.test(String(l.msg))),
      'the refusal is logged',
    );
  } finally {
    await x.close();
  }
});

test('fileInside accepts only names that stay directly in the directory; a symlink is removed, not its target', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-files-'));
  try {
    const repo = path.join(dir, 'images');
    mkdirSync(repo);
    assert.equal(fileInside(repo, 'ok', '.img'), path.join(repo, 'ok.img'), 'a plain name');
    for (const name of ['..', '.', '', '../x', 'a/b', 'a\\b', 'x\u0000', '/etc/passwd']) {
      assert.equal(fileInside(repo, name, '.img'), undefined, `${JSON.stringify(name)} refused`);
    }
    const target = path.join(dir, 'target');
    writeFileSync(target, 'precious');
    symlinkSync(target, path.join(repo, 'link.img'));
    const removed = await removeImageFiles(repo, 'link');
    assert.deepEqual(removed.removed, [path.join(repo, 'link.img')], 'the link is removed');
    assert.ok(existsSync(target), 'its target is kept');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fileInside never yields a path outside the directory, whatever the name (fuzz)', () => {
  const repo = path.resolve('/srv/images');
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.fullUnicodeString(), fc.constantFrom('..', '../', '/..', 'a/../..', '.', '\u0000')),
      fc.constantFrom('.img', '.img.full.sum'),
      (name, suffix) => {
        const file = fileInside(repo, name, suffix);
        if (file !== undefined) {
          assert.equal(path.dirname(file), repo, `${JSON.stringify(name)} stays directly in the directory`);
          assert.equal(path.basename(file), name + suffix, `${JSON.stringify(name)} is the file's own name`);
        }
      },
    ),
    { numRuns: 2000 },
  );
});

test('GET /images refuses a body and creates a missing repository directory', async () => {
  const x = await imageSite();
  try {
    rmSync(x.directory, { recursive: true, force: true });
    const ok = await x.s.get('/images');
    assert.equal(ok.status, 200, ok.text);
    assert.ok(existsSync(x.directory), 'directory created');
    assert.deepEqual(ok.body.images, [], 'no images');
    const bad = await x.s.get('/images', { any: 1 });
    assert.equal(bad.status, 400, `a body is refused: ${bad.text}`);
  } finally {
    await x.close();
  }
});

test('POST /image/update changes the record; unknown ids and repositories are refused', async () => {
  const x = await imageSite();
  try {
    const store = x.s.app.container.resolve(ImageStore);
    const id = await store.saveCapture({ ...capture('upd', x.repository), description: 'old', centerId: x.center });
    const r = await x.s.post('/image/update', { id: String(id), description: 'new', center_id: 0, group_id: '5', software_id: 3, type: 1 });
    assert.equal(r.status, 200, r.text);
    const [image] = await x.images();
    assert.deepEqual([image.description, image.center_id, image.group_id, image.software_id], ['new', 0, 5, 3], 'fields updated');
    for (const [body, field] of [
      [{ id: 999, description: 'x' }, 'id'],
      [{ id, repository_id: 999 }, 'repository_id'],
      [{ description: 'x' }, 'id'],
      [{ id, description: 5 }, 'description'],
    ] as const) {
      const bad = await x.s.post('/image/update', body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
      assert.equal(bad.body.field, field, `${JSON.stringify(body)} names ${field}`);
    }
  } finally {
    await x.close();
  }
});

test('integers past 2^31-1 (numbers or strings) are refused naming the field: nothing stored, nothing sent', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const store = x.s.app.container.resolve(ImageStore);
    const id = await store.saveCapture({ ...capture('big', x.repository), centerId: x.center });
    const create = { clients: [ip], disk: '1', partition: '1', code: '7', name: 'big', id: String(id) };
    const cases: [path: string, body: Record<string, unknown>, field: string][] = [];
    for (const big of [99_999_999_999, '99999999999']) {
      cases.push(
        ['/image/update', { id, center_id: big }, 'center_id'],
        ['/image/update', { id, group_id: big }, 'group_id'],
        ['/image/update', { id, software_id: big }, 'software_id'],
        ['/image/update', { id, type: big }, 'type'],
        ['/image/restrict', { image: id, scopes: [x.center, big] }, 'scopes[1]'],
        ['/image/create', { ...create, code: big }, 'code'],
        ['/image/create', { ...create, center_id: big }, 'center_id'],
        ['/image/create', { ...create, group_id: big }, 'group_id'],
      );
    }
    const before = JSON.stringify([await x.images(), (await x.s.get('/image/restrict', { image: id })).body]);
    for (const [path, body, field] of cases) {
      const r = await x.s.post(path, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.text}`);
      assert.deepEqual([r.body.error, r.body.field], ['invalid_field', field], `${path} ${JSON.stringify(body)} names ${field}`);
    }
    const after = JSON.stringify([await x.images(), (await x.s.get('/image/restrict', { image: id })).body]);
    assert.equal(after, before, 'nothing stored');
    assert.deepEqual(
      agent.requests.filter((r) => r.path === 'image/create'),
      [],
      'nothing relayed to the agent',
    );
  } finally {
    await x.close();
  }
});

test.run();
