// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { AuthClock } from '../../../plugins/auth';
import { chanceLarger, median } from '../../support/distributions';
import { startServer, type TestServer } from '../../support/server';
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
/** The name each kind of wrong sign-in tries: a local user, a directory account, nobody. */
const nameOf = { local: 'ana', directory: 'jdoe', unknown: 'nobody' } as const;
type Kind = keyof typeof nameOf;

/**
 * The chance that one kind's sign-in takes longer than another's stays near one half: 5
 * standard errors either side of it for 200 against 200. Names told apart by time lie at 0
 * or 1 (no overlap at all), so this is far from any real leak and far from chance.
 */
const chanceBand = [0.35, 0.65] as const;
/** And their medians stay within a fifth of each other (a local name once took 7 times as long as an unknown one). */
const medianBand = [0.8, 1.25] as const;

test('a wrong password for a local or directory name takes as long as an unknown name, with a directory or without', async () => {
  const slapd = await startSlapd();
  try {
    await slapd.add(directory);
    const ldap = {
      url: slapd.url,
      bind_dn: slapd.adminDn,
      bind_password: slapd.adminPassword,
      user_base: people,
      group_base: groups,
      groups: { [`cn=staff,${groups}`]: { role: 'reader' } },
    };
    // Side by side, to take one run's time: each server's sign-ins wait for each other's
    // scrypt, on every kind alike.
    const [withDirectory, localOnly] = await Promise.all([
      wrongSignIns({ ldap }, ['local', 'directory', 'unknown']),
      wrongSignIns({}, ['local', 'unknown']),
    ]);
    const verdicts = [compare('with a directory', withDirectory), compare('without', localOnly)];
    console.log(`wrong sign-ins, ${rounds} of each kind: ${verdicts.map((v) => v.summary).join('; ')}`);
    for (const { failures, summary } of verdicts) assert.deepEqual(failures, [], summary);
  } finally {
    await slapd.close();
  }
});

/** How long each of `kinds` of wrong sign-in took, in ms, on a server of its own with `auth`. */
async function wrongSignIns(auth: Record<string, unknown>, kinds: Kind[]): Promise<Partial<Record<Kind, number[]>>> {
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 9));
  const services = rootContainer.createChildContainer();
  services.register(AuthClock, { useValue: clock });
  // Above the 30-60 ms a check takes on a busy 2-core machine; the default 250 would make the test last minutes.
  const config = { auth: { free_failures: 100, wrong_answer_ms: 100, ...auth } };
  const s: TestServer = await startServer({ container: services, config });
  try {
    await addUser(s, nameOf.local, 'reader');
    const took: Partial<Record<Kind, number[]>> = Object.fromEntries(kinds.map((kind) => [kind, []]));
    for (let round = -warmUp; round < rounds; round++) {
      if (round % roundsPerWindow === 0) await clock.advance(16 * 60_000);
      for (const kind of shuffled(kinds)) {
        const started = performance.now();
        const answer = await login(s.port, nameOf[kind], 'a-wrong-password');
        const ms = performance.now() - started;
        assert.equal(answer.status, 401, `${kind}: ${answer.text}`);
        if (round >= 0) took[kind]!.push(ms);
      }
    }
    return took;
  } finally {
    await s.close();
  }
}

/** Each pair of kinds whose medians or ranks tell them apart, and the figures. */
function compare(label: string, took: Partial<Record<Kind, number[]>>): { failures: string[]; summary: string } {
  const kinds = Object.keys(took) as Kind[];
  const pairs = kinds.flatMap((a, i) => kinds.slice(i + 1).map((b) => [a, b] as const));
  const medians = kinds.map((kind) => `${kind} ${median(took[kind]!).toFixed(1)} ms`);
  const figures = pairs.map(([a, b]) => ({
    pair: `${a}/${b}`,
    ratio: median(took[a]!) / median(took[b]!),
    chance: chanceLarger(took[a]!, took[b]!),
  }));
  const summary = `${label}: medians ${medians.join(', ')}; P(slower) ${figures.map((f) => `${f.pair} ${f.chance.toFixed(2)}`).join(', ')}`;
  const failures = figures.flatMap(({ pair, ratio, chance }) => [
    ...(ratio < medianBand[0] || ratio > medianBand[1] ? [`${pair}: medians' ratio ${ratio.toFixed(2)}`] : []),
    ...(chance < chanceBand[0] || chance > chanceBand[1] ? [`${pair}: chance of being slower ${chance.toFixed(2)}`] : []),
  ]);
  return { failures, summary };
}

/** Fisher-Yates. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

test.run();
