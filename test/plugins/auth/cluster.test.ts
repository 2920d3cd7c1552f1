// PostgreSQL only: several instances on one database (the other passes skip this file).
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { AuthClock } from '../../../plugins/auth';
import { startClusterSite } from '../../support/cluster-site';
import { eventually } from '../../support/fake-agent';
import { testEngine } from '../../support/test-db';
import { addUser, signIn } from './people';
// After the server's imports, which load the reflection tsyringe needs.
import { container as rootContainer } from 'tsyringe';

if (testEngine === 'postgresql') {
  test('a session opened on one instance works on the others, and disabling the user ends it on every one at once', async () => {
    // Time stands still: a session is not read again from the database, so only the message
    // from the instance that disabled the user can end it on the other.
    const services = rootContainer.createChildContainer();
    services.register(AuthClock, { useValue: new ManualClock(Date.UTC(2026, 10, 27, 9)) });
    const site = await startClusterSite({ instances: 2, ips: [], container: services });
    try {
      const [a, b] = site.servers as [(typeof site.servers)[0], (typeof site.servers)[0]];
      await addUser(a, 'ana', 'operator');
      const ana = await signIn(a.port, 'ana');
      assert.equal((await ana.request('GET', '/scopes')).status, 200, 'on the instance that signed her in');
      const viaB = await fetch(`http://127.0.0.1:${b.port}/auth/me`, { headers: { Cookie: ana.cookie } });
      assert.equal(viaB.status, 200, 'and on the other');
      assert.equal(((await viaB.json()) as { csrf: string }).csrf, ana.csrf);

      assert.equal((await b.post('/users/disable', { username: 'ana' })).status, 200);
      await eventually(async () => (await ana.request('GET', '/scopes')).status === 401, 'the session to end on the first instance');
    } finally {
      await site.close();
    }
  });
}

test.run();
