// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';

const checkout = path.resolve(__dirname, '..', '..', '..');
const script = path.join(checkout, 'scripts', 'check-structure.mjs');

function check(root?: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [script, ...(root ? [root] : [])], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

test('npm run check:structure holds on this checkout: every import through an entry point, no core file over 300 lines, no domain word in core, core under its ceiling', () => {
  const { status, output } = check();
  assert.equal(status, 0, output);
  assert.match(output, /every one through an entry point/);
  assert.match(output, /plugin entries' names only cli\/ uses: none/);
  assert.match(output, /core lines of code: \d+ in \d+ files \(at most \d+: holds\)/);
  assert.match(output, /core files over 300 lines: none\n/);
  assert.match(output, /domain words in core's code: none \(holds\)/);
  assert.match(output, /EntityManager forks outside core: none \(owners: [^)]*\)\n/);
});

test('a domain word in core, or core over its ceiling, fails the run and is named', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ogserve-structure-'));
  try {
    mkdirSync(path.join(root, 'plugins', 'a'), { recursive: true });
    mkdirSync(path.join(root, 'core'), { recursive: true });
    writeFileSync(path.join(root, 'plugins', 'a', 'index.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(root, 'core', 'ok.ts'), '// a comment may say image\nexport const ok = 1;\n');
    let { status, output } = check(root);
    assert.equal(status, 0, output);
    writeFileSync(path.join(root, 'core', 'wake.ts'), "export const room = 'wol';\n");
    ({ status, output } = check(root));
    assert.equal(status, 1, output);
    assert.match(output, /domain words in core's code: core\/wake\.ts \(2\) \(not met\)/);
    rmSync(path.join(root, 'core', 'wake.ts'));
    for (let i = 0; i < 14; i++) writeFileSync(path.join(root, 'core', `f${i}.ts`), 'export const x = 1;\n'.repeat(280));
    ({ status, output } = check(root));
    assert.equal(status, 1, output);
    assert.match(output, /core lines of code: 3921 in 15 files \(at most \d+: not met\)/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('it names each import past an entry point (from a plugin, cli/ and core/), each plugin file importing core files rather than ogserve, and each core file over 300 lines, and only those', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ogserve-structure-'));
  try {
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    write('plugins/a/index.ts', "export { inner } from './inner';\n");
    write('plugins/a/inner.ts', 'export const inner = 1;\n');
    write('plugins/b/index.ts', "import { inner } from '../a';\nexport const b = inner;\n");
    write(
      'plugins/b/deep.ts',
      "import { thing } from './local';\nimport {\n  inner,\n} from '../a/inner';\nexport const d = [thing, inner];\n",
    );
    write('plugins/b/local.ts', 'export const thing = 2;\n');
    write(
      'plugins/b/core-user.ts',
      "import type { Logger } from '../../core/log';\nimport { definePlugin } from 'ogserve';\nexport const c = [definePlugin] as unknown as Logger;\n",
    );
    write('plugins/console/ui/src/types.ts', "export type { Shape } from '../../../a/inner';\n");
    write('plugins/console/ui/src/value.ts', "import { inner } from '../../../a/inner';\nexport const v = inner;\n");
    write('cli/tool.ts', "import { inner } from '../plugins/a/inner';\nimport { b } from '../plugins/b';\nexport const t = [inner, b];\n");
    write('core/app.ts', "const a = require('../plugins/a');\nexport default a;\n");
    write('core/long.ts', 'export const x = 1;\n'.repeat(301));
    write('core/short.ts', 'export const y = 1;\n'.repeat(300));
    const { status, output } = check(root);
    assert.equal(status, 1, output);
    assert.match(output, /5 past an entry point/);
    assert.match(output, /plugins\/b\/core-user\.ts:1: imports '\.\.\/\.\.\/core\/log', inside core: import 'ogserve'/);
    assert.match(output, /plugins\/b\/deep\.ts:4: imports '\.\.\/a\/inner', inside plugin 'a'/);
    assert.match(output, /plugins\/console\/ui\/src\/value\.ts:1: imports '\.\.\/\.\.\/\.\.\/a\/inner'/);
    assert.match(output, /cli\/tool\.ts:1: imports '\.\.\/plugins\/a\/inner'/);
    assert.match(output, /core\/app\.ts:1: core imports plugin 'a'/);
    assert.match(output, /core files over 300 lines: core\/long\.ts \(301\)\n/, 'a file of 301 lines, not one of 300');
    assert.doesNotMatch(output, /types\.ts|plugins\/b\/index\.ts|local/, 'entry points, own files and browser type names pass');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a plugin entry name only cli/ uses fails the run and is named; one another plugin uses, or tests alone, passes', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ogserve-structure-'));
  try {
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    mkdirSync(path.join(root, 'core'), { recursive: true });
    write(
      'plugins/a/index.ts',
      "export { Shared, writeA, type ImportedA } from './import';\n/** Says export { notAName } in a comment. */\nexport const forTests = 1;\nexport default { name: 'a' };\n",
    );
    write('plugins/a/import.ts', 'export class Shared {}\nexport function writeA() {}\nexport interface ImportedA { id: number }\n');
    write('plugins/b/index.ts', "import { Shared } from '../a';\nexport const b = Shared;\n");
    write('test/a.test.ts', "import { forTests, writeA } from '../plugins/a';\nexport const t = [forTests, writeA];\n");
    write(
      'cli/import.ts',
      "import a, { Shared, writeA } from '../plugins/a';\nimport type {\n  ImportedA,\n} from '../plugins/a';\nexport const i: ImportedA[] = [a, Shared, writeA] as never;\n",
    );
    let { status, output } = check(root);
    assert.equal(status, 1, output);
    assert.match(output, /plugin entries' names only cli\/ uses: 2 /);
    assert.match(output, /plugin 'a' exports 'writeA', which only cli\/ uses/);
    assert.match(output, /plugin 'a' exports 'ImportedA', which only cli\/ uses/);
    assert.doesNotMatch(
      output,
      /'(Shared|forTests|notAName|default)'/,
      'a name another plugin uses, one only tests use, a comment and the definition pass',
    );
    write('cli/import.ts', "import a, { Shared } from '../plugins/a';\nexport const i = [a, Shared, a.name];\n");
    ({ status, output } = check(root));
    assert.equal(status, 0, output);
    assert.match(output, /plugin entries' names only cli\/ uses: none/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('an EntityManager fork outside core fails the run and is named, but not in core, not in a comment, and not in a file named as an owner', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ogserve-structure-'));
  try {
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    write('plugins/a/index.ts', 'export const a = 1;\n');
    write('core/database.ts', 'export const fresh = (db: { fork(): unknown }) => db.fork();\n');
    write(
      'plugins/a/service.ts',
      '// never db.fork() here\nexport const list = (db: { unit(em?: unknown): unknown }, em?: unknown) => db.unit(em);\n',
    );
    write('plugins/tokens/store.ts', 'export const read = (db: { fork(): unknown }) => db.fork();\n');
    let { status, output } = check(root);
    assert.equal(status, 0, output);
    assert.match(output, /EntityManager forks outside core: none \(owners: plugins\/tokens\/store\.ts\)/);
    write('plugins/a/service.ts', 'export const list = (db: { fork(): unknown }) =>\n  db.fork();\n');
    write('cli/tool.ts', 'export const t = (app: { database: { fork(): unknown } }) => app.database.fork();\n');
    ({ status, output } = check(root));
    assert.equal(status, 1, output);
    assert.match(output, /EntityManager forks outside core: 2 outside the owners/);
    assert.match(output, /plugins\/a\/service\.ts:2: a fork outside core/);
    assert.match(output, /cli\/tool\.ts:1: a fork outside core/);
    assert.doesNotMatch(output, /core\/database\.ts|tokens\/store\.ts:/, 'core and a named owner may fork');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
