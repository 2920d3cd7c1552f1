// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';

const checkout = path.resolve(__dirname, '..', '..', '..');
const tsc = path.join(checkout, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * ogserve as `npm install ogserve` lays it out in a third party's project: the package's
 * files (package.json, the built program with its declarations) in node_modules/ogserve,
 * its dependencies beside them.
 */
function installInto(project: string): void {
  const target = path.join(project, 'node_modules', 'ogserve');
  mkdirSync(target, { recursive: true });
  cpSync(path.join(checkout, 'package.json'), path.join(target, 'package.json'));
  for (const dir of ['core', 'plugins'])
    cpSync(path.join(checkout, 'dist', dir), path.join(target, 'dist', dir), {
      recursive: true,
      filter: (source) => !source.endsWith('.map'),
    });
  for (const dependency of readdirSync(path.join(checkout, 'node_modules')))
    if (dependency !== '.bin' && dependency !== '.package-lock.json')
      symlinkSync(path.join(checkout, 'node_modules', dependency), path.join(project, 'node_modules', dependency));
}

/** tsc --noEmit over the project's plugin.ts, strict, resolving packages as Node does. */
function typeCheck(project: string, source: string): { status: number | null; output: string } {
  writeFileSync(path.join(project, 'plugin.ts'), source);
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'Node16',
        moduleResolution: 'Node16',
        target: 'ES2022',
        noEmit: true,
        types: [],
        skipLibCheck: true,
      },
      files: ['plugin.ts'],
    }),
  );
  const run = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

const plugin = `import { definePlugin, Type, ErrorCode, badRequest } from 'ogserve';
import { Inventory } from 'ogserve/plugins/inventory';

declare module 'ogserve' {
  interface EventMap {
    'greeter.greeted': { client: string };
  }
}

export default definePlugin({
  name: 'greeter',
  requires: ['inventory'],
  config: Type.Object({ greeting: Type.String({ default: 'Hello' }) }),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const greeting: string = ctx.config.greeting;
    ctx.router.post('/greeter', { permission: 'read', body: Type.Object({ client: Type.String() }) }, async ({ body }) => {
      const client = await inventory.clientByIp(body.client);
      if (!client) throw badRequest(ErrorCode.unknownId, 'no such client', 'client');
      void ctx.events.emit('greeter.greeted', { client: body.client });
      return { message: greeting + ', ' + client.name };
    });
  },
});
`;

test('a TypeScript plugin outside the checkout type-checks against the installed package: its config, a service, its own event', () => {
  const project = mkdtempSync(path.join(tmpdir(), 'ogserve-ts-plugin-'));
  try {
    installInto(project);
    const good = typeCheck(project, plugin);
    assert.equal(good.status, 0, good.output);
    // The types are real: a wrong one is caught (an unknown event, a config value used as a number).
    const wrong = typeCheck(
      project,
      plugin
        .replace("'greeter.greeted', { client: body.client }", "'greeter.greeted', { client: 7 }")
        .replace('const greeting: string', 'const greeting: number'),
    );
    assert.equal(wrong.status, 2, wrong.output);
    assert.match(wrong.output, /plugin\.ts\(16,11\): error TS2322/, 'the config value is a string');
    assert.match(wrong.output, /plugin\.ts\(20,49\): error TS2322/, "the event's payload is checked");
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test.run();
