import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

/**
 * The database servers' test users, made before the suite runs as .ci/run makes them: every
 * run needs them, whatever OGSERVE_TEST_DB says (the importer reads a legacy MariaDB
 * database, the cluster runs on PostgreSQL). A user that logs in is left alone. One that
 * does not is created (or given its password) by the server's administrator on this machine:
 * PostgreSQL's `postgres` over loopback, MariaDB's `root` without a password over loopback
 * or over the socket. When that is not possible either, one line says what to run.
 */

export type ServerEngine = 'postgresql' | 'mariadb';

export interface TestAccount {
  engine: ServerEngine;
  port: number;
  user: string;
  pass: string;
}

/** What happened to one engine's test user: it logged in, or one line saying what was done or is to be done. */
export type UserOutcome = { kind: 'ok' } | { kind: 'created' | 'unreachable' | 'missing'; line: string };

const names: Record<ServerEngine, string> = { postgresql: 'PostgreSQL', mariadb: 'MariaDB' };
const defaultPorts: Record<ServerEngine, number> = { postgresql: 5432, mariadb: 3306 };
/** Where Debian, Fedora and a hand-started mariadbd put the socket. */
const mariadbSockets = ['/run/mysqld/mysqld.sock', '/var/run/mysqld/mysqld.sock', '/var/lib/mysql/mysql.sock', '/tmp/mysql.sock'];

/** The account test-db.ts and legacy-db.ts log in with on `engine`. */
export function testAccount(engine: ServerEngine, env: NodeJS.ProcessEnv = process.env): TestAccount {
  return {
    engine,
    port: Number(env.OGSERVE_TEST_DB_PORT ?? defaultPorts[engine]),
    user: env.OGSERVE_TEST_DB_USER ?? 'ogserve_test',
    pass: env.OGSERVE_TEST_DB_PASS ?? 'ogserve_test',
  };
}

/** Make sure `account` logs in and may create and drop `ogt_*` databases. */
export async function ensureTestUser(account: TestAccount): Promise<UserOutcome> {
  const name = names[account.engine];
  const first = await tryQueries(account.engine, { port: account.port, user: account.user, password: account.pass }, []);
  if (first.ok) return { kind: 'ok' };
  if (first.unreachable) {
    return {
      kind: 'unreachable',
      line: `${name} does not answer on 127.0.0.1:${account.port}: the tests that use it will fail (start it; .ci/run shows how)`,
    };
  }
  const tried: string[] = [];
  const made = await asAdministrator(account, createUserStatements(account));
  if (made.ok) {
    const again = await tryQueries(account.engine, { port: account.port, user: account.user, password: account.pass }, []);
    if (again.ok) return { kind: 'created', line: `test setup: made the ${name} user ${account.user} (as ${made.as})` };
    tried.push(`made as ${made.as}, but it still cannot log in: ${again.reason}`);
  } else tried.push(...made.tried);
  return {
    kind: 'missing',
    line: `${name}: the test user ${account.user} cannot log in (${first.reason}) and could not be made here (${tried.join('; ')}); run: ${manualCommand(account)}`,
  };
}

/** Every test user, each engine's outcome line printed to stderr. */
export async function ensureTestUsers(): Promise<UserOutcome[]> {
  const outcomes = await Promise.all((['postgresql', 'mariadb'] as const).map((engine) => ensureTestUser(testAccount(engine))));
  for (const outcome of outcomes) if (outcome.kind !== 'ok') process.stderr.write(`${outcome.line}\n`);
  return outcomes;
}

/** Run `statements` as `account` itself; the reason when it cannot. */
export async function asUser(account: TestAccount, statements: string[]): Promise<string | undefined> {
  const run = await tryQueries(account.engine, { port: account.port, user: account.user, password: account.pass }, statements);
  return run.ok ? undefined : run.reason;
}

/** Run `statements` as the server's administrator on this machine, trying each way in turn. */
export async function asAdministrator(
  account: TestAccount,
  statements: string[],
): Promise<{ ok: true; as: string } | { ok: false; tried: string[] }> {
  const tried: string[] = [];
  for (const admin of adminsOf(account)) {
    const run = await tryQueries(account.engine, admin.connection, statements);
    if (run.ok) return { ok: true, as: admin.label };
    tried.push(`${admin.label}: ${run.reason}`);
  }
  return { ok: false, tried };
}

interface Connection {
  port: number;
  user: string;
  password: string;
  socketPath?: string;
}

function adminsOf(account: TestAccount): { label: string; connection: Connection }[] {
  if (account.engine === 'postgresql')
    return [{ label: `postgres on 127.0.0.1:${account.port}`, connection: { port: account.port, user: 'postgres', password: '' } }];
  return [
    { label: `root on 127.0.0.1:${account.port}`, connection: { port: account.port, user: 'root', password: '' } },
    ...mariadbSockets
      .filter((socketPath) => existsSync(socketPath))
      .map((socketPath) => ({
        label: `root over ${socketPath}`,
        connection: { port: account.port, user: 'root', password: '', socketPath },
      })),
  ];
}

/** As .ci/run's create_test_users: the user may create and drop its own `ogt_*` databases, nothing else. */
export function createUserStatements(account: TestAccount): string[] {
  const user = account.user;
  const literal = account.engine === 'postgresql' ? pgLiteral : mariadbLiteral;
  const pass = literal(account.pass);
  if (account.engine === 'postgresql') {
    const role = `"${user.replace(/"/g, '""')}"`;
    return [
      `do $$ begin
         if exists (select from pg_roles where rolname = ${literal(user)}) then alter role ${role} login createdb password ${pass};
         else create role ${role} login createdb password ${pass};
         end if;
       end $$`,
    ];
  }
  return ['localhost', '127.0.0.1'].flatMap((host) => {
    const who = `${literal(user)}@${literal(host)}`;
    return [
      `create user if not exists ${who} identified by ${pass}`,
      `alter user ${who} identified by ${pass}`,
      `grant all privileges on \`ogt\\_%\`.* to ${who}`,
    ];
  });
}

/** What a person with administrator rights runs instead, on one line. */
export function manualCommand(account: TestAccount): string {
  const statements = createUserStatements(account).map((s) => s.replace(/\n\s*/g, ' '));
  // Inside the shell's double quotes, backslashes, double quotes, $ and ` are escaped.
  const quoted = `"${statements.join('; ').replace(/[\\"$`]/g, '\\$&')}"`;
  return account.engine === 'postgresql' ? `sudo -u postgres psql -c ${quoted}` : `sudo mariadb -e ${quoted}`;
}

/** A PostgreSQL string: backslashes are plain characters there (standard_conforming_strings). */
function pgLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A MariaDB string: backslashes escape there. */
function mariadbLiteral(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * Log in and run `statements`; `unreachable` when nothing listens. The drivers themselves,
 * not MikroORM: a login check then costs a fraction of a second, not seconds, on every run.
 */
async function tryQueries(
  engine: ServerEngine,
  connection: Connection,
  statements: string[],
): Promise<{ ok: true } | { ok: false; unreachable: boolean; reason: string }> {
  try {
    if (engine === 'postgresql') {
      const client = new Client({
        host: '127.0.0.1',
        port: connection.port,
        user: connection.user,
        password: connection.password,
        database: 'postgres',
        connectionTimeoutMillis: 5000,
      });
      try {
        await client.connect();
        for (const statement of statements) await client.query(statement);
      } finally {
        await client.end().catch(() => undefined);
      }
    } else {
      const client = await mariadb().createConnection({
        host: '127.0.0.1',
        port: connection.port,
        user: connection.user,
        password: connection.password,
        connectTimeout: 5000,
        ...(connection.socketPath ? { socketPath: connection.socketPath } : {}),
      });
      try {
        for (const statement of statements) await client.query(statement);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    return { ok: true };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { ok: false, unreachable: code === 'ECONNREFUSED' && !connection.socketPath, reason: firstLine((error as Error).message) };
  }
}

/** The MariaDB driver @mikro-orm/mariadb uses, wherever npm put it. */
function mariadb(): {
  createConnection(options: Record<string, unknown>): Promise<{ query(sql: string): Promise<unknown>; end(): Promise<void> }>;
} {
  return require(require.resolve('mariadb', { paths: [path.dirname(require.resolve('@mikro-orm/mariadb'))] }));
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.replace(/^\(conn:[^)]*\)\s*/, '');
}
