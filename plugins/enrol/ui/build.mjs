// Builds the enrol plugin's console view (the New PCs page) into dist/plugins/enrol/console/view.js:
// its TypeScript checked with its own tsconfig (the DOM library), then bundled by esbuild into one
// ES module the console imports. Skipped when neither its sources nor the tools changed.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const out = path.join(root, 'dist/plugins/enrol/console');
const stampFile = path.join(out, '.source-hash');

const filesUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    .sort();

const hash = createHash('sha256');
for (const file of filesUnder(here)) hash.update(path.relative(here, file)).update(readFileSync(file));
for (const pkg of ['esbuild', 'typescript'])
  hash.update(JSON.parse(readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version);
const digest = hash.digest('hex');
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === digest && existsSync(path.join(out, 'view.js'))) process.exit(0);

execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(here, 'tsconfig.json')], {
  stdio: 'inherit',
});
const staging = `${out}.tmp-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
await esbuild.build({
  entryPoints: [path.join(here, 'src/view.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  outfile: path.join(staging, 'view.js'),
  legalComments: 'none',
  logLevel: 'warning',
});
writeFileSync(path.join(staging, '.source-hash'), digest);
mkdirSync(path.dirname(out), { recursive: true });
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
console.log('enrol console view built');
