// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'uvu';
import { serverAddress } from '../../../plugins/pxe-modes/server-address';

test('server address: the configured one, else rest.ip, else a non-loopback IPv4 of this host', () => {
  assert.deepEqual(serverAddress('10.2.2.2', '10.1.1.1'), { address: '10.2.2.2', how: 'pxe-modes.server_ip' }, 'configured server_ip wins');
  assert.deepEqual(serverAddress('', '10.1.1.1'), { address: '10.1.1.1', how: 'rest.ip' }, 'rest.ip when it is a real address');
  const own = Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
  const picked = serverAddress('', '0.0.0.0').address;
  assert.ok(own.length ? picked === own[0] : picked === '127.0.0.1', `the wildcard is never put in boot files (got ${picked})`);
});

test.run();
