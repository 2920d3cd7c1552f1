// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'uvu';
import { eventually, within } from '../../support/fake-agent';
import { site } from './helpers';

/** An agent's 200 answer carrying `body` as UTF-8 JSON (characters not escaped, as an agent may send them). */
function rawAnswer(body: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  return Buffer.concat([Buffer.from(`HTTP/1.0 200 OK\r\nContent-Length: ${json.length}\r\n\r\n`, 'latin1'), json]);
}

/** Threads of this process (the server runs in it). */
const threads = () => readdirSync('/proc/self/task').length;

test('a large answer is parsed off the main thread and reaches its caller whole, characters split between reads included', async () => {
  const x = await site(1);
  const parse = JSON.parse;
  let largest = 0;
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const body = { out: 'caf\u00e9 \u20ac \u{1f600} ok\n'.repeat(80_000), retcode: 0 };
    // Pieces of an odd size: multi-byte characters straddle them.
    agent.on('test/large', { raw: rawAnswer(body), splitEvery: 65_521 });
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      largest = Math.max(largest, text.length);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    const dispatch = await x.link.dispatch([ip], { method: 'GET', path: 'test/large' });
    const answer = await within(dispatch.answers.get(ip)!, 20_000, 'the large answer');
    JSON.parse = parse;
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, body, 'the body as the agent sent it');
    assert.ok(largest < 256 * 1024, `the main thread parsed no large text (the largest was ${largest} characters)`);
    assert.equal(x.link.connection(ip)?.bufferedBytes, 0, 'the connection keeps none of it');
  } finally {
    JSON.parse = parse;
    await x.close();
  }
});

test('an answer holding more JSON values than agents.max_answer_values, or a large one that is not JSON, drops only its connection, with the reason logged', async () => {
  const x = await site(4, { max_answer_values: 1000 });
  try {
    const [small, large, garbage, bystanderIp] = x.ips as [string, string, string, string];
    const bystander = await x.connect(bystanderIp);
    const notJson = Buffer.alloc(300_000, 'x');
    const cases: [ip: string, raw: Buffer, why: RegExp][] = [
      // About 3 KB, parsed at once.
      [small, rawAnswer({ hardware: 'cpu=x\n', list: new Array(1500).fill(0) }), /holds more than 1000 JSON values/],
      // About 300 KB, parsed on the parse thread.
      [large, rawAnswer({ hardware: 'cpu=x\n', list: new Array(150_000).fill(0) }), /holds more than 1000 JSON values/],
      [garbage, Buffer.concat([Buffer.from(`HTTP/1.0 200 OK\r\nContent-Length: ${notJson.length}\r\n\r\n`), notJson]), /not JSON/],
    ];
    for (const [ip, raw, why] of cases) {
      const agent = await x.connect(ip);
      agent.on('hardware', { raw });
      assert.equal((await x.s.post('/hardware', { clients: [ip] })).body.clients[0].outcome, 'sent');
      await within(agent.closed, 10_000, `${ip} dropped`);
      assert.ok(
        x.s.logs.some((l) => l.ip === ip && l.level === 'warn' && /dropping agent connection/.test(l.msg) && why.test(l.msg)),
        `${ip}: the reason is logged (${why})`,
      );
    }
    assert.ok(bystander.isConnected, 'the well-behaved agent stays connected');
    await x.s.post('/hardware', { clients: [bystanderIp] });
    await eventually(async () => (await x.s.get('/hardware', { client: [bystanderIp] })).body.hardware.length === 3, 'and still works');
  } finally {
    await x.close();
  }
});

test('once large answers stop coming, the parse thread ends and their memory is collected; the connection keeps none of it', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const before = threads();
    agent.on('test/large', { raw: rawAnswer({ out: 'x'.repeat(9 * 2 ** 20 - 64) }) }, true);
    for (let i = 0; i < 4; i++) {
      const dispatch = await x.link.dispatch([ip], { method: 'GET', path: 'test/large' });
      await within(dispatch.answers.get(ip)!, 20_000, `large answer ${i}`);
      assert.equal(x.link.connection(ip)?.bufferedBytes, 0, `the connection keeps no byte of answer ${i}`);
    }
    assert.ok(threads() > before, 'the answers were parsed on a thread of their own');
    const collected = () => x.s.logs.filter((l) => /MiB of large agent answers parsed: memory collected in \d+ ms/.test(l.msg));
    assert.equal(collected().length, 0, 'nothing collected while they come');
    await eventually(() => collected().length > 0, 'a collection once they stopped', 15_000);
    const [line] = collected();
    assert.equal(line!.mib, 36, 'every MiB parsed since the last collection counted');
    assert.equal(typeof line!.heapAfterMiB, 'number', 'the heap after it is logged');
    await eventually(() => threads() <= before, 'the parse thread ended');
  } finally {
    await x.close();
  }
});

test.run();
