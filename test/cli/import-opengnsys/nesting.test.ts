import assert from 'node:assert/strict';
import { test } from 'uvu';
import { allPlugins, makeImportTarget } from '../../support/import-target';
import { type LegacyDatabase, withLegacyDatabase } from '../../support/legacy-db';
import { ogserve } from '../../support/process';
import { removeTestStore, startServer } from '../../support/server';

/** `rows` inserted 1,000 to a statement. */
async function insertAll(db: LegacyDatabase, head: string, rows: string[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) await db.query(`${head} values ${rows.slice(i, i + 1000).join(', ')}`);
}

/** 1..n, each naming the one before it (`n` is the deepest). */
const chain = (n: number, row: (id: number, parent: number) => string) => Array.from({ length: n }, (_, i) => row(i + 1, i));

interface ScopeNode {
  type: string;
  scope: ScopeNode[];
}

/** How many folders deep the scope tree goes under `node`. */
function folderDepth(node: ScopeNode): number {
  const folders = node.scope.filter((child) => child.type === 'folder');
  return folders.length === 0 ? 0 : 1 + Math.max(...folders.map(folderDepth));
}

test('folders and procedures chained thousands deep: the rows past 64 levels are refused one line each, the rest imported', async () => {
  await withLegacyDatabase({ site: false }, async (db) => {
    const { dir, configFile } = await makeImportTarget();
    try {
      await db.query('insert into version (version) values (4)');
      await db.query("insert into entornos (identorno, ipserveradm) values (1, '10.0.0.254')");
      await db.query("insert into centros (idcentro, nombrecentro) values (1, 'Centro')");
      await db.query("insert into aulas (idaula, nombreaula, idcentro, netmask) values (1, 'Aula', 1, '255.255.255.0')");
      await insertAll(
        db,
        'insert into grupos (idgrupo, nombregrupo, grupoid, tipo, idcentro)',
        chain(10_000, (id, parent) => `(${id}, 'g${id}', ${parent}, 2, 1)`),
      );
      await insertAll(
        db,
        'insert into gruposordenadores (idgrupo, nombregrupoordenador, idaula, grupoid)',
        chain(10_000, (id, parent) => `(${id}, 'f${id}', 1, ${parent})`),
      );
      // Procedure n includes n+1; the last one powers off.
      await insertAll(
        db,
        'insert into procedimientos (idprocedimiento, descripcion, idcentro)',
        chain(10_000, (id) => `(${id}, 'p${id}', 1)`),
      );
      await insertAll(
        db,
        'insert into procedimientos_acciones (idprocedimiento, orden, idcomando, parametros, procedimientoid)',
        chain(10_000, (id) => (id === 10_000 ? `(${id}, 1, 0, 'nfn=Apagar', 0)` : `(${id}, 1, 0, NULL, ${id + 1})`)),
      );

      const run = await ogserve(['import-opengnsys', '--from', db.url, '--config', configFile]);
      assert.equal(run.code, 2, run.stderr);
      assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');
      const lines = run.stdout.split('\n');
      assert.ok(lines.includes('refused  grupos 65 (g65): it is 65 folders deep, past the 64 levels the import takes'), run.stdout);
      assert.ok(lines.includes('refused  gruposordenadores 10000 (f10000): it is 10000 folders deep, past the 64 levels the import takes'));
      assert.ok(
        lines.includes('refused  procedimientos 9936 (p9936): it and what it includes nest 65 levels deep, past the 64 the import takes'),
      );
      assert.ok(
        lines.includes('refused  procedimientos 1 (p1): it and what it includes nest 10000 levels deep, past the 64 the import takes'),
      );
      assert.match(run.stdout, /^grupos +10000 +64 +9936 +0$/m, 'the summary counts them');
      assert.match(run.stdout, /^procedimientos +10000 +64 +9936 +0$/m);

      const s = await startServer({ dir, config: { plugins: allPlugins, log: { level: 'warn' } } });
      try {
        const center = (await s.get('/scopes')).body.scope[0];
        assert.equal(folderDepth(center), 64, 'room folders 1 to 64, each in the one before');
        const room = center.scope.find((node: ScopeNode) => node.type === 'room');
        assert.equal(folderDepth(room), 64, 'computer folders 1 to 64, each in the one before');
        const procedures = (await s.get('/procedures')).body.procedures.map((p: { id: number }) => p.id);
        assert.deepEqual([procedures.length, Math.min(...procedures)], [64, 9937], 'the last 64 of the chain');
      } finally {
        await s.close();
      }
    } finally {
      await removeTestStore(dir);
    }
  });
});

test.run();
