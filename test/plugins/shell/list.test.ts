// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { startServer } from '../../support/server';

const plugins = ['inventory', 'agents', 'shell'];

test('GET /shell/list creates a missing folder (relative to the config file) and lists nothing', async () => {
  const s = await startServer({ config: { plugins, shell: { scripts_dir: 'scripts/client' } } });
  try {
    const r = await s.get('/shell/list');
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(r.body, { scripts: [] }, 'an empty folder offers no scripts');
    assert.ok(existsSync(path.join(s.dir, 'scripts', 'client')), 'the folder was created next to the config file');
  } finally {
    await s.close();
  }
});

test('GET /shell/list lists files, nested ones by relative path, sorted', async () => {
  const s = await startServer({ config: { plugins, shell: { scripts_dir: 'scripts' } } });
  try {
    const root = path.join(s.dir, 'scripts');
    mkdirSync(path.join(root, 'lab', 'deep'), { recursive: true });
    mkdirSync(path.join(root, 'empty'));
    writeFileSync(path.join(root, 'zeta.sh'), 'echo z');
    writeFileSync(path.join(root, 'alpha.sh'), 'echo a');
    writeFileSync(path.join(root, 'lab', 'update.sh'), 'echo u');
    writeFileSync(path.join(root, 'lab', 'deep', 'clean.sh'), 'echo c');
    const r = await s.get('/shell/list');
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(r.body.scripts, ['alpha.sh', 'lab/deep/clean.sh', 'lab/update.sh', 'zeta.sh'], 'files only, folders are not scripts');
  } finally {
    await s.close();
  }
});

test('GET /shell/list never lists what symlinks outside the folder point at', async () => {
  const outside = mkdtempSync(path.join(os.tmpdir(), 'ogserve-outside-'));
  const s = await startServer({ config: { plugins, shell: { scripts_dir: 'scripts' } } });
  try {
    const root = path.join(s.dir, 'scripts');
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    mkdirSync(path.join(outside, 'dir'));
    writeFileSync(path.join(outside, 'secret.sh'), 'secret');
    writeFileSync(path.join(outside, 'dir', 'hidden.sh'), 'hidden');
    writeFileSync(path.join(root, 'real.sh'), 'echo real');
    symlinkSync(path.join(outside, 'secret.sh'), path.join(root, 'to-outside-file.sh'));
    symlinkSync(path.join(outside, 'dir'), path.join(root, 'to-outside-dir'));
    symlinkSync(`../../${path.basename(s.dir)}/config.json`, path.join(root, 'sub', 'relative-escape'));
    symlinkSync('/etc/passwd', path.join(root, 'passwd'));
    symlinkSync(path.join(root, 'missing.sh'), path.join(root, 'dangling.sh'));
    symlinkSync('../real.sh', path.join(root, 'sub', 'alias.sh'));
    symlinkSync('..', path.join(root, 'sub', 'loop'));
    const r = await s.get('/shell/list');
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(r.body.scripts, ['real.sh', 'sub/alias.sh'], 'only files inside the folder, a link to one of them included');
  } finally {
    await s.close();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('GET /shell/list ignores a body and refuses POST', async () => {
  const s = await startServer({ config: { plugins, shell: { scripts_dir: 'scripts' } } });
  try {
    const withBody = await s.get('/shell/list', { clients: ['127.0.0.1'] });
    assert.equal(withBody.status, 200, `a body is ignored: ${withBody.text}`);
    const post = await s.post('/shell/list', {});
    assert.equal(post.status, 405, `POST is a wrong method: ${post.text}`);
  } finally {
    await s.close();
  }
});

test.run();
