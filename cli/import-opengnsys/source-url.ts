import { UsageError } from '../command';

/** Where the legacy database is: what `--from mysql://USER:PASS@HOST:PORT/DBNAME` says. */
export interface SourceUrl {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

const schemes = new Set(['mysql:', 'mariadb:']);

/**
 * Read `--from`. User and password may be percent-encoded (`p%40ss` for `p@ss`); without a
 * password in the URL, MYSQL_PWD is used, as the mysql client does, so that the password
 * need not show in the process list. The port defaults to 3306.
 */
export function parseSourceUrl(text: string, env: NodeJS.ProcessEnv = process.env): SourceUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--from: '${text}' is not a URL like mysql://USER:PASS@HOST:PORT/DBNAME`);
  }
  if (!schemes.has(url.protocol)) throw new UsageError(`--from: '${url.protocol}' is not mysql: or mariadb:`);
  if (url.hostname === '') throw new UsageError('--from: the URL names no host');
  if (url.search !== '' || url.hash !== '') throw new UsageError('--from: the URL takes no query or fragment');
  const database = decode(url.pathname.replace(/^\//, ''), 'database name');
  if (database === '' || database.includes('/')) throw new UsageError('--from: the URL must end with /DBNAME');
  const user = decode(url.username, 'user');
  if (user === '') throw new UsageError('--from: the URL names no user (mysql://USER:PASS@HOST/DBNAME)');
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? 3306 : Number(url.port),
    user,
    password: url.password !== '' ? decode(url.password, 'password') : (env.MYSQL_PWD ?? ''),
    database,
  };
}

/** The URL without its password, for messages and logs. */
export function describeSource(source: SourceUrl): string {
  const host = source.host.includes(':') ? `[${source.host}]` : source.host;
  return `mysql://${encodeURIComponent(source.user)}@${host}:${source.port}/${encodeURIComponent(source.database)}`;
}

function decode(value: string, what: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new UsageError(`--from: the ${what} in the URL is not valid percent-encoding`);
  }
}
