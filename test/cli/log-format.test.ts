// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { prettyLine } from '../../cli/log-pretty';
import { createApp } from '../../cli/config';

/** log.format: "pretty" gives a terminal one readable line per record; "json" stays the default. */

/** Start a service on `config` (SQLite and every folder in a temp dir, loopback, free ports), stop it: its log lines. */
async function logOf(config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-log-'));
  try {
    const file = path.join(dir, 'site.json');
    writeFileSync(
      file,
      JSON.stringify({
        rest: { ip: '127.0.0.1', port: 0, api_token: 'k' },
        agents: { ip: '127.0.0.1', port: 0 },
        database: { path: path.join(dir, 'og.sqlite') },
        plugins: ['inventory', 'agents'],
        ...config,
      }),
    );
    const lines: string[] = [];
    const logStream = { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) };
    const app = await createApp({ configFile: file, env, stateDir: dir, logStream });
    try {
      await app.listen();
    } finally {
      await app.close();
    }
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const timeAndLevel = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO |WARN |ERROR|DEBUG|FATAL|TRACE) /;

test('log.format pretty: every record one line, time, level and message first, no JSON', async () => {
  const lines = await logOf({ log: { format: 'pretty' } });
  assert.ok(lines.length >= 4, lines.join('\n'));
  for (const line of lines) assert.match(line, timeAndLevel, line);
  assert.match(lines[0]!, / INFO {2}ogserve \S+ starting: config \//, 'the start line');
  assert.ok(
    lines.some((l) => / INFO {2}\[agents\] agent interface listening on 127\.0\.0\.1:\d+(, [^=]*)?$/.test(l)),
    `a plugin's line names it, and repeats nothing its message says: ${lines.join('\n')}`,
  );
});

test('log.format is json unless said, and OGSERVE_LOG__FORMAT sets it', async () => {
  for (const line of await logOf({})) assert.ok(JSON.parse(line).msg, line);
  for (const line of await logOf({}, { OGSERVE_LOG__FORMAT: 'pretty' })) assert.match(line, timeAndLevel, line);
  await assert.rejects(logOf({ log: { format: 'text' } }), /config: log\.format: must be one of json, pretty/);
});

test('a pretty line: the plugin, the fields the message does not say, errors by type and message, long values cut', () => {
  const record = (fields: Record<string, unknown>) =>
    prettyLine(JSON.stringify({ level: 'warn', time: '2026-03-02T10:00:00.000Z', ...fields }));
  assert.equal(
    record({ plugin: 'agents', ip: '10.0.0.7', path: 'image/create', status: 500, msg: 'agent answered 500 to image/create' }),
    '2026-03-02T10:00:00.000Z WARN  [agents] agent answered 500 to image/create ip=10.0.0.7',
  );
  assert.equal(
    record({ err: { type: 'Error', message: 'disk full', stack: 'Error: disk full\n    at x' }, msg: 'plugin stop failed' }),
    '2026-03-02T10:00:00.000Z WARN  plugin stop failed err="Error: disk full"',
  );
  assert.equal(
    record({ name: 'Lab 1', done: true, clients: ['10.0.0.1'], msg: 'x' }),
    '2026-03-02T10:00:00.000Z WARN  x name="Lab 1" done=true clients=["10.0.0.1"]',
  );
  const long = record({ clients: Array.from({ length: 100 }, (_, i) => `10.0.0.${i}`), msg: 'x' });
  assert.ok(long.endsWith('...') && long.length < 300, long);
  assert.equal(prettyLine('not json\n'), 'not json', 'a line that is no record passes as it is');
});

test.run();
