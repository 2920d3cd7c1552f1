import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A person the test provider knows: their groups claim. */
export interface TestAccount {
  groups: string[];
}

export interface TestProvider {
  /** http://127.0.0.2:<port>: another loopback address than ogserve's, so the browser sees another site. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next sign-in at the provider is (the provider asks nobody: the test decides). */
  signInAs(username: string): void;
  /** Change one character of the signature of the next ID token the token endpoint sends. */
  tamperNextIdToken(): void;
  close(): Promise<void>;
}

export interface TestProviderOptions {
  /** The redirect URI ogserve sends (its callback on its own port). */
  redirectUri: string;
  accounts: Record<string, TestAccount>;
  /** What the discovery document and the tokens say the issuer is, when it should differ from where the provider is (a wrong issuer). */
  claimedIssuer?: string;
  /** Lifetime of an authorization code, in seconds (default 60). */
  codeTtlS?: number;
}

/**
 * A real OpenID Connect provider (the oidc-provider package, as sites run it behind
 * Keycloak's or Azure's place) in the test process, on 127.0.0.2 and an ephemeral port. Its
 * interaction step (login and consent) is answered at once for the account `signInAs` named,
 * so that a test, or a browser, goes through the whole authorization code flow.
 */
export async function startOidcProvider(options: TestProviderOptions): Promise<TestProvider> {
  const { default: Provider } = await import('oidc-provider');
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const issuer = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
  const clientId = 'ogserve';
  const clientSecret = 'test-client-secret-of-enough-length-0123456789';
  const provider = new Provider(options.claimedIssuer ?? issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], profile: ['preferred_username'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'groups'],
    features: { devInteractions: { enabled: false } },
    ttl: { AuthorizationCode: options.codeTtlS ?? 60 },
    cookies: { keys: ['test-cookie-key'] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = options.accounts[sub];
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ sub, preferred_username: sub, groups: account.groups }) };
    },
  });
  let next = Object.keys(options.accounts)[0] ?? '';
  let tamper = false;
  const callback = provider.callback();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      void finishInteraction(provider, req, res, next).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    if (tamper && req.method === 'POST' && req.url?.startsWith('/token')) {
      tamper = false;
      tamperIdToken(res);
    }
    callback(req, res);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (username) => {
      next = username;
    },
    tamperNextIdToken: () => {
      tamper = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type ProviderInstance = InstanceType<typeof import('oidc-provider', { with: { 'resolution-mode': 'import' }}).default>;

/** Login and consent for `accountId`, at once. */
async function finishInteraction(provider: ProviderInstance, req: http.IncomingMessage, res: http.ServerResponse, accountId: string) {
  const details = await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

/** The token endpoint's answer with one character of the ID token's signature changed (same length, so Content-Length holds). */
function tamperIdToken(res: http.ServerResponse): void {
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => http.ServerResponse;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (chunk !== undefined && typeof chunk !== 'function') {
      const text = Buffer.from(chunk as string | Buffer).toString('utf8');
      const tampered = text.replace(
        /("id_token":"[^".]+\.[^".]+\.)([A-Za-z0-9_-])/,
        (_all, head: string, first: string) => `${head}${first === 'A' ? 'B' : 'A'}`,
      );
      return end(tampered, ...rest);
    }
    return end(chunk, ...rest);
  }) as typeof res.end;
}
