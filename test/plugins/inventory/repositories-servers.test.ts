import assert from 'node:assert/strict';
import { test } from 'uvu';
import { makeTestDir, removeTestStore, startServer, withServer } from '../../support/server';

/** Repository 1 of every fresh database, as the reference's schema has it: at rest.ip, 127.0.0.1 in tests. */
const defaultRepository = { id: 1, name: 'Default', center: 1, ip: '127.0.0.1', addresses: ['127.0.0.1'] };

test('a fresh database has repository 1 "Default" at the server address; it is created once, not again after a delete', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    try {
      assert.deepEqual((await first.get('/repositories')).body.repositories, [defaultRepository], 'created on the first start');
      assert.ok(
        first.logs.some((l) => l.msg === 'created repository 1 "Default" at 127.0.0.1 (rest.ip)'),
        'the start log says so',
      );
      assert.equal((await first.post('/repository/delete', { id: 1 })).status, 200, 'the administrator may delete it');
    } finally {
      await first.close();
    }
    const second = await startServer({ dir });
    try {
      assert.deepEqual((await second.get('/repositories')).body.repositories, [], 'a restart does not bring it back');
      const next = (await second.post('/repository/add', { name: 'other', ip: '10.1.0.1' })).body.id;
      assert.ok(next > 1, `ids go on from it (${next})`);
    } finally {
      await second.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('repositories: add with one or several addresses, list, get by id, update, delete', () =>
  withServer(async (s) => {
    const one = (await s.post('/repository/add', { name: 'main', ip: '10.1.0.1' })).body.id;
    const two = (await s.post('/repository/add', { name: 'mirror', ip: ['10.2.0.1', '10.2.0.2'] })).body.id;
    const list = (await s.get('/repositories')).body.repositories;
    assert.deepEqual(
      list,
      [
        defaultRepository,
        { id: one, name: 'main', center: 1, ip: '10.1.0.1', addresses: ['10.1.0.1'] },
        { id: two, name: 'mirror', center: 1, ip: '10.2.0.1', addresses: ['10.2.0.1', '10.2.0.2'] },
      ],
      'list with center 1 and every address',
    );
    assert.equal((await s.get('/repositories', { id: two })).body.repositories[0].name, 'mirror', 'by id in the body');
    assert.equal((await s.get(`/repositories?id=${one}`)).body.repositories[0].name, 'main', 'by id in the query');
    assert.equal((await s.get('/repositories', { id: 99 })).body.error, 'unknown_id', 'unknown id');
    const upd = await s.post('/repository/update', { repo_id: two, center: 1, name: 'mirror2', ip: '10.2.0.2' });
    assert.equal(upd.status, 200, upd.text);
    assert.deepEqual((await s.get('/repositories', { id: two })).body.repositories[0].addresses, ['10.2.0.2'], 'addresses replaced');
    assert.equal((await s.post('/repository/delete', { id: String(one) })).status, 200, 'delete');
    assert.deepEqual(
      (await s.get('/repositories')).body.repositories.map((r: { id: number }) => r.id),
      [1, two],
      'the default and the mirror left',
    );
    assert.equal((await s.post('/repository/delete', { id: 99 })).body.error, 'unknown_id', 'delete unknown');
  }));

test('two repositories may not share an address; a repository may keep its own', () =>
  withServer(async (s) => {
    const a = (await s.post('/repository/add', { name: 'a', ip: ['10.1.0.1', '10.1.0.2'] })).body.id;
    await s.post('/repository/add', { name: 'b', ip: '10.3.0.1' });
    const dup = await s.post('/repository/add', { name: 'c', ip: ['10.9.0.1', '10.1.0.2'] });
    assert.equal(dup.status, 400, 'address of another repository');
    assert.equal(dup.body.field, 'ip', 'field');
    assert.equal((await s.post('/repository/add', { name: 'd', ip: ['10.8.0.1', '10.8.0.1'] })).status, 400, 'same address twice');
    assert.equal(
      (await s.post('/repository/update', { repo_id: a, name: 'a', ip: '10.3.0.1' })).status,
      400,
      "update onto another repository's address",
    );
    assert.equal(
      (await s.post('/repository/update', { repo_id: a, name: 'a', ip: ['10.1.0.2', '10.1.0.3'] })).status,
      200,
      'keeping its own address',
    );
    assert.equal((await s.get('/repositories')).body.repositories.length, 3, 'nothing half-written: the default, a and b');
  }));

test('repository names are validated on add and update', () =>
  withServer(async (s) => {
    for (const name of ['', '   ', 'bad\nname', 'x'.repeat(101), 42, null]) {
      const r = await s.post('/repository/add', { name, ip: '10.1.0.1' });
      assert.equal(r.status, 400, `name ${JSON.stringify(name)}`);
      assert.equal(r.body.field, 'name', 'field');
    }
    const id = (await s.post('/repository/add', { name: 'ok', ip: '10.1.0.1' })).body.id;
    assert.equal(
      (await s.post('/repository/update', { repo_id: id, name: '\t', ip: '10.1.0.1' })).body.field,
      'name',
      'update validates too',
    );
    assert.equal((await s.post('/repository/add', { name: 'x', ip: '10.1.0' })).body.field, 'ip', 'malformed address');
    assert.equal((await s.post('/repository/add', { name: 'x', ip: [] })).body.field, 'ip', 'no address');
  }));

test('servers: GET lists, POST adds, DELETE removes; duplicates and unknown ids refused', () =>
  withServer(async (s) => {
    const id = (await s.post('/server', { ip: '10.0.0.1' })).body.id;
    assert.deepEqual((await s.get('/server')).body, { servers: [{ id, ip: '10.0.0.1', port: 2008 }] }, 'list');
    assert.equal((await s.post('/server', { ip: '10.0.0.1' })).body.error, 'duplicate', 'duplicate address');
    assert.equal((await s.post('/server', { ip: '10.0.0.256' })).body.field, 'ip', 'malformed');
    assert.equal((await s.request('DELETE', '/server', { id: String(id) })).status, 200, 'delete');
    assert.equal((await s.request('DELETE', '/server', { id })).body.error, 'unknown_id', 'delete unknown');
    assert.deepEqual((await s.get('/server')).body, { servers: [] }, 'empty');
  }));

test.run();
