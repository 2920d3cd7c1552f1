// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type HandedEnd, NginxHandoff } from '../../../plugins/transfers/handoff';
import { createLogger } from '../../../core/log';

/** The id in a redirect: the segment after the internal location. */
const idOf = (redirect: string) => redirect.split('/')[2]!;

test("nginx's log line ends the body it names, once; lines of other formats, other ids or a second time are ignored", () => {
  const handoff = new NginxHandoff(createLogger('silent'));
  try {
    const heard: HandedEnd[] = [];
    const redirect = handoff.redirect('/srv/boot/ogLive/ogvmlinuz', (end) => heard.push(end));
    assert.match(redirect, /^\/_ogserve_bytes\/[0-9a-f]{16}\/srv\/boot\/ogLive\/ogvmlinuz$/);
    const line = `<190>ogserve: 206 1000 0.250 "" /_ogserve_bytes/${idOf(redirect)}/srv/boot/ogLive/ogvmlinuz`;
    handoff.receive('<190>ogserve: 206 1000 0.250 "" /elsewhere/0123456789abcdef/x');
    handoff.receive(`<190>ogserve: 2O6 1000 0.250 "" /_ogserve_bytes/${idOf(redirect)}/x`);
    handoff.receive('<190>ogserve: 200 5 0.001 "OK" /_ogserve_bytes/0123456789abcdef/x');
    assert.deepEqual(heard, [], 'nothing but its own, well-formed line');
    handoff.receive(line);
    handoff.receive(line);
    assert.deepEqual(heard, [{ status: 206, bytes: 1000, ms: 250, complete: false }], 'told once: bytes, ms, not complete');
    assert.equal(handoff.inFlight, 0);
  } finally {
    handoff.close();
  }
});

test('an answer that never reached nginx ends its body with nothing sent; its line, if one came after, is ignored', () => {
  const handoff = new NginxHandoff(createLogger('silent'));
  try {
    const heard: HandedEnd[] = [];
    const redirect = handoff.redirect('/srv/images/lab.img', (end) => heard.push(end));
    assert.equal(handoff.inFlight, 1);
    handoff.abandon(redirect);
    handoff.receive(`<190>ogserve: 200 7 0.001 "OK" /_ogserve_bytes/${idOf(redirect)}/srv/images/lab.img`);
    assert.deepEqual(heard, [{ status: 0, bytes: 0, ms: 0, complete: false }]);
    assert.equal(handoff.inFlight, 0);
  } finally {
    handoff.close();
  }
});

test('a path with characters URIs escape is sent escaped (nginx decodes X-Accel-Redirect)', () => {
  const handoff = new NginxHandoff(createLogger('silent'));
  try {
    assert.match(
      handoff.redirect('/srv/boot files/a#b?.img', () => undefined),
      /\/srv\/boot%20files\/a%23b%3F\.img$/,
    );
  } finally {
    handoff.close();
  }
});

test.run();
