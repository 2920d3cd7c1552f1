import assert from 'node:assert/strict';
import type os from 'node:os';
import fc from 'fast-check';
import { test } from 'uvu';
import { intToIpv4, ipv4ToInt } from '../../../core/formats';
import { destinations, directedBroadcast, interfaceBroadcasts, limitedBroadcast, sharedBroadcasts } from '../../../plugins/wol/addresses';

const v4 = (address: string, netmask: string): os.NetworkInterfaceInfo =>
  ({ address, netmask, family: 'IPv4', mac: '00:00:00:00:00:00', internal: false, cidr: null }) as os.NetworkInterfaceInfo;
const table = {
  lo: [
    v4('127.0.0.1', '255.0.0.0'),
    {
      address: '::1',
      netmask: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      family: 'IPv6',
      mac: '',
      internal: true,
      cidr: null,
      scopeid: 0,
    } as os.NetworkInterfaceInfo,
  ],
  eth0: [v4('192.168.2.10', '255.255.255.0'), v4('10.1.0.1', '255.255.0.0'), v4('192.168.2.11', '255.255.255.0')],
  p2p: [v4('10.9.9.1', '255.255.255.254'), v4('10.9.9.5', '255.255.255.255')],
};

test('directed broadcast is ip | ~netmask', () => {
  assert.equal(directedBroadcast('192.168.2.1', '255.255.255.0'), '192.168.2.255', 'the reference example');
  assert.equal(directedBroadcast('127.0.0.5', '255.0.0.0'), '127.255.255.255', '/8');
  assert.equal(directedBroadcast('10.1.3.4', '255.255.252.0'), '10.1.3.255', '/22');
  assert.equal(directedBroadcast('10.1.3.4', '255.255.255.255'), '10.1.3.4', '/32 is the host itself');
  assert.equal(directedBroadcast('0.0.0.0', '0.0.0.0'), '255.255.255.255', '/0');
});

test('directed broadcast keeps the network part and sets every host bit (property)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 32 }), (ip, prefix) => {
      const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
      const result = ipv4ToInt(directedBroadcast(intToIpv4(ip), intToIpv4(mask)));
      return (result & mask) >>> 0 === (ip & mask) >>> 0 && (result | mask) >>> 0 === 0xffffffff;
    }),
  );
});

test('interface broadcasts: each IPv4 subnet of the named interface once, none for /31, /32 or IPv6', () => {
  assert.deepEqual(interfaceBroadcasts('eth0', table), ['192.168.2.255', '10.1.255.255'], 'two subnets, one duplicate');
  assert.deepEqual(interfaceBroadcasts('lo', table), ['127.255.255.255'], 'loopback, IPv6 ignored');
  assert.deepEqual(interfaceBroadcasts('p2p', table), [], 'point-to-point and host addresses have none');
  assert.deepEqual(interfaceBroadcasts('wlan7', table), [], 'an absent interface has none');
  assert.deepEqual(interfaceBroadcasts(undefined, table), [], 'no interface configured');
  assert.deepEqual(interfaceBroadcasts('', table), [], 'an empty name is no interface');
});

test('limited broadcast 255.255.255.255 only when enabled and no interface broadcast exists', () => {
  assert.deepEqual(sharedBroadcasts(undefined, false, table), [], 'off by default');
  assert.deepEqual(sharedBroadcasts('wlan7', false, table), [], 'an unknown interface does not fall back to it');
  assert.deepEqual(sharedBroadcasts('wlan7', true, table), [limitedBroadcast], 'enabled: used as the reference does');
  assert.deepEqual(sharedBroadcasts(undefined, true, table), [limitedBroadcast], 'enabled without an interface');
  assert.deepEqual(sharedBroadcasts('eth0', true, table), ['192.168.2.255', '10.1.255.255'], 'an interface broadcast wins');
});

test('destinations: unicast is the client IP; broadcast adds the shared ones, each once', () => {
  const client = { ip: '192.168.2.7', netmask: '255.255.255.0' };
  assert.deepEqual(destinations(client, 'unicast', ['192.168.2.255'], false), ['192.168.2.7'], 'unicast ignores shared broadcasts');
  assert.deepEqual(destinations(client, 'broadcast', [], false), ['192.168.2.255'], 'directed only');
  assert.deepEqual(
    destinations(client, 'broadcast', ['10.1.255.255'], false),
    ['10.1.255.255', '192.168.2.255'],
    'interface then directed',
  );
  assert.deepEqual(destinations(client, 'broadcast', ['192.168.2.255'], false), ['192.168.2.255'], 'the same address once');
});

test('destinations: the shared broadcasts in their order, then the directed one unless it is among them (property)', () => {
  const pool = ['10.1.255.255', '192.168.2.255', '127.255.255.255', '255.255.255.255'];
  fc.assert(
    fc.property(
      // Often in one of the pool's subnets, so the directed broadcast is sometimes shared already.
      fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(...['10.1.3.4', '192.168.2.7', '127.0.0.5'].map(ipv4ToInt))),
      fc.oneof(fc.integer({ min: 1, max: 32 }), fc.constantFrom(8, 16, 24)),
      fc.uniqueArray(fc.constantFrom(...pool), { maxLength: pool.length }),
      (ip, prefix, shared) => {
        const client = { ip: intToIpv4(ip), netmask: intToIpv4((0xffffffff << (32 - prefix)) >>> 0) };
        const own = directedBroadcast(client.ip, client.netmask);
        const to = destinations(client, 'broadcast', shared, true);
        assert.deepEqual(to, [...new Set([...shared, own])], `${client.ip}/${prefix} with ${shared.join(', ') || 'nothing'} shared`);
      },
    ),
  );
});

test('destinations never hold 255.255.255.255 unless the limited broadcast is allowed, whatever the record', () => {
  const cases: [{ ip: string; netmask: string }, 'unicast' | 'broadcast', string][] = [
    [{ ip: '10.0.0.1', netmask: '0.0.0.0' }, 'broadcast', 'room netmask 0.0.0.0'],
    [{ ip: '255.255.255.7', netmask: '255.255.255.0' }, 'broadcast', 'a /24 at the top of the address space'],
    [{ ip: '255.255.255.255', netmask: '255.255.255.255' }, 'broadcast', 'client at 255.255.255.255, /32'],
    [{ ip: '255.255.255.255', netmask: '255.255.255.0' }, 'unicast', 'client at 255.255.255.255'],
  ];
  for (const [client, type, label] of cases) {
    assert.equal(destinations(client, type, [], false), undefined, `${label}: refused`);
    assert.deepEqual(destinations(client, type, [], true), [limitedBroadcast], `${label}: sent when wol.limited_broadcast is on`);
  }
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.integer({ min: 0, max: 32 }),
      fc.constantFrom('unicast' as const, 'broadcast' as const),
      (ip, prefix, type) => {
        const netmask = intToIpv4(prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);
        const to = destinations({ ip: intToIpv4(ip), netmask }, type, sharedBroadcasts(undefined, false, table), false);
        return to === undefined || !to.includes(limitedBroadcast);
      },
    ),
  );
});

test.run();
