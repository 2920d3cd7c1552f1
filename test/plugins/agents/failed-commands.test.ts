// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually, within } from '../../support/fake-agent';
import { site } from './helpers';

test('each failed command is logged once, at warn, with its client, command and reason; successes are not', async () => {
  const x = await site(7, { command_timeout_s: 0.5 });
  try {
    const [silent, leaving, erring, unstorable, interrupted, stopped, fine] = x.ips as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const agents = new Map(await Promise.all(x.ips.map(async (ip) => [ip, await x.connect(ip)] as const)));
    const agent = (ip: string) => agents.get(ip)!;
    const hardware = async (ip: string) => assert.equal((await x.s.post('/hardware', { clients: [ip] })).body.clients[0].outcome, 'sent');

    agent(silent).on('hardware', { none: true });
    await hardware(silent);
    agent(leaving).on('hardware', { none: true });
    await hardware(leaving);
    await agent(leaving).waitFor('hardware');
    agent(leaving).destroy();
    agent(erring).on('hardware', { status: 500 });
    await hardware(erring);
    agent(unstorable).on('hardware', { body: { hardware: 'xyz=no such type\n' } });
    await hardware(unstorable);
    agent(interrupted).on('hardware', { none: true });
    await hardware(interrupted);
    await agent(interrupted).waitFor('hardware');
    await x.s.post('/reboot', { clients: [interrupted] });
    // stop is answered by the agent leaving: that is its success.
    await x.s.post('/stop', { clients: [stopped] });
    await within(agent(stopped).closed, 5000, 'the stopped agent leaves');
    await hardware(fine);

    const failures = (ip: string, command?: string) =>
      x.s.logs.filter((l) => l.ip === ip && /^command .+ failed: /.test(l.msg) && (command === undefined || l.command === command));
    const expected: [ip: string, reason: RegExp][] = [
      [silent, /no answer to hardware within 500 ms/],
      [leaving, /agent disconnected/],
      [erring, /the agent answered 500/],
      [unstorable, /answer not stored: unknown hardware type 'xyz'/],
      [interrupted, /interrupted by reboot/],
    ];
    for (const [ip, reason] of expected) {
      await eventually(() => failures(ip, 'hardware').length > 0, `the failure of ${ip}'s hardware logged`);
      const [line, ...more] = failures(ip, 'hardware');
      assert.equal(more.length, 0, `${ip}: logged once`);
      assert.equal(line!.level, 'warn', `${ip}: at warn`);
      assert.match(String(line!.reason), reason, `${ip}: the reason`);
      assert.equal(line!.msg, `command hardware to ${ip} failed: ${line!.reason}`, `${ip}: the line says it`);
    }
    await x.settled(fine);
    assert.equal(failures(fine).length, 0, 'a command that succeeded is not logged as failed');
    assert.equal(failures(stopped).length, 0, 'a stop ended by the agent leaving is not a failure');
    assert.equal(failures(interrupted, 'reboot').length, 0, 'the reboot that interrupted a command is not a failure');
  } finally {
    await x.close();
  }
});

test.run();
