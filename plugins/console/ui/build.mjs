// Builds the web console into dist/plugins/console/public: one hashed script and stylesheet
// (esbuild), index.html pointing at them, and .gz/.br copies of every text file. Skipped when
// neither the sources nor the build tools changed since the last build, so `npm run build`
// (run before every test and start) stays fast.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const out = path.join(root, 'dist/plugins/console/public');
const stampFile = path.join(out, '.source-hash');

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    .sort();
}

/** Everything the output depends on: the UI sources and the versions of the tools and libraries. */
function sourceHash() {
  const hash = createHash('sha256');
  for (const file of filesUnder(here)) hash.update(path.relative(here, file)).update(readFileSync(file));
  for (const pkg of ['esbuild', 'preact', 'typescript'])
    hash.update(JSON.parse(readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version);
  return hash.digest('hex');
}

const hash = sourceHash();
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash && existsSync(path.join(out, 'index.html'))) {
  process.exit(0);
}

const started = Date.now();
// esbuild does not check types; the console's own tsconfig does, with the DOM library.
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(here, 'tsconfig.json')], {
  stdio: 'inherit',
});

const staging = `${out}.tmp-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
const result = await esbuild.build({
  entryPoints: [path.join(here, 'src/main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(staging, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(staging, path.resolve(root, file)));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
const html = readFileSync(path.join(here, 'index.html'), 'utf8').replace(
  '<!-- assets -->',
  `<link rel="stylesheet" href="${style}">\n    <script type="module" src="${script}"></script>`,
);
writeFileSync(path.join(staging, 'index.html'), html);
writeFileSync(path.join(staging, 'favicon.svg'), readFileSync(path.join(here, 'favicon.svg')));

let gzipped = 0;
for (const file of filesUnder(staging)) {
  if (!/\.(js|css|html|svg)$/.test(file)) continue;
  const data = readFileSync(file);
  const gz = gzipSync(data, { level: 9 });
  gzipped += gz.length;
  writeFileSync(`${file}.gz`, gz);
  writeFileSync(
    `${file}.br`,
    brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }),
  );
}
writeFileSync(path.join(staging, '.source-hash'), hash);

mkdirSync(path.dirname(out), { recursive: true });
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const raw = filesUnder(out)
  .filter((f) => /\.(js|css|html|svg)$/.test(f))
  .reduce((sum, f) => sum + statSync(f).size, 0);
console.log(`console built in ${Date.now() - started} ms: ${kib(raw)}, ${kib(gzipped)} gzipped`);
