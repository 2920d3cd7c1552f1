// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';

/** CHANGELOG.md keeps the usual shape, and its newest section is the release package.json names. */

const root = path.resolve(__dirname, '../../..');

test("the changelog's newest section is package.json's version, and each section has Added, Changed or Fixed", () => {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const text = readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
  const sections = [...text.matchAll(/^## (\S+)(.*)$/gm)].map((m) => m[1]);
  assert.ok(sections.length > 0, 'a section per version');
  assert.equal(sections[0], version, 'the newest section first, for the version package.json names');
  for (const body of text.split(/^## /m).slice(1)) {
    const kinds = [...body.matchAll(/^### (\w+)/gm)].map((m) => m[1]);
    assert.ok(
      kinds.length > 0 && kinds.every((k) => ['Added', 'Changed', 'Fixed', 'Removed', 'Security', 'Deprecated'].includes(k!)),
      body.split('\n')[0],
    );
  }
});

test.run();
