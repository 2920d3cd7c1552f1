// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';

/** The program's command line: `ogserve [command] [options]`, run as a real process. */

const root = path.resolve(__dirname, '../../..');
const mainJs = path.join(root, 'dist', 'cli', 'main.js');
const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;

function ogserve(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [mainJs, ...args], { encoding: 'utf8', timeout: 20_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('--help, -h and help list the commands and options and exit 0', () => {
  for (const flag of ['--help', '-h', 'help']) {
    const run = ogserve(flag);
    assert.equal(run.status, 0, `${flag}: ${run.stderr}`);
    assert.match(run.stdout, /^Usage: ogserve \[command\] \[options\]$/m, `${flag}: usage line`);
    assert.match(run.stdout, /^ {2}serve +run the service \(the default\)$/m, `${flag}: the serve command`);
    assert.match(run.stdout, /--version/, `${flag}: the version option`);
    assert.match(run.stdout, /^ {2}-f, --config FILE +merge FILE over config\/default\.json/m, `${flag}: --config`);
    assert.match(run.stdout, /^ {2}-s, --state-dir DIR +where the database, the API key and boot files go/m, `${flag}: --state-dir`);
    assert.equal(run.stderr, '', `${flag}: nothing on stderr`);
  }
});

test("a command's help: serve --help, help serve, --config FILE --help", () => {
  for (const args of [
    ['serve', '--help'],
    ['help', 'serve'],
    ['--config', 'x.json', '--help'],
  ]) {
    const run = ogserve(...args);
    assert.equal(run.status, 0, args.join(' '));
    assert.match(run.stdout, /^Usage: ogserve \[serve\] \[--config FILE\] \[--state-dir DIR\]$/m, `${args.join(' ')}: serve's usage`);
    assert.match(run.stdout, /OGSERVE_<SECTION>__<KEY>/, `${args.join(' ')}: the environment overrides`);
  }
});

test('--version and -V print the release and exit 0', () => {
  for (const flag of ['--version', '-V']) {
    const run = ogserve(flag);
    assert.equal(run.status, 0, flag);
    assert.equal(run.stdout, `ogserve ${version}\n`, `${flag}: one line`);
  }
});

test('unknown options, commands and arguments are refused with exit 2 and one line', () => {
  const cases: [string[], string][] = [
    [['--bogus'], "ogserve: unknown option '--bogus' (see ogserve --help)\n"],
    [['serve', '-x'], "ogserve: unknown option '-x' (see ogserve --help)\n"],
    [['bogus'], "ogserve: unknown command 'bogus' (see ogserve --help)\n"],
    [['serve', 'extra'], "ogserve: unexpected argument 'extra' (see ogserve --help)\n"],
    [['--config'], 'ogserve: --config needs a value (see ogserve --help)\n'],
    [['--config='], 'ogserve: --config needs a value (see ogserve --help)\n'],
    [['-f'], 'ogserve: -f needs a value (see ogserve --help)\n'],
    [['--config', '--state-dir', 'x'], 'ogserve: --config needs a value (see ogserve --help)\n'],
    [['--state-dir'], 'ogserve: --state-dir needs a value (see ogserve --help)\n'],
    [['--config', 'a.json', '--config', 'b.json'], 'ogserve: --config is given twice (see ogserve --help)\n'],
  ];
  for (const [args, stderr] of cases) {
    const run = ogserve(...args);
    assert.equal(run.status, 2, `${args.join(' ')}: exit code`);
    assert.equal(run.stderr, stderr, `${args.join(' ')}: message`);
    assert.equal(run.stdout, '', `${args.join(' ')}: nothing started`);
  }
});

test('a --config file that cannot be read stops the start with exit 1 and one line naming it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-cli-'));
  try {
    const missing = path.join(dir, 'nope.json');
    const run = ogserve('--config', missing);
    assert.equal(run.status, 1, 'exit code');
    assert.match(run.stderr, new RegExp(`^ogserve: config: cannot read ${missing}: ENOENT[^\\n]*\\n$`), run.stderr);
    assert.equal(run.stdout, '', 'nothing logged: the service never started');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
