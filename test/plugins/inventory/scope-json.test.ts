import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'uvu';
import { stringifyAscii } from '../../../core/http/json';
import { COMPUTER_FOLDER_MARKER } from '../../../plugins/inventory';
import { type ScopeComputer, type ScopeGroups, ScopeWriter, scopeNodes, scopesJson } from '../../../plugins/inventory/scopes';

// Names with quotes, backslashes, control and non-ASCII characters (escaped as \uXXXX on the wire).
const name = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '"', '\\', '\n', '\u0001', 'é', 'ñ', '€', '😀'), maxLength: 8 });

/** A random tree: ids 1..n of each table, parents among lower ids, owners that may or may not exist. */
const site = fc
  .record({ centers: fc.nat(3), roomFolders: fc.nat(4), rooms: fc.nat(6), computerFolders: fc.nat(4), computers: fc.nat(20) })
  .chain((n) =>
    fc.record({
      centers: fc.array(fc.record({ name }), { minLength: n.centers, maxLength: n.centers }),
      roomFolders: fc.array(fc.record({ name, center: fc.integer({ min: 1, max: 3 }), parent: fc.nat(4) }), {
        minLength: n.roomFolders,
        maxLength: n.roomFolders,
      }),
      rooms: fc.array(fc.record({ name, center: fc.integer({ min: 1, max: 3 }), folder: fc.nat(4) }), {
        minLength: n.rooms,
        maxLength: n.rooms,
      }),
      computerFolders: fc.array(fc.record({ name, room: fc.integer({ min: 1, max: 6 }), parent: fc.nat(4) }), {
        minLength: n.computerFolders,
        maxLength: n.computerFolders,
      }),
      computers: fc.array(
        fc.record({ name, room: fc.integer({ min: 1, max: 6 }), folder: fc.nat(4), id: fc.integer({ min: 1, max: 10_000 }) }),
        {
          minLength: n.computers,
          maxLength: n.computers,
        },
      ),
    }),
  );

test('the written GET /scopes answer is exactly the tree of objects serialised as every other answer is', () => {
  fc.assert(
    fc.property(site, (s) => {
      const groups: ScopeGroups = {
        centers: s.centers.map((c, i) => ({ id: i + 1, name: c.name, parent: null, owner: 0 })),
        roomFolders: s.roomFolders.map((f, i) => ({
          id: i + 1,
          name: f.name,
          parent: f.parent > 0 && f.parent < i + 1 ? f.parent : null,
          owner: f.center,
        })),
        rooms: s.rooms.map((r, i) => ({ id: i + 1, name: r.name, parent: r.folder > 0 ? r.folder : null, owner: r.center })),
        computerFolders: s.computerFolders.map((f, i) => ({
          id: i + 1,
          name: f.name,
          parent: f.parent > 0 && f.parent < i + 1 ? f.parent : null,
          owner: f.room,
        })),
      };
      const ids = new Set<number>();
      const computers: ScopeComputer[] = s.computers
        .filter((c) => !ids.has(c.id) && ids.add(c.id))
        .map((c) => ({
          id: c.id,
          name: c.name,
          ip: `10.0.${c.id >> 8}.${c.id & 255}`,
          folderId: c.folder > 0 ? c.folder | COMPUTER_FOLDER_MARKER : 0,
          room: { id: c.room },
        }));
      const expected = stringifyAscii({ scope: scopeNodes(groups, computers) });
      assert.equal(scopesJson(groups, computers), expected);
      // Written twice from the same records (the kept texts of the second): the same answer.
      assert.equal(scopesJson(groups, computers), expected);
      assert.ok(/^[\x20-\x7e]*$/.test(expected), 'ASCII only');

      // One writer across changes, as the cache uses it: groups it wrote before are reused
      // only while their name and records are the same.
      const writer = new ScopeWriter();
      assert.equal(writer.write(groups, computers), expected);
      const changed = computers.map((c, i) =>
        i === 0 ? { ...c, name: `${c.name}x` } : i === 1 ? { ...c, room: { id: (c.room.id % 6) + 1 }, folderId: 0 } : c,
      );
      const renamed = { ...groups, rooms: groups.rooms.map((r, i) => (i === 0 ? { ...r, name: `${r.name}y` } : r)) };
      for (const [g, list, what] of [
        [groups, computers, 'unchanged'],
        [groups, changed, 'a computer renamed, another moved'],
        [renamed, changed, 'a room renamed'],
        [renamed, changed.slice(1), 'a computer removed'],
        [groups, computers, 'everything back'],
      ] as const)
        assert.equal(writer.write(g, list), stringifyAscii({ scope: scopeNodes(g, list) }), what);
    }),
    { numRuns: 300 },
  );
});

test.run();
