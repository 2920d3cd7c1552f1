import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'uvu';
import { stringifyAscii } from '../../../core/http/json';
import { cacheListingJson } from '../../../plugins/cache/listing';

const text = fc.string({ unit: fc.constantFrom('a', '.', '"', '\\', '\n', 'é', '€', '😀'), maxLength: 6 });
const size = fc.bigInt({ min: 0n, max: 2n ** 63n - 1n });
const entry = fc.record({
  ip: fc.constantFrom('10.0.0.1', '127.0.3.9'),
  cacheSize: fc.oneof(fc.constant(0n), size),
  images: fc.array(fc.record({ name: text, size, checksum: text }), { maxLength: 5 }),
});

test('the written GET /cache/list answer is the object form serialised as every other answer, 64-bit sizes exact', () => {
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 6 }), (entries) => {
      const objects = entries.map(({ ip, cacheSize, images }) => {
        const listed = cacheSize === 0n ? [] : images;
        const used = listed.reduce((sum, i) => sum + i.size, 0n);
        return { ip, cache_size: cacheSize, used_size: used, free_size: used < cacheSize ? cacheSize - used : 0n, images: listed };
      });
      const expected = stringifyAscii({ clients: objects });
      assert.equal(cacheListingJson(entries), expected);
      assert.equal(cacheListingJson(entries), expected, 'again, from the kept texts');
    }),
    { numRuns: 300 },
  );
});

test.run();
