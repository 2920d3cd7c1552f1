// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'uvu';
import { ManualClock } from '../../../core/clock';
import { AuthClock } from '../../../plugins/auth';
import { chanceLarger, median } from '../../support/distributions';
import { startServer } from '../../support/server';
import { startSlapd } from '../../support/slapd';
import { addUser, login } from './people';
// After the server's imports, which load the reflection tsyringe needs.
import { container as rootContainer } from 'tsyringe';

const suffix = 'dc=example,dc=test';
const people = `ou=people,${suffix}`;
const groups = `ou=groups,${suffix}`;
const directory = [
  `dn: ou=people,${suffix}\nobjectClass: organizationalUnit\nou: people\n`,
  `dn: ou=groups,${suffix}\nobjectClass: organizationalUnit\nou: groups\n`,
  `dn: uid=jdoe,${people}\nobjectClass: inetOrgPerson\nuid: jdoe\ncn: jdoe\nsn: Test\nuserPassword: jdoe-directory-pw\n`,
  `dn: cn=staff,${groups}\nobjectClass: groupOfNames\ncn: staff\nmember: uid=jdoe,${people}\n`,
].join('\n');

/** Wrong sign-ins of each kind measured; the kinds take turns in a new order each round, so a machine busy for a while slows all alike. */
const rounds = 200;
const warmUp = 5;
/** A failure of each kind per round, all from one address: the throttle's window is moved on before it counts 100 (the most `free_failures` allows). */
const roundsPerWindow = 30;
const names = { local: 'ana', directory: 'jdoe', unknown: 'nobody' } as const;
type Kind = keyof typeof names;

/**
 * The chance that one kind's sign-in takes longer than another's stays near one half: 5
 * standard errors either side of it for 200 against 200. Names told apart by time lie at 0
 * or 1 (no overlap at all), so this is far from any real leak and far from chance.
 */
const chanceBand = [0.35, 0.65] as const;
/** And their medians stay within a fifth of each other (a local name once took 7 times as long as an unknown one). */
const medianBand = [0.8, 1.25] as const;

test('a wrong password for a local or directory name takes as long as an unknown name: the names cannot be listed by timing', async () => {
  const slapd = await startSlapd();
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 9));
  const services = rootContainer.createChildContainer();
  services.register(AuthClock, { useValue: clock });
  try {
    await slapd.add(directory);
    const s = await startServer({
      container: services,
      config: {
        auth: {
          free_failures: 100,
          // Above the 30-60 ms a check takes on a busy 2-core machine, below the default 250 that would make the test 2.5 min long.
          wrong_answer_ms: 100,
          ldap: {
            url: slapd.url,
            bind_dn: slapd.adminDn,
            bind_password: slapd.adminPassword,
            user_base: people,
            group_base: groups,
            groups: { [`cn=staff,${groups}`]: { role: 'reader' } },
          },
        },
      },
    });
    try {
      await addUser(s, names.local, 'reader');
      const took: Record<Kind, number[]> = { local: [], directory: [], unknown: [] };
      for (let round = -warmUp; round < rounds; round++) {
        if (round % roundsPerWindow === 0) await clock.advance(16 * 60_000);
        for (const kind of shuffled(Object.keys(names) as Kind[])) {
          const started = performance.now();
          const answer = await login(s.port, names[kind], 'a-wrong-password');
          const ms = performance.now() - started;
          assert.equal(answer.status, 401, `${kind}: ${answer.text}`);
          if (round >= 0) took[kind].push(ms);
        }
      }
      const medians = Object.fromEntries(Object.entries(took).map(([kind, ms]) => [kind, median(ms)])) as Record<Kind, number>;
      const pairs: [Kind, Kind][] = [
        ['local', 'unknown'],
        ['directory', 'unknown'],
        ['local', 'directory'],
      ];
      const chances = pairs.map(([a, b]) => chanceLarger(took[a], took[b]));
      const mediansText = Object.entries(medians).map(([kind, ms]) => `${kind} ${ms.toFixed(1)} ms`);
      const chancesText = pairs.map(([a, b], i) => `${a}>${b} ${chances[i]!.toFixed(2)}`);
      const summary = `medians ${mediansText.join(', ')}; P(slower): ${chancesText.join(', ')}`;
      console.log(`wrong sign-ins, ${rounds} of each kind: ${summary}`);
      pairs.forEach(([a, b], i) => {
        const ratio = medians[a] / medians[b];
        assert.ok(ratio >= medianBand[0] && ratio <= medianBand[1], `median ${a} / ${b} = ${ratio.toFixed(2)} (${summary})`);
        assert.ok(chances[i]! >= chanceBand[0] && chances[i]! <= chanceBand[1], `${a} slower than ${b}: ${chances[i]} (${summary})`);
      });
    } finally {
      await s.close();
    }
  } finally {
    await slapd.close();
  }
});

/** Fisher-Yates. */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

test.run();
