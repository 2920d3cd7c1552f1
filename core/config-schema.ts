import { Type, type Static } from '@sinclair/typebox';
import { Port } from './schema-types';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logFormats = ['json', 'pretty'] as const;
export const databaseTypes = ['sqlite', 'mariadb', 'mysql', 'postgresql'] as const;

/**
 * ECDHE key exchange with AES-GCM or ChaCha20-Poly1305 for TLS 1.2, and TLS 1.3's suites:
 * Node's default list also offers static-RSA key exchange (no forward secrecy) and CBC.
 */
const FORWARD_SECRET_AEAD =
  'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305';

/** Keys core itself reads. Everything else belongs to a plugin section named after the plugin. */
export const CoreSchema = Type.Object(
  {
    rest: Type.Object(
      {
        ip: Type.String({ default: '0.0.0.0' }),
        port: Port({ default: 8888 }),
        api_token: Type.Optional(Type.String({ minLength: 1 })),
        api_token_file: Type.String({ default: 'api-token', path: true }),
        max_response_bytes: Type.Integer({ minimum: 1024, default: 262144 }),
        max_request_bytes: Type.Integer({ minimum: 1024, default: 131072 }),
        /** Deepest nesting of arrays and objects a request body may have: deeper is a 400, never a stack overflow. */
        max_json_depth: Type.Integer({ minimum: 1, maximum: 1000, default: 64 }),
        /** Wrong keys one address may send within a minute before it is refused (429) for a minute; 0 never refuses. */
        max_key_failures: Type.Integer({ minimum: 0, default: 20 }),
        /** On SIGTERM, how long requests in flight may take to finish before their connections are cut. */
        shutdown_grace_s: Type.Number({ minimum: 0, maximum: 3600, default: 15 }),
        /** HTTPS on a port of its own besides the plain one (which the reference's clients keep using); SIGHUP reloads the files. */
        tls: Type.Optional(
          Type.Object(
            {
              cert: Type.String({ minLength: 1, path: true }),
              key: Type.String({ minLength: 1, path: true }),
              ip: Type.Optional(Type.String()),
              port: Port({ default: 8443 }),
              /** Browsers asking the plain port for a page are sent to HTTPS, and HTTPS answers carry HSTS. */
              redirect: Type.Boolean({ default: false }),
              hsts_max_age_s: Type.Integer({ minimum: 0, default: 15_552_000 }),
              /** OpenSSL's cipher list: forward-secret AEAD suites only by default. */
              ciphers: Type.String({ minLength: 1, default: FORWARD_SECRET_AEAD }),
            },
            { additionalProperties: false },
          ),
        ),
        /** The HTTPS address people open the console at (`https://ogserve.example.edu:8443`): where the plain port sends browsers. */
        public_url: Type.String({ default: '', pattern: '^(https://[^/\\s?#@]+(/[^\\s?#]*)?)?$', expected: 'an https:// URL, or empty' }),
        /** Reverse proxies whose X-Forwarded-Proto and X-Forwarded-For are believed (their addresses). */
        trusted_proxies: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 64 }),
      },
      { additionalProperties: false, default: {} },
    ),
    database: Type.Object(
      {
        type: Type.Union(
          databaseTypes.map((t) => Type.Literal(t)),
          { default: 'sqlite' },
        ),
        path: Type.String({ default: 'ogserve.sqlite', path: true }),
        ip: Type.String({ default: '127.0.0.1' }),
        port: Type.Optional(Port()),
        name: Type.String({ default: 'ogserve' }),
        user: Type.String({ default: '' }),
        pass: Type.String({ default: '' }),
        /**
         * Create a missing server database at this start. Without it one is created only on
         * the state directory's first start on a server: later, a missing one is a mistake.
         */
        create: Type.Boolean({ default: false }),
      },
      { additionalProperties: false, default: {} },
    ),
    log: Type.Object(
      {
        level: Type.Union(
          logLevels.map((l) => Type.Literal(l)),
          { default: 'info' },
        ),
        /** `json` for the journal and log shippers, `pretty` for a person at a terminal. */
        format: Type.Union(
          logFormats.map((f) => Type.Literal(f)),
          { default: 'json' },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    plugins: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    /** The site's own settings, for every plugin: `time_zone`, the IANA zone people's times are in ('' is the system's). */
    site: Type.Object({ time_zone: Type.String({ default: '' }) }, { additionalProperties: false, default: {} }),
  },
  { additionalProperties: true },
);

export type CoreSettings = Static<typeof CoreSchema> & { rest: { port: number }; database: { port?: number } };
