import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'uvu';
import { startServer } from '../support/server';

/** A loopback port nobody listens on. */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const type of ['postgresql', 'mariadb'] as const) {
  test(`a ${type} server that does not answer stops startup with a message naming the engine`, async () => {
    const port = await deadPort();
    await assert.rejects(
      startServer({ config: { database: { type, ip: '127.0.0.1', port, name: 'ogserve', user: 'nobody', pass: 'x' } } }),
      (error: Error) => {
        assert.match(error.message, new RegExp(`^database: cannot open ${type} database: `), `message: ${error.message}`);
        return true;
      },
      'startup refused',
    );
  });
}

test('an unknown database.type is a config error naming the key', async () => {
  await assert.rejects(
    startServer({ config: { database: { type: 'oracle' } } }),
    /config: database\.type: /,
    'refused at config validation',
  );
});

test('a database port that is not a number is a config error', async () => {
  await assert.rejects(
    startServer({ config: { database: { type: 'postgresql', port: 'abc' } } }),
    /config: database\.port: /,
    'refused at config validation',
  );
});

test.run();
