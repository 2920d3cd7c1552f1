import assert from 'node:assert/strict';
import { test } from 'uvu';
import { magicPacket, magicPacketLength } from '../../../plugins/wol/magic-packet';

test('magic packet: 6 x 0xFF then the MAC 16 times, 102 bytes', () => {
  const packet = magicPacket('0a1b2c3d4e5f');
  const expected = Buffer.concat([
    Buffer.alloc(6, 0xff),
    ...Array.from({ length: 16 }, () => Buffer.from([0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f])),
  ]);
  assert.equal(magicPacketLength, 102, 'length constant');
  assert.equal(packet.length, 102, 'packet length');
  assert.deepEqual(packet, expected, 'exact bytes');
});

test('magic packet: upper-case hex is the same MAC', () => {
  assert.deepEqual(magicPacket('0A1B2C3D4E5F'), magicPacket('0a1b2c3d4e5f'), 'case does not matter');
});

test('magic packet: refuses anything but 12 hex digits', () => {
  for (const bad of ['', '0a1b2c3d4e5', '0a1b2c3d4e5f0', '0a:1b:2c:3d:4e:5f', 'zz1b2c3d4e5f', ' 0a1b2c3d4e5f']) {
    assert.throws(() => magicPacket(bad), /12 hex digits/, `'${bad}' is refused`);
  }
});

test.run();
