import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addRoom } from '../support/fixtures';
import { ogserve } from '../support/process';
import { makeTestDir, removeTestStore, startServer } from '../support/server';

/** A site's dhcpd.conf: two rooms' subnets, a host refused for its MAC twice, one with a name for its address. */
const conf = `# /etc/dhcp/dhcpd.conf
authoritative;
subnet 10.20.1.0 netmask 255.255.255.0 {
  option routers 10.20.1.1;
  host aula1-01 { hardware ethernet 00:20:01:00:00:01; fixed-address 10.20.1.11; }
  host aula1-02 { hardware ethernet 0:20:1:0:0:2; fixed-address 10.20.1.12; option host-name "a1-pc02"; }
}
subnet 10.20.2.0 netmask 255.255.255.0 {
  option routers 10.20.2.1;
  group {
    host aula2-01 { hardware ethernet 00-20-01-00-00-01; fixed-address 10.20.2.11; }
    host aula2-02 { hardware ethernet 00:20:02:00:00:02; fixed-address aula2-02.example.org; }
    host aula2-03 { hardware ethernet 00:20:02:00:00:03; fixed-address 10.20.2.13; }
  }
}
`;

test('a real dhcpd.conf: a dry run writes nothing, the import adds the hosts it takes, exit codes say whether any was refused', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    const center = await addCenter(first, 'Site');
    const aula1 = await addRoom(first, center, 'Aula 1', '255.255.255.0', { gateway: '10.20.1.1' });
    const aula2 = await addRoom(first, center, 'Aula 2', '255.255.255.0', { gateway: '10.20.2.1' });
    await first.close();
    const config = ['--config', `${dir}/config.json`];
    const file = path.join(dir, 'dhcpd.conf');
    writeFileSync(file, conf);

    const dry = await ogserve(['import-dhcpd', file, '--dry-run', ...config]);
    assert.equal(dry.code, 1, dry.stderr);
    assert.deepEqual(dry.stdout.trim().split('\n'), [
      'line 11: host aula2-01 (10.20.2.11, 00:20:01:00:00:01): mac: the host at line 5 has mac 00:20:01:00:00:01 too',
      "line 12: host aula2-02 (00:20:02:00:00:02): ip: fixed-address 'aula2-02.example.org' (line 12) is a host name: ogserve needs the PC's IPv4 address",
      '5 entries: 3 would be added, 2 refused (dry run: nothing written)',
    ]);
    const real = await ogserve(['import-dhcpd', file, ...config]);
    assert.equal(real.code, 1, real.stderr);
    assert.equal(real.stdout.trim().split('\n').at(-1), '5 entries: 3 added, 2 refused');

    // The refused hosts, mended, in a file of their own: all taken.
    const mended = path.join(dir, 'mended.conf');
    writeFileSync(
      mended,
      'host aula2-01 { hardware ethernet 00:20:02:00:00:01; fixed-address 10.20.2.11; }\nhost aula2-02 { hardware ethernet 00:20:02:00:00:02; fixed-address 10.20.2.12; }\n',
    );
    const good = await ogserve(['import-dhcpd', mended, ...config]);
    assert.deepEqual([good.code, good.stdout.trim()], [0, '2 entries: 2 added, 0 refused'], good.stderr);

    const s = await startServer({ dir });
    try {
      const stored = await s.get('/client/info', { client: ['10.20.1.12'] });
      assert.deepEqual([stored.body.name, stored.body.mac, stored.body.room], ['a1-pc02', '002001000002', aula1]);
      for (const ip of ['10.20.1.11', '10.20.2.11', '10.20.2.12', '10.20.2.13']) {
        const r = await s.get('/client/info', { client: [ip] });
        assert.equal(r.status, 200, `${ip}: ${r.text}`);
        assert.equal(r.body.room, ip.startsWith('10.20.1.') ? aula1 : aula2);
      }
    } finally {
      await s.close();
    }

    const missing = await ogserve(['import-dhcpd', path.join(dir, 'nope.conf'), ...config]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*nope\.conf/);
    const broken = path.join(dir, 'broken.conf');
    writeFileSync(broken, 'host a {\n  hardware ethernet 00:20:09:00:00:01;\n');
    const notConf = await ogserve(['import-dhcpd', broken, ...config]);
    assert.deepEqual(
      [notConf.code, notConf.stderr.trim().split('\n').at(-1)],
      [2, `ogserve: ${broken}: line 1: the block opened here is not closed: a '}' is missing`],
    );
    // Groups nested 5,000 deep: one line naming where they pass the limit, not a stack overflow's trace.
    const deep = path.join(dir, 'deep.conf');
    writeFileSync(deep, `${'group {\n'.repeat(5000)}${'}\n'.repeat(5000)}`);
    const tooDeep = await ogserve(['import-dhcpd', deep, ...config]);
    assert.deepEqual(
      [tooDeep.code, tooDeep.stderr.trim().split('\n').at(-1), /^\s+at /m.test(tooDeep.stderr)],
      [2, `ogserve: ${deep}: line 65: blocks nest more than 64 deep here (a real dhcpd.conf nests a few)`, false],
    );
    assert.equal((await ogserve(['import-dhcpd', ...config])).code, 2, 'no file named');
    const help = await ogserve(['import-dhcpd', '--help']);
    assert.match(help.stdout, /1 some hosts were refused/);
    assert.match((await ogserve(['--help'])).stdout, /import-dhcpd +add clients from an ISC dhcpd\.conf/);
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
