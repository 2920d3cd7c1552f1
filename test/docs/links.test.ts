// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { anchorOf, brokenLinks, documentationFiles, linksOf } from './markdown-links';

/**
 * The documentation holds together: README.md is a short map, the rest lives in docs/ and in a
 * README per plugin folder, and every relative link between them leads to a file that exists
 * and, with `#anchor`, to a heading of that page.
 */

/** The checkout: this file runs from dist/test/docs. */
const root = path.resolve(__dirname, '../../..');

test('every relative link of README.md, docs/ and the plugin READMEs leads to a file and a heading that exist', () => {
  const files = documentationFiles(root);
  assert.ok(files.length > 10, `the documentation found: ${files.map((f) => path.relative(root, f)).join(', ')}`);
  assert.deepEqual(brokenLinks(root, files), []);
});

test('a link to a missing file, a missing heading or into a file that is not a page is reported', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-links-'));
  try {
    mkdirSync(path.join(dir, 'docs'));
    mkdirSync(path.join(dir, 'plugins', 'hello'), { recursive: true });
    writeFileSync(path.join(dir, 'settings.json'), '{}\n');
    writeFileSync(
      path.join(dir, 'docs', 'guide.md'),
      ['# Guide', '', '## Events', '', '## Events', '', '## `npm test`, and CI!', ''].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'README.md'),
      [
        '# Map',
        '',
        '[guide](docs/guide.md), [second events](docs/guide.md#events-1), [tests](docs/guide.md#npm-test-and-ci),',
        '[here](#map), [hello](plugins/hello/README.md), [settings](settings.json), [site](https://example.org/x.md#nowhere)',
        '[gone](docs/gone.md) and [no heading](docs/guide.md#setup)',
        '[not a page](settings.json#keys) [third events](docs/guide.md#events-2)',
        '```md',
        '[in code](docs/also-gone.md)',
        '```',
        '`[inline code](docs/also-gone.md)`',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'plugins', 'hello', 'README.md'),
      '# hello\n\n[back](../../README.md#map) [wrong](../../README.md#maps)\n',
    );

    assert.deepEqual(brokenLinks(dir, documentationFiles(dir)), [
      'README.md:5: docs/gone.md: no such file docs/gone.md',
      'README.md:5: docs/guide.md#setup: docs/guide.md has no heading with the anchor #setup',
      'README.md:6: settings.json#keys: an anchor into settings.json, which is not a Markdown page',
      'README.md:6: docs/guide.md#events-2: docs/guide.md has no heading with the anchor #events-2',
      'plugins/hello/README.md:3: ../../README.md#maps: README.md has no heading with the anchor #maps',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('anchors are made as GitHub makes them', () => {
  assert.equal(anchorOf('REST conventions'), 'rest-conventions');
  assert.equal(anchorOf('The existing web console, CLI and agents'), 'the-existing-web-console-cli-and-agents');
  assert.equal(anchorOf('`npm run bench`'), 'npm-run-bench');
  assert.equal(anchorOf('Scale and fault tolerance'), 'scale-and-fault-tolerance');
  assert.equal(anchorOf('scheduler (not enabled by default)'), 'scheduler-not-enabled-by-default');
  assert.equal(anchorOf('`agents.max_answer_bytes` and 2^53'), 'agentsmax_answer_bytes-and-253');
  assert.equal(anchorOf('[Benchmarks](docs/benchmarks.md) and *more*'), 'benchmarks-and-more');
  assert.equal(anchorOf('Máscaras: sin red'), 'máscaras-sin-red');
});

test('README.md is a short map: the two commands, and a link to every page of docs/ and every plugin README', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  for (const command of ['npm install', 'npm start', 'npm test']) assert.ok(readme.includes(command), `README.md names ${command}`);
  const lines = readme.split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines: details belong in docs/ or a plugin's README, linked from the map`);

  const linked = new Set(linksOf(readme).map(({ target }) => target.split('#')[0]));
  const pages = readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md'));
  for (const page of pages) assert.ok(linked.has(`docs/${page}`), `README.md links docs/${page}`);
  for (const plugin of readdirSync(path.join(root, 'plugins'))) {
    const readmeOf = `plugins/${plugin}/README.md`;
    assert.ok(existsSync(path.join(root, readmeOf)), `the ${plugin} plugin has a README`);
    assert.ok(linked.has(readmeOf), `README.md's plugin table links ${readmeOf}`);
  }
});

test('the plugin examples of docs/writing-a-plugin.md are the files under examples/, which tests load', () => {
  const page = readFileSync(path.join(root, 'docs', 'writing-a-plugin.md'), 'utf8');
  for (const [heading, dir] of [
    ['## A small example', 'hello-plugin'],
    ['## A complete example', 'hello-complete'],
  ]) {
    const shown = /```js\n([\s\S]*?)```/.exec(page.slice(page.indexOf(heading)));
    assert.ok(page.includes(heading) && shown, `the page shows ${dir} in a js code block under '${heading}'`);
    const example = readFileSync(path.join(root, 'examples', dir, 'index.js'), 'utf8');
    // The file opens with a comment on what it shows; the page says that in prose.
    assert.equal(shown[1], example.replace(/^(\/\/.*\n)+/, ''), dir);
  }
});

test('the TypeScript plugin of docs/writing-a-plugin.md is examples/notes-plugin, file for file', () => {
  const page = readFileSync(path.join(root, 'docs', 'writing-a-plugin.md'), 'utf8');
  const section = page.slice(page.indexOf('## In TypeScript'), page.indexOf('## The contract'));
  const blocks = [...section.matchAll(/```(?:json|ts)\n([\s\S]*?)```/g)].map((m) => m[1]);
  const files = ['package.json', 'tsconfig.json', 'src/index.ts', 'test/notes.test.ts'];
  assert.equal(blocks.length, files.length, 'one block per file');
  for (const [i, file] of files.entries())
    assert.equal(blocks[i], readFileSync(path.join(root, 'examples', 'notes-plugin', file), 'utf8'), file);
});

test('the small example plugin stays under 40 lines', () => {
  const lines = readFileSync(path.join(root, 'examples', 'hello-plugin', 'index.js'), 'utf8')
    .trimEnd()
    .split('\n');
  assert.ok(lines.length < 40, `examples/hello-plugin/index.js has ${lines.length} lines`);
});

test.run();
