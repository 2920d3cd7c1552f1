// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import fc from 'fast-check';
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

/** The packet as the regex-and-Buffer.from version built it. */
function reference(mac: string): Buffer | undefined {
  if (!/^[0-9a-fA-F]{12}$/.test(mac)) return undefined;
  return Buffer.concat([Buffer.alloc(6, 0xff), ...Array.from({ length: 16 }, () => Buffer.from(mac, 'hex'))]);
}

test('magic packet: every byte as the reference for any 12 hex digits, in any case (property)', () => {
  const hex = fc.constantFrom(...'0123456789abcdefABCDEF');
  fc.assert(
    fc.property(fc.array(hex, { minLength: 12, maxLength: 12 }), (digits) => {
      const mac = digits.join('');
      return magicPacket(mac).equals(reference(mac)!);
    }),
  );
});

test('magic packet: a character next to the hex ranges, or beyond ASCII, is refused wherever it stands (property)', () => {
  const near = [...'/:@G`g', ' ', '\0', '\u00c1', '\u0141', '\u0661', '\uff21', '\ud83d'];
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 11 }), fc.constantFrom(...near), (at, bad) => {
      const mac = `${'0a1B2c3D4e5F'.slice(0, at)}${bad}${'0a1B2c3D4e5F'.slice(at + 1)}`;
      assert.throws(() => magicPacket(mac), /12 hex digits/, JSON.stringify(mac));
    }),
  );
  fc.assert(
    fc.property(fc.string({ minLength: 12, maxLength: 12, unit: 'binary' }), (mac) => {
      const expected = reference(mac);
      if (expected) assert.deepEqual(magicPacket(mac), expected, JSON.stringify(mac));
      else assert.throws(() => magicPacket(mac), /12 hex digits/, JSON.stringify(mac));
    }),
  );
});

test('magic packet: each call returns its own buffer', () => {
  const first = magicPacket('0a1b2c3d4e5f');
  const second = magicPacket('0a1b2c3d4e5f');
  first.fill(0);
  assert.deepEqual(second, reference('0a1b2c3d4e5f'), 'writing one leaves the other intact');
});

test.run();
