import { readFileSync } from 'node:fs';
import { Client, InvalidCredentialsError, ResultCodeError } from 'ldapts';

export interface LdapSettings {
  /** One URL or a list tried in order (failover): ldap://host:port or ldaps://host:port. */
  url: string | string[];
  /** Upgrade ldap:// with StartTLS before binding. */
  starttls?: boolean;
  /** PEM file of the CA that signed the directory's certificate (ldaps or StartTLS). */
  ca_file?: string;
  /** The service account that searches for users; absent: anonymous search. */
  bind_dn?: string;
  bind_password?: string;
  user_base: string;
  /** e.g. "(uid={username})" or "(sAMAccountName={username})"; {username} is replaced, escaped per RFC 4515. */
  user_filter: string;
  /** Groups found by search when set: group_base + group_filter, e.g. "(member={dn})" ({dn} escaped); otherwise the user's memberOf attribute. */
  group_base?: string;
  group_filter?: string;
  /** Per connection and operation. */
  timeout_ms: number;
}

export type DirectoryAnswer =
  /** Group DNs with nested groups resolved, each normalised as {@link LdapDirectory.normaliseDn} does. */
  | { outcome: 'ok'; dn: string; groups: string[] }
  | { outcome: 'wrong-password' }
  | { outcome: 'unknown-user' }
  /** No URL answered, TLS failed or the service bind was refused: `reason` says which (never a password). */
  | { outcome: 'unavailable'; reason: string };

type Log = { warn(obj: object, msg: string): void };

/** How deep nested groups are followed: enough for real directories, bounded for a misconfigured one. */
const maxDepth = 10;

/** Signs people in against an LDAP directory or Active Directory, one connection per sign-in. */
export class LdapDirectory {
  private readonly urls: string[];
  /** Read once: an unreadable CA file is a configuration error at start, not a failed sign-in later. */
  private readonly ca?: Buffer;

  constructor(
    private readonly settings: LdapSettings,
    private readonly log?: Log,
  ) {
    this.urls = Array.isArray(settings.url) ? settings.url : [settings.url];
    this.ca = settings.ca_file ? readFileSync(settings.ca_file) : undefined;
  }

  /** Lower case, no spaces around RDNs or their "=": DNs from the directory and from configuration then compare equal. */
  static normaliseDn(dn: string): string {
    const rdns = (dn.match(/(?:\\.|[^,\\])+/g) ?? []).map((rdn) => rdn.trim().replace(/\s*=\s*/, '='));
    return rdns.join(',').toLowerCase();
  }

  async authenticate(username: string, password: string): Promise<DirectoryAnswer> {
    // Refused before any traffic: a simple bind with a DN and an empty password is an
    // "unauthenticated bind", which AD answers with success.
    if (username === '') return { outcome: 'unknown-user' };
    if (password === '') return { outcome: 'wrong-password' };
    if (this.settings.bind_dn && !this.settings.bind_password) {
      return { outcome: 'unavailable', reason: 'bind_dn is set without bind_password (that would be an unauthenticated bind)' };
    }
    const opened = await this.open();
    if ('reason' in opened) return { outcome: 'unavailable', reason: opened.reason };
    try {
      return await this.signIn(opened.client, username, password);
    } catch (error) {
      return { outcome: 'unavailable', reason: `${opened.url}: ${describe(error)}` };
    } finally {
      await close(opened.client);
    }
  }

  /**
   * The first URL that connects (with StartTLS when asked) and takes the service bind. A URL that
   * does not connect, times out or fails TLS moves on to the next; a refused service bind does
   * not, since another replica of the same directory would refuse it too.
   */
  private async open(): Promise<{ client: Client; url: string } | { reason: string }> {
    const failures: string[] = [];
    for (const url of this.urls) {
      let client: Client | undefined;
      let connected = false;
      try {
        client = this.client(url);
        // ldapts's StartTLS checks the certificate against "localhost" unless told the host.
        const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
        if (this.settings.starttls) await within(this.settings.timeout_ms, client.startTLS({ ca: this.ca, host }), 'StartTLS');
        connected = true;
        await this.serviceBind(client);
        return { client, url };
      } catch (error) {
        if (client) await close(client);
        if (connected && error instanceof ResultCodeError) {
          return { reason: `service bind as ${this.settings.bind_dn ?? 'anonymous'} refused by ${url}: ${describe(error)}` };
        }
        failures.push(`${url}: ${describe(error)}`);
        this.log?.warn({ url, error: describe(error) }, 'directory server unavailable, trying the next one');
      }
    }
    return { reason: `no directory server answered (${failures.join('; ') || 'no url configured'})` };
  }

  private client(url: string): Client {
    const ms = this.settings.timeout_ms;
    // ldapts speaks TLS from the first byte whenever tlsOptions is given: ldaps:// only.
    const tlsOptions = url.startsWith('ldaps:') ? { ca: this.ca } : undefined;
    return new Client({ url, timeout: ms, connectTimeout: ms, tlsOptions });
  }

  /** As the service account, or anonymously; the first bind is also what opens the connection. */
  private async serviceBind(client: Client): Promise<void> {
    const { bind_dn, bind_password } = this.settings;
    await client.bind(bind_dn ?? '', bind_dn ? bind_password : '');
  }

  private async signIn(client: Client, username: string, password: string): Promise<DirectoryAnswer> {
    const { user_base, user_filter, group_base } = this.settings;
    const { searchEntries } = await client.search(user_base, {
      scope: 'sub',
      filter: fill(user_filter, 'username', username),
      attributes: group_base ? ['1.1'] : ['memberOf'],
      sizeLimit: 2, // two are enough to know the filter is ambiguous
    });
    if (searchEntries.length > 1) {
      this.log?.warn({ username, user_base }, 'more than one directory entry matches the user filter: refusing the sign-in');
      return { outcome: 'unknown-user' };
    }
    const user = searchEntries[0];
    if (!user) return { outcome: 'unknown-user' };
    try {
      await client.bind(user.dn, password);
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return { outcome: 'wrong-password' };
      throw error;
    }
    // Back to the service account: the user may not be allowed to read groups.
    await this.serviceBind(client);
    const parentsOf = group_base
      ? (dns: string[]) => this.groupsWithMember(client, group_base, dns)
      : (dns: string[]) => this.memberOf(client, dns);
    const direct = group_base ? await parentsOf([user.dn]) : values(user.memberOf);
    return { outcome: 'ok', dn: user.dn, groups: await this.closure(direct, parentsOf) };
  }

  /** The groups, then the groups those are members of, until none is new (nesting, cycles guarded). */
  private async closure(direct: string[], parentsOf: (dns: string[]) => Promise<string[]>): Promise<string[]> {
    const seen = new Set<string>();
    const unseen = (dns: string[]) =>
      dns.filter((dn) => {
        const key = LdapDirectory.normaliseDn(dn);
        return seen.has(key) ? false : seen.add(key);
      });
    let frontier = unseen(direct);
    for (let depth = 1; frontier.length > 0; depth++) {
      const parents = await parentsOf(frontier);
      if (depth === maxDepth) {
        // Looked up only to tell whether anything was left out.
        const deeper = parents.filter((dn) => !seen.has(LdapDirectory.normaliseDn(dn)));
        if (deeper.length > 0) this.log?.warn({ groups: deeper }, `group nesting followed ${maxDepth} levels deep only`);
        break;
      }
      frontier = unseen(parents);
    }
    return [...seen].sort();
  }

  /** Groups under group_base whose member (per group_filter) is one of `dns`: one search per level. */
  private async groupsWithMember(client: Client, base: string, dns: string[]): Promise<string[]> {
    const template = this.settings.group_filter ?? '(member={dn})';
    const filter = `(|${dns.map((dn) => fill(template, 'dn', dn)).join('')})`;
    const { searchEntries } = await client.search(base, { scope: 'sub', filter, attributes: ['1.1'], paged: true });
    return searchEntries.map((entry) => entry.dn);
  }

  /** The memberOf values of each group entry (a group that cannot be read has none). */
  private async memberOf(client: Client, dns: string[]): Promise<string[]> {
    const parents: string[] = [];
    for (const dn of dns) {
      const found = await client.search(dn, { scope: 'base', attributes: ['memberOf'] }).catch((error: unknown) => {
        if (error instanceof ResultCodeError) return { searchEntries: [] };
        throw error;
      });
      parents.push(...values(found.searchEntries[0]?.memberOf));
    }
    return parents;
  }
}

/** RFC 4515: without it, "*" or ")(" in a username would rewrite the search. */
function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A function replacement, so that "$&" in a value stays literal. */
function fill(template: string, key: string, value: string): string {
  return template.replaceAll(`{${key}}`, () => escapeFilterValue(value));
}

function values(attribute: unknown): string[] {
  if (attribute === undefined) return [];
  return (Array.isArray(attribute) ? attribute : [attribute]).map(String);
}

function describe(error: unknown): string {
  if (error instanceof ResultCodeError) return `${error.name} ${error.message.trim()}`;
  return error instanceof Error ? error.message : String(error);
}

/** Unbind closes the socket; on a connection already broken it may fail, which changes nothing. */
async function close(client: Client): Promise<void> {
  await client.unbind().catch(() => undefined);
}

/** ldapts bounds the TCP connect and each operation, not the StartTLS handshake. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
