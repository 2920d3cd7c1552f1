import { Type } from '@sinclair/typebox';

const Ids = Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 256 });

/** What one directory group gives its members. */
const GroupRights = Type.Object(
  {
    role: Type.Union([Type.Literal('reader'), Type.Literal('operator'), Type.Literal('imager'), Type.Literal('admin')]),
    centers: Type.Optional(Ids),
    rooms: Type.Optional(Ids),
    shell: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** `auth.ldap`: an LDAP directory or Active Directory people sign in with. */
const Ldap = Type.Object(
  {
    /** One URL, or several tried in order. */
    url: Type.Union([Type.String({ pattern: '^ldaps?://' }), Type.Array(Type.String({ pattern: '^ldaps?://' }), { minItems: 1 })]),
    starttls: Type.Boolean({ default: false }),
    /** The CA that signed the directory's certificate (ldaps or StartTLS), a PEM file. */
    ca_file: Type.Optional(Type.String({ minLength: 1 })),
    /** The account that looks people up; absent: an anonymous search. */
    bind_dn: Type.Optional(Type.String({ minLength: 1 })),
    bind_password: Type.Optional(Type.String()),
    user_base: Type.String({ minLength: 1 }),
    /** `{username}` is replaced by the name typed, escaped. */
    user_filter: Type.String({ pattern: '\\{username\\}', default: '(uid={username})' }),
    /** Groups looked up under group_base with group_filter (`{dn}`: the person's DN); absent: the person's memberOf. */
    group_base: Type.Optional(Type.String({ minLength: 1 })),
    group_filter: Type.String({ pattern: '\\{dn\\}', default: '(member={dn})' }),
    timeout_ms: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
    /** Group DN -> the role and part of the fleet its members get. A person in none cannot sign in. */
    groups: Type.Record(Type.String({ minLength: 1 }), GroupRights, { default: {} }),
  },
  { additionalProperties: false },
);

/** One `auth.oidc` entry: an OpenID Connect provider people sign in with. */
const Oidc = Type.Object(
  {
    /** In its URLs and in the audit log (`jdoe@campus`); `local` and `ldap` are taken. */
    name: Type.String({ pattern: '^(?!local$|ldap$)[a-z][a-z0-9-]{0,31}$' }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    issuer: Type.String({ pattern: '^https?://' }),
    client_id: Type.String({ minLength: 1 }),
    client_secret: Type.Optional(Type.String({ minLength: 1 })),
    redirect_uri: Type.Optional(Type.String({ pattern: '^https?://' })),
    scopes: Type.String({ default: 'openid profile email groups' }),
    username_claim: Type.String({ minLength: 1, default: 'preferred_username' }),
    groups_claim: Type.String({ minLength: 1, default: 'groups' }),
    /** Claim value (a group or role name) -> the role and part of the fleet it gives. */
    groups: Type.Record(Type.String({ minLength: 1 }), GroupRights, { default: {} }),
    allow_http: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

export const AuthConfig = Type.Object(
  {
    /** A session ends after this long without a request... */
    session_idle_min: Type.Integer({ minimum: 1, maximum: 7 * 24 * 60, default: 30 }),
    /** ...and this long after its sign-in, however busy. */
    session_absolute_h: Type.Integer({ minimum: 1, maximum: 30 * 24, default: 12 }),
    min_password_length: Type.Integer({ minimum: 8, maximum: 128, default: 12 }),
    /** Failed sign-ins of one name or address that cost nothing; each one more doubles the wait before the next, up to max_delay_s. */
    free_failures: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
    max_delay_s: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
    /**
     * A wrong name or password is answered this long after the attempt began (later only when
     * its checks took longer), whatever it was: a local name, a directory's, or none. Above
     * what a password check and the directory's answer take, so that their time shows nowhere.
     */
    wrong_answer_ms: Type.Integer({ minimum: 0, maximum: 10_000, default: 250 }),
    /**
     * Password checks at once (scrypt takes a core and a thread of libuv's pool, which the
     * database shares): 1 keeps a spray of wrong passwords from slowing everyone else on a
     * small server, and still checks about 25 a second.
     */
    parallel_checks: Type.Integer({ minimum: 1, maximum: 16, default: 1 }),
    /** How often last-seen times are written and ended sessions removed. */
    seen_flush_s: Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
    /** The longest a token a person makes for themself may live. */
    token_max_days: Type.Integer({ minimum: 1, maximum: 3650, default: 90 }),
    ldap: Type.Optional(Ldap),
    oidc: Type.Array(Oidc, { default: [], maxItems: 16 }),
  },
  { additionalProperties: false },
);
