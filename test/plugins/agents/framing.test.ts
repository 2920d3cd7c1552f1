// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'uvu';
import { AnswerParser, FramingError, encodeRequest } from '../../../plugins/agents/framing';
import { answerBytes } from '../../support/fake-agent';

const parse = (bytes: string | Buffer, max = 1 << 20) =>
  new AnswerParser(max).push(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'latin1'));

test('requests are written exactly as the reference server writes them', () => {
  assert.equal(
    encodeRequest('GET', 'refresh').toString('latin1'),
    'GET /refresh HTTP/1.1\r\nContent-Length: 0\r\nContent-Type: application/json\r\n\r\n',
    'a request without body still carries both headers',
  );
  assert.equal(
    encodeRequest('POST', 'session', { disk: '1', partition: '2' }).toString('latin1'),
    'POST /session HTTP/1.1\r\nContent-Length: 28\r\nContent-Type: application/json\r\n\r\n{"disk":"1","partition":"2"}',
    'compact JSON body, key order kept, Content-Length in bytes',
  );
  const accented = encodeRequest('POST', 'shell/run', { run: 'echo é' }).toString('latin1');
  assert.ok(accented.endsWith('{"run":"echo \\u00e9"}'), `non-ASCII is escaped so characters equal bytes: ${accented}`);
  assert.ok(accented.includes('Content-Length: 21\r\n'), `length counts the escaped text: ${accented}`);
});

test('an answer split over many reads is read once complete', () => {
  const bytes = Buffer.from(answerBytes(200, { status: 'OPG', speed: 1000 }), 'latin1');
  const parser = new AnswerParser(1 << 20);
  const frames = [];
  for (const byte of bytes) frames.push(...parser.push(Buffer.from([byte])));
  assert.equal(frames.length, 1, 'one answer, byte by byte');
  assert.equal(frames[0]!.status, 200, 'status read');
  assert.deepEqual(JSON.parse(frames[0]!.body.toString()), { status: 'OPG', speed: 1000 }, 'body intact');
  assert.ok(parser.idle, 'nothing left half-read');
});

test('several answers and 103 events in one read are all kept', () => {
  const frames = parse(
    answerBytes(103, { event: 'session', action: 'start', user: 'u' }) + answerBytes(200, { a: 1 }) + answerBytes(202) + answerBytes(500),
  );
  assert.deepEqual(
    frames.map((f) => f.status),
    [103, 200, 202, 500],
    'every coalesced answer comes out, in order (the reference drops all but the first)',
  );
  assert.equal(frames[2]!.body.length, 0, 'empty body of a 202');
});

test('a missing Content-Length means no body, as the reference', () => {
  const frames = parse('HTTP/1.0 200 OK\r\n\r\n');
  assert.equal(frames.length, 1, 'answer read');
  assert.equal(frames[0]!.body.length, 0, 'empty body');
});

test('garbage, bad lengths and oversized answers are framing errors', () => {
  const bad: [string, string][] = [
    ['GET / HTTP/1.1\r\n\r\n', 'a request instead of an answer'],
    ['HTTP/1.0 200 OK\r\nContent-Length: -5\r\n\r\n', 'negative length'],
    ['HTTP/1.0 200 OK\r\nContent-Length: 12x\r\n\r\n', 'non-numeric length'],
    ['HTTP/1.0 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', 'conflicting lengths'],
    ['HTTP/1.0 2000 OK\r\n\r\n', 'four-digit status'],
    ['HTTP/1.0 200 OK\r\nno colon here\r\n\r\n', 'malformed header'],
    ['HTTP/1.0 200 OK\r\nContent-Length: 2000\r\n\r\n', 'longer than the cap'],
    [`HTTP/1.0 200 OK\r\nX: ${'a'.repeat(9000)}`, 'endless header'],
  ];
  for (const [bytes, what] of bad) {
    assert.throws(() => parse(bytes, 1024), FramingError, `${what} is refused`);
  }
});

test('fuzz: any byte stream, split anywhere, yields frames or a FramingError, never another exception', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 20 }), (chunks) => {
      const parser = new AnswerParser(4096);
      try {
        for (const chunk of chunks)
          for (const frame of parser.push(Buffer.from(chunk))) assert.ok(frame.body.length <= 4096, 'frame within the cap');
      } catch (error) {
        if (!(error instanceof FramingError)) throw error;
      }
    }),
    { numRuns: 2000 },
  );
});

test('fuzz: valid answers split at arbitrary points come out whole and in order', () => {
  const answer = fc.record({
    status: fc.constantFrom(103, 200, 202, 400, 500, 503),
    body: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 40 }), fc.integer())), { nil: undefined }),
  });
  fc.assert(
    fc.property(
      fc.array(answer, { minLength: 1, maxLength: 8 }),
      fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 30 }),
      (answers, cuts) => {
        const bytes = Buffer.from(answers.map((a) => answerBytes(a.status, a.body)).join(''), 'latin1');
        const parser = new AnswerParser(1 << 20);
        const frames = [];
        let at = 0;
        let i = 0;
        while (at < bytes.length) {
          const size = cuts[i++ % cuts.length]!;
          frames.push(...parser.push(bytes.subarray(at, at + size)));
          at += size;
        }
        assert.deepEqual(
          frames.map((f) => f.status),
          answers.map((a) => a.status),
          'same statuses in order',
        );
        frames.forEach((f, n) => {
          const expected = answers[n]!.body;
          assert.deepEqual(
            f.body.length ? JSON.parse(f.body.toString('latin1')) : undefined,
            expected === undefined ? undefined : JSON.parse(JSON.stringify(expected)),
            `body ${n} intact`,
          );
        });
        assert.ok(parser.idle, 'nothing left over');
      },
    ),
    { numRuns: 1000 },
  );
});

test('nothing stays buffered after a large answer, and a partial one holds only what arrived', () => {
  const parser = new AnswerParser(16 << 20);
  const body = JSON.stringify({ hardware: 'x'.repeat(8 << 20) });
  const bytes = Buffer.from(answerBytes(200, JSON.parse(body)), 'latin1');
  const chunk = 64 * 1024;
  let frames = 0;
  let peak = 0;
  for (let i = 0; i < bytes.length; i += chunk) {
    frames += parser.push(bytes.subarray(i, i + chunk)).length;
    peak = Math.max(peak, parser.bufferedBytes);
  }
  assert.equal(frames, 1, 'the 8 MiB answer is read');
  assert.ok(peak > (8 << 20) - chunk, `it was held while incomplete (${peak} bytes)`);
  assert.equal(parser.bufferedBytes, 0, 'nothing is kept once it is complete');
  assert.ok(parser.idle, 'the parser is idle');
  parser.push(Buffer.from('HTTP/1.0 200 OK\r\nContent-Le', 'latin1'));
  assert.equal(parser.bufferedBytes, 'HTTP/1.0 200 OK\r\nContent-Le'.length, 'a partial header holds only its own bytes');
  assert.equal(parser.push(Buffer.from('ngth: 2\r\n\r\n{}', 'latin1')).length, 1, 'and completes');
  assert.equal(parser.bufferedBytes, 0, 'nothing kept after a small answer either');
});

test.run();
