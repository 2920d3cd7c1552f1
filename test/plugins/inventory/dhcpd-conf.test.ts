// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { DhcpdSyntaxError, looksLikeDhcpdConf, parseDhcpdConf } from '../../../plugins/inventory/dhcpd-conf';

/** A dhcpd.conf as OpenGnsys sites keep them: global options, a subnet per room, groups, comments. */
const site = `# dhcpd.conf -- OpenGnsys server
ddns-update-style none;
option domain-name "example.org";
option domain-name-servers 10.1.0.2, 10.1.0.3;
default-lease-time 600; max-lease-time 7200;
authoritative;

subnet 10.1.1.0 netmask 255.255.255.0 {
    option routers 10.1.1.1;            # aula 1
    option broadcast-address 10.1.1.255;
    next-server 10.1.0.1;
    filename "grldr";
    group {
        host aula1-pc01 { hardware ethernet 00:1A:2B:3C:4D:01; fixed-address 10.1.1.11; }
        host aula1-pc02 {
            hardware ethernet 0:1a:2b:3c:4d:2;
            fixed-address 10.1.1.12;
            option host-name "pc02";
        }
    }
}

shared-network lab {
  subnet 10.1.2.0 netmask 255.255.255.0 {
    option routers 10.1.2.1, 10.1.2.254;
    pool { range 10.1.2.100 10.1.2.150; }
  }
  host "lab-pc01"
  {
    hardware ethernet
      00-1a-2b-3c-4d-03
      ;
    fixed-address 10.1.2.11;
  }
}
if option arch = 00:07 { filename "ipxe.efi"; } else { filename "undionly.kpxe"; }
host top-level { hardware ethernet aa:bb:cc:dd:ee:04; fixed-address 10.1.3.14; } # after a block
`;

test('real-world shapes: hosts at top level, in groups, subnets and shared networks; subnets and their routers', () => {
  const conf = parseDhcpdConf(site);
  assert.deepEqual(conf.hosts, [
    { line: 14, block: 'aula1-pc01', name: 'aula1-pc01', mac: '00:1a:2b:3c:4d:01', ip: '10.1.1.11' },
    { line: 15, block: 'aula1-pc02', name: 'pc02', mac: '00:1a:2b:3c:4d:02', ip: '10.1.1.12' },
    { line: 28, block: 'lab-pc01', name: 'lab-pc01', mac: '00:1a:2b:3c:4d:03', ip: '10.1.2.11' },
    { line: 37, block: 'top-level', name: 'top-level', mac: 'aa:bb:cc:dd:ee:04', ip: '10.1.3.14' },
  ]);
  assert.deepEqual(conf.subnets, [
    { line: 8, network: '10.1.1.0', netmask: '255.255.255.0', router: '10.1.1.1' },
    { line: 24, network: '10.1.2.0', netmask: '255.255.255.0', router: '10.1.2.1' },
  ]);
  assert.deepEqual(conf.refused, []);
});

test('comments and quotes: a # inside a string is text, a ; or { in a comment is nothing', () => {
  const conf = parseDhcpdConf(
    [
      '# host commented-out { hardware ethernet 00:00:00:00:00:01; fixed-address 10.0.0.1; }',
      'host q { # { ; }',
      '  option host-name "pc # 7";  hardware ethernet 00:11:22:33:44:55; # ;;',
      '  fixed-address 10.0.0.7; }',
    ].join('\n'),
  );
  assert.deepEqual(conf.hosts, [{ line: 2, block: 'q', name: 'pc # 7', mac: '00:11:22:33:44:55', ip: '10.0.0.7' }]);
});

test('every refusal has its reason, field and line', () => {
  const conf = parseDhcpdConf(
    [
      'include "/etc/dhcp/rooms.conf";',
      'host no-mac { fixed-address 10.0.0.1; }',
      'host no-ip { hardware ethernet 00:11:22:33:44:01; }',
      'host by-name { hardware ethernet 00:11:22:33:44:02; fixed-address pc3.example.org; }',
      'host two { hardware ethernet 00:11:22:33:44:03; fixed-address 10.0.0.4, 10.0.0.5; }',
      'host bad-mac { hardware ethernet 00:11:22:33:44; fixed-address 10.0.0.6; }',
      'host ring { hardware token-ring 00:11:22:33:44:05; fixed-address 10.0.0.7; }',
      'host octet { hardware ethernet 00:11:22:33:44:100; fixed-address 10.0.0.8; }',
      'host ip { hardware ethernet 00:11:22:33:44:06; fixed-address 10.0.0.256; }',
    ].join('\n'),
  );
  assert.deepEqual(conf.refused, [
    {
      line: 1,
      refusal: {
        error: 'invalid_field',
        field: 'conf',
        message: 'include "/etc/dhcp/rooms.conf" is not followed: import that file too (its hosts are not in this one)',
      },
    },
  ]);
  assert.deepEqual(
    conf.hosts.map((h) => [h.line, h.block, h.refusal?.error, h.refusal?.field, h.refusal?.message]),
    [
      [2, 'no-mac', 'missing_field', 'mac', "host no-mac has no 'hardware ethernet'"],
      [3, 'no-ip', 'missing_field', 'ip', "host no-ip has no 'fixed-address'"],
      [4, 'by-name', 'invalid_field', 'ip', "fixed-address 'pc3.example.org' (line 4) is a host name: ogserve needs the PC's IPv4 address"],
      [5, 'two', 'invalid_field', 'ip', 'fixed-address names 2 addresses (line 5); a client has one'],
      [6, 'bad-mac', 'invalid_field', 'mac', "hardware ethernet '00:11:22:33:44' (line 6) is not a MAC address"],
      [7, 'ring', 'invalid_field', 'mac', "hardware token-ring (line 7): only 'hardware ethernet' names a PC's card"],
      [8, 'octet', 'invalid_field', 'mac', "hardware ethernet '00:11:22:33:44:100' (line 8) is not a MAC address"],
      [9, 'ip', 'invalid_field', 'ip', "fixed-address '10.0.0.256' (line 9) is a host name: ogserve needs the PC's IPv4 address"],
    ],
  );
});

test('a text that is not dhcpd.conf, or nests blocks past 64 levels, is refused whole, naming the line', () => {
  const refused = (text: string) => {
    try {
      parseDhcpdConf(text);
    } catch (error) {
      assert.ok(error instanceof DhcpdSyntaxError);
      return error.message;
    }
    return 'parsed';
  };
  assert.equal(
    refused('\nhost a {\n hardware ethernet 00:11:22:33:44:55;'),
    "line 2: the block opened here is not closed: a '}' is missing",
  );
  assert.equal(refused('host a { }\n}'), "line 2: a '}' closes no block");
  assert.equal(refused('option x "open\n\nhost'), 'line 1: a quoted string is not closed');
  assert.equal(refused('host a {\n fixed-address 10.0.0.1\n}'), "line 2: 'fixed-address 10.0.0.1' lacks its ';'");
  assert.equal(refused('authoritative'), "line 1: 'authoritative' lacks its ';'");
  const nested = (depth: number) => `${'group {\n'.repeat(depth - 1)}host a { }\n${'}\n'.repeat(depth - 1)}`;
  assert.equal(parseDhcpdConf(nested(64)).hosts.length, 1, 'a host inside 63 groups: 64 blocks deep, read');
  assert.equal(refused(nested(65)), 'line 65: blocks nest more than 64 deep here (a real dhcpd.conf nests a few)');
  assert.equal(refused(nested(100_000)), 'line 65: blocks nest more than 64 deep here (a real dhcpd.conf nests a few)');
});

test('an empty file and one without hosts have none; a dhcpd.conf is told from a CSV by its host blocks', () => {
  assert.deepEqual(parseDhcpdConf(''), { hosts: [], subnets: [], refused: [] });
  assert.deepEqual(parseDhcpdConf('# nothing\n\n').hosts, []);
  assert.ok(looksLikeDhcpdConf(site));
  assert.ok(looksLikeDhcpdConf('host pc{hardware ethernet 00:11:22:33:44:55;}'));
  assert.ok(!looksLikeDhcpdConf('ip,mac,room,name\n10.0.0.1,00:11:22:33:44:55,1,host'));
  assert.ok(!looksLikeDhcpdConf('name,ip\nhost {x},10.0.0.1'));
});

test.run();
