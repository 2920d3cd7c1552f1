import type { EntityManager } from '@mikro-orm/core';
import type { Logger } from 'ogserve';
import type { GroupRights } from './group-rights';
import type { Pending, PendingSignIns } from './pending-sign-ins';

/** One `auth.oidc` entry: a provider people sign in with. */
export interface OidcSettings {
  /** In URLs (`/auth/oidc/<name>/login`) and in the audit log (`jdoe@<name>`). */
  name: string;
  /** On the console's sign-in page. */
  label?: string;
  issuer: string;
  client_id: string;
  /** Absent: a public client (PKCE alone). */
  client_secret?: string;
  /** Where the provider sends the browser back; absent: this server's `/auth/oidc/<name>/callback` as the browser reached it. */
  redirect_uri?: string;
  scopes: string;
  /** The claim that names the person. */
  username_claim: string;
  /** The claim that lists their groups (or roles). */
  groups_claim: string;
  groups: Record<string, GroupRights>;
  /** Allow an issuer on plain HTTP (a test provider on loopback): never for a real one. */
  allow_http: boolean;
}

/** Who the provider says signed in. */
export interface OidcPerson {
  username: string;
  groups: string[];
}

/** A sign-in the provider's answer does not allow: the message says why (shown to the person, logged). */
export class OidcRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OidcRefusal';
  }
}

type Library = typeof import('openid-client', { with: { 'resolution-mode': 'import' }});
type Configuration = InstanceType<Library['Configuration']>;
// openid-client is an ES module: loaded once, on first use, by import() from this CommonJS build.
let library: Promise<Library> | undefined;
const openIdClient = (): Promise<Library> => (library ??= import('openid-client'));

/**
 * The authorization code flow with PKCE against one provider: its endpoints and keys come
 * from its discovery document (read on first use, and again after a failure); the answer's
 * state, nonce, issuer, audience, signature and expiry are checked by openid-client.
 */
export class OidcProvider {
  private configuration?: Promise<Configuration>;

  constructor(
    readonly settings: OidcSettings,
    private readonly pending: PendingSignIns,
    private readonly log: Logger,
  ) {}

  /** Where to send the browser, and the secret of the cookie that lets it finish. */
  async begin(redirectUri: string, em?: EntityManager): Promise<{ url: string; secret: string }> {
    const client = await openIdClient();
    const configuration = await this.discovered();
    const { secret, pending } = await this.pending.begin(this.settings.name, em);
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, secret };
  }

  /** The person of the provider's answer at `callback` (the URL it sent the browser to), for the browser holding `secret`. */
  async finish(secret: string | undefined, callback: URL, em?: EntityManager): Promise<OidcPerson> {
    const pending = secret ? await this.pending.take(secret, this.settings.name, em) : undefined;
    if (!pending) throw new OidcRefusal('this sign-in was not begun in this browser, was used already or took too long: sign in again');
    const error = callback.searchParams.get('error');
    if (error) throw new OidcRefusal(`the provider refused: ${callback.searchParams.get('error_description') ?? error}`);
    const client = await openIdClient();
    const configuration = await this.discovered();
    const claims = await this.claimsOf(client, configuration, pending, callback);
    const username = claims[this.settings.username_claim] ?? claims.sub;
    if (typeof username !== 'string' || username === '')
      throw new OidcRefusal(`the provider's answer has no '${this.settings.username_claim}' claim`);
    const listed = claims[this.settings.groups_claim];
    const groups = Array.isArray(listed)
      ? listed.filter((g): g is string => typeof g === 'string')
      : typeof listed === 'string'
        ? [listed]
        : [];
    return { username, groups };
  }

  private async claimsOf(client: Library, configuration: Configuration, pending: Pending, callback: URL) {
    let tokens: Awaited<ReturnType<Library['authorizationCodeGrant']>>;
    try {
      tokens = await client.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      this.log.warn({ err: error, provider: this.settings.name }, 'an OpenID sign-in was refused');
      throw new OidcRefusal(`the provider's answer was refused: ${(error as Error).message}`);
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new OidcRefusal('the provider sent no ID token');
    // Many providers put profile and group claims in the userinfo answer only.
    if (idClaims[this.settings.username_claim] !== undefined && idClaims[this.settings.groups_claim] !== undefined) return idClaims;
    try {
      return { ...(await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)), ...idClaims };
    } catch (error) {
      throw new OidcRefusal(`the provider's userinfo could not be read: ${(error as Error).message}`);
    }
  }

  /** The provider's configuration from its discovery document; read again after a failure. */
  private discovered(): Promise<Configuration> {
    this.configuration ??= (async () => {
      const client = await openIdClient();
      const { issuer, client_id, client_secret, allow_http } = this.settings;
      try {
        const configuration = await client.discovery(
          new URL(issuer),
          client_id,
          client_secret,
          client_secret === undefined ? client.None() : undefined,
          allow_http ? { execute: [client.allowInsecureRequests] } : undefined,
        );
        // The ID token's signature is checked against the provider's published keys too, not
        // only trusted for having come straight from its token endpoint over TLS.
        client.enableNonRepudiationChecks(configuration);
        return configuration;
      } catch (error) {
        this.configuration = undefined;
        this.log.error({ err: error, provider: this.settings.name, issuer }, 'the OpenID provider could not be discovered');
        throw new OidcRefusal(`the provider '${this.settings.name}' did not answer: ${(error as Error).message}`);
      }
    })();
    return this.configuration;
  }
}
