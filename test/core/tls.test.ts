// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { test } from 'uvu';
import { AgentLink } from '../../plugins/agents';
import { makeServerCertificate, type ServerCertificateOptions } from '../support/certificates';
import { freePort, prepareSite, spawnServer } from '../support/child-server';
import { FakeAgent, eventually } from '../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../support/fixtures';
import { TOKEN, makeTestDir, removeTestStore, send, startServer, withServer } from '../support/server';
import { addUser, passwordOf } from '../plugins/auth/people';

/** A certificate for 127.0.0.1 signed by a CA of its own, in `dir`: ca.pem, server.pem, server.key. */
async function certificateIn(dir: string, options: ServerCertificateOptions = {}): Promise<{ ca: Buffer; cert: string; key: string }> {
  mkdirSync(dir, { recursive: true });
  const caFile = await makeServerCertificate(dir, options);
  return { ca: readFileSync(caFile), cert: path.join(dir, 'server.pem'), key: path.join(dir, 'server.key') };
}

interface HttpsReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One HTTPS request that trusts only `ca`. */
function httpsRequest(
  port: number,
  ca: Buffer,
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request({ host: '127.0.0.1', port, method, path: urlPath, ca, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

test('with rest.tls, REST and the console are served over HTTPS too; browsers are sent there, the reference clients are not', async () => {
  const dir = makeTestDir();
  try {
    const { ca, cert, key } = await certificateIn(path.join(dir, 'tls'));
    await withServer(
      async (s) => {
        const tlsPort = s.app.tlsPort();
        assert.ok(tlsPort > 0 && tlsPort !== s.port);
        const scopes = await httpsRequest(tlsPort, ca, 'GET', '/scopes', undefined, { Authorization: TOKEN });
        assert.equal(scopes.status, 200);
        assert.equal(scopes.headers['strict-transport-security'], 'max-age=15552000');

        const page = await send(s.port, 'GET', '/console/', undefined, { Accept: 'text/html,application/xhtml+xml' });
        assert.deepEqual([page.status, page.headers.location], [301, `https://127.0.0.1:${tlsPort}/console/`]);
        const api = await send(s.port, 'GET', '/scopes', undefined, { Authorization: TOKEN, Accept: 'application/json' });
        assert.equal(api.status, 200, 'an API read on the plain port is answered there');
        const post = await send(s.port, 'POST', '/center/add', { name: 'plain' }, { Authorization: TOKEN, Accept: '*/*' });
        assert.equal(post.status, 200, 'a POST is never redirected: its body would be lost');
        assert.equal(api.headers['strict-transport-security'], undefined, 'no HSTS over plain HTTP');

        await addUser(s, 'ana', 'reader');
        const overTls = await httpsRequest(
          tlsPort,
          ca,
          'POST',
          '/auth/login',
          { username: 'ana', password: passwordOf('ana') },
          { 'Content-Type': 'application/json' },
        );
        assert.match(String(overTls.headers['set-cookie']), /; Secure$/, 'the session cookie is Secure over HTTPS');
        const plain = await send(s.port, 'POST', '/auth/login', { username: 'ana', password: passwordOf('ana') });
        assert.doesNotMatch(String(plain.headers['set-cookie']), /Secure/);
      },
      { config: { rest: { tls: { cert, key, port: 0, redirect: true } } } },
    );
  } finally {
    await removeTestStore(dir);
  }
});

/** The redirect a browser asking the plain port for `/console/` gets, with this Host header. */
async function redirectFor(port: number, host: string): Promise<string | undefined> {
  const page = await send(port, 'GET', '/console/', undefined, { Accept: 'text/html', Host: host });
  assert.equal(page.status, 301, host);
  return page.headers.location as string | undefined;
}

test("the redirect to HTTPS goes by the certificate's names or rest.public_url, never by any Host header", async () => {
  const dir = makeTestDir();
  try {
    const { cert, key } = await certificateIn(path.join(dir, 'tls'), { names: ['DNS:ogserve.test', 'DNS:*.lab.test'] });
    await withServer(
      async (s) => {
        const https = `:${s.app.tlsPort()}/console/`;
        assert.equal(
          await redirectFor(s.port, 'evil.example'),
          `https://ogserve.test${https}`,
          "another site: the certificate's first name",
        );
        assert.equal(await redirectFor(s.port, 'evil.example:8888'), `https://ogserve.test${https}`);
        assert.equal(await redirectFor(s.port, 'ogserve.test.evil.example'), `https://ogserve.test${https}`);
        assert.equal(await redirectFor(s.port, 'pc.evil.example.lab.test'), `https://ogserve.test${https}`, 'a wildcard covers one label');
        assert.equal(await redirectFor(s.port, 'OGSERVE.test:8888'), `https://ogserve.test${https}`, 'a name of the certificate is kept');
        assert.equal(await redirectFor(s.port, 'aula1.lab.test'), `https://aula1.lab.test${https}`, 'under its wildcard too');
        assert.equal(await redirectFor(s.port, `127.0.0.1:${s.port}`), `https://127.0.0.1${https}`, 'and its address');
      },
      { config: { rest: { tls: { cert, key, port: 0, redirect: true } } } },
    );
    await withServer(
      async (s) => {
        for (const host of ['evil.example', 'ogserve.test', '127.0.0.1'])
          assert.equal(
            await redirectFor(s.port, host),
            'https://console.example.edu/console/',
            `rest.public_url, whatever the Host (${host})`,
          );
      },
      { config: { rest: { public_url: 'https://console.example.edu/', tls: { cert, key, port: 0, redirect: true } } } },
    );
  } finally {
    await removeTestStore(dir);
  }
});

/** The suite a TLS client offering only `ciphers` agrees on with the server, or the handshake's error code. */
function negotiate(port: number, ca: Buffer, ciphers: string, maxVersion: tls.SecureVersion = 'TLSv1.2'): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, ciphers, maxVersion }, () => {
      resolve(socket.getCipher().standardName);
      socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

test('HTTPS offers forward-secret AEAD suites only (ECDHE with AES-GCM or ChaCha20, TLS 1.3); rest.tls.ciphers changes that', async () => {
  const dir = makeTestDir();
  try {
    // An RSA key: with it a server could agree on static-RSA key exchange, which Node offers by default.
    const { ca, cert, key } = await certificateIn(path.join(dir, 'tls'), { rsa: true });
    const refused = 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE';
    await withServer(
      async (s) => {
        const port = s.app.tlsPort();
        for (const round of ['at start', 'after a reload']) {
          assert.equal(await negotiate(port, ca, 'AES128-GCM-SHA256'), refused, `static RSA key exchange, ${round}`);
          assert.equal(await negotiate(port, ca, 'AES256-SHA'), refused, `static RSA with CBC and SHA-1, ${round}`);
          assert.equal(await negotiate(port, ca, 'ECDHE-RSA-AES128-SHA'), refused, `CBC with SHA-1, ${round}`);
          assert.equal(await negotiate(port, ca, 'ECDHE-RSA-AES256-SHA384'), refused, `CBC with SHA-384, ${round}`);
          assert.equal(await negotiate(port, ca, 'ECDHE-RSA-AES128-GCM-SHA256'), 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', round);
          assert.equal(await negotiate(port, ca, 'ECDHE-RSA-CHACHA20-POLY1305'), 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', round);
          assert.equal(await negotiate(port, ca, tls.DEFAULT_CIPHERS, 'TLSv1.3'), 'TLS_AES_256_GCM_SHA384', `TLS 1.3, ${round}`);
          s.app.reloadTls();
        }
      },
      { config: { rest: { tls: { cert, key, port: 0 } } } },
    );
    await withServer(
      async (s) => {
        const port = s.app.tlsPort();
        assert.equal(await negotiate(port, ca, 'ECDHE-RSA-AES128-SHA'), 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'the list the site chose');
        assert.equal(await negotiate(port, ca, 'ECDHE-RSA-AES128-GCM-SHA256'), refused, 'only it');
      },
      { config: { rest: { tls: { cert, key, port: 0, ciphers: 'ECDHE-RSA-AES128-SHA' } } } },
    );
  } finally {
    await removeTestStore(dir);
  }
});

test('a certificate is read again on reload without dropping agents; one that cannot be read keeps the old', async () => {
  const dir = makeTestDir();
  try {
    const first = await certificateIn(path.join(dir, 'first'));
    const second = await certificateIn(path.join(dir, 'second'));
    const live = { cert: path.join(dir, 'live.pem'), key: path.join(dir, 'live.key') };
    copyFileSync(first.cert, live.cert);
    copyFileSync(first.key, live.key);
    await withServer(
      async (s) => {
        const room = await addRoom(s, await addCenter(s));
        await addClient(s, room, '127.0.40.1', macFor(1));
        const agent = await FakeAgent.connect({ port: s.app.container.resolve(AgentLink).port(), localAddress: '127.0.40.1' });
        let dropped = false;
        void agent.closed.then(() => (dropped = true));
        try {
          await agent.waitFor('refresh');
          const tlsPort = s.app.tlsPort();
          assert.equal((await httpsRequest(tlsPort, first.ca, 'GET', '/scopes', undefined, { Authorization: TOKEN })).status, 200);
          copyFileSync(second.cert, live.cert);
          copyFileSync(second.key, live.key);
          s.app.reloadTls();
          assert.equal((await httpsRequest(tlsPort, second.ca, 'GET', '/scopes', undefined, { Authorization: TOKEN })).status, 200);
          await assert.rejects(httpsRequest(tlsPort, first.ca, 'GET', '/scopes'), /self-signed|unable to verify|certificate/i);
          assert.ok(!dropped, 'the agent is still connected');
          const clients = (await s.get('/clients')).body.clients as { addr: string }[];
          assert.deepEqual(
            clients.map((c) => c.addr),
            ['127.0.40.1'],
          );

          copyFileSync(path.join(dir, 'first', 'ca.pem'), live.key);
          s.app.reloadTls();
          assert.ok(s.logs.some((line) => line.msg.startsWith('TLS certificate and key not reloaded')));
          assert.equal(
            (await httpsRequest(tlsPort, second.ca, 'GET', '/scopes', undefined, { Authorization: TOKEN })).status,
            200,
            'still served',
          );
        } finally {
          agent.destroy();
        }
      },
      { config: { rest: { tls: { ...live, port: 0 } } } },
    );
  } finally {
    await removeTestStore(dir);
  }
});

test('SIGHUP makes the running service read its certificate again', async () => {
  const dir = makeTestDir();
  try {
    const { ca, cert, key } = await certificateIn(path.join(dir, 'tls'));
    await prepareSite(dir, async () => undefined);
    const tlsPort = await freePort();
    const child = await spawnServer({ dir, config: { log: { level: 'info' }, rest: { tls: { cert, key, port: tlsPort } } } });
    try {
      assert.equal((await httpsRequest(tlsPort, ca, 'GET', '/scopes', undefined, { Authorization: TOKEN })).status, 200);
      process.kill(child.pid, 'SIGHUP');
      await eventually(() => child.logs.some((line) => line.msg === 'TLS certificate and key read again'), 'the reload to be logged');
      assert.equal((await child.get('/scopes')).status, 200, 'still running');
    } finally {
      await child.stop();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('a certificate that cannot be read stops the start naming its key', async () => {
  await assert.rejects(
    startServer({ config: { rest: { tls: { cert: '/nonexistent/cert.pem', key: '/nonexistent/key.pem', port: 0 } } } }),
    /rest\.tls\.cert: \/nonexistent\/cert\.pem cannot be read \(ENOENT\)/,
  );
});

test('ciphers OpenSSL does not know, or a certificate that is no PEM, stop the start in one line naming rest.tls', async () => {
  const dir = makeTestDir();
  try {
    const { cert, key } = await certificateIn(path.join(dir, 'tls'));
    await assert.rejects(
      startServer({ config: { rest: { tls: { cert, key, port: 0, ciphers: 'NO-SUCH-CIPHER' } } } }),
      /^StartupError: rest\.tls: OpenSSL refuses cert .*server\.pem, key .*server\.key or ciphers: .*no cipher match$/,
    );
    await assert.rejects(
      startServer({ config: { rest: { tls: { cert: path.join(dir, 'tls', 'server.csr'), key, port: 0 } } } }),
      /^StartupError: rest\.tls: OpenSSL refuses cert .*server\.csr, key .*server\.key or ciphers: .*no start line$/,
    );
  } finally {
    await removeTestStore(dir);
  }
});

test('X-Forwarded-Proto and X-Forwarded-For are believed from a trusted proxy only', async () => {
  const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '198.51.100.7' };
  await withServer(
    async (s) => {
      await addUser(s, 'ana', 'reader');
      const viaProxy = await send(s.port, 'POST', '/auth/login', { username: 'ana', password: passwordOf('ana') }, forwarded);
      assert.match(String(viaProxy.headers['set-cookie']), /; Secure$/, 'the proxy says the browser used HTTPS');
      for (let i = 0; i < 2; i++) await send(s.port, 'POST', '/auth/login', { username: `x${i}`, password: 'wrong' }, forwarded);
      const slowed = await send(s.port, 'POST', '/auth/login', { username: 'y', password: 'wrong' }, forwarded);
      assert.equal(slowed.status, 429, 'that client address is slowed');
      const other = await send(
        s.port,
        'POST',
        '/auth/login',
        { username: 'z', password: 'wrong' },
        { ...forwarded, 'X-Forwarded-For': '198.51.100.8' },
      );
      assert.equal(other.status, 401, 'another client behind the same proxy is not');
    },
    { config: { rest: { trusted_proxies: ['127.0.0.1'] }, auth: { free_failures: 1, max_delay_s: 60 } } },
  );
  await withServer(async (s) => {
    await addUser(s, 'ana', 'reader');
    const direct = await send(s.port, 'POST', '/auth/login', { username: 'ana', password: passwordOf('ana') }, forwarded);
    assert.doesNotMatch(String(direct.headers['set-cookie']), /Secure/, 'anyone may write the header: not believed');
  });
});

test.run();
