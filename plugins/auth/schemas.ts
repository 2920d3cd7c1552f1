import { Type } from '@sinclair/typebox';
import { IntLike } from 'ogserve';

/** Not only spaces: they are trimmed off (plugins/auth/sign-in-name.ts), which would leave no name. */
const Username = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
const Password = Type.String({ minLength: 1, maxLength: 1024 });

export const Login = Type.Object({ username: Username, password: Password });

/** Who a request comes from: GET /auth/me, and the answer of a sign-in. */
export const Me = Type.Object({
  /** As the audit log names them: a token's name, `api_token`, or `user@provider`. */
  name: Type.String(),
  /** A person's user name; absent for a key or token. */
  username: Type.Optional(Type.String()),
  /** `key`, `token`, or the provider that signed the person in (`local`, `ldap`). */
  source: Type.String(),
  role: Type.String(),
  /** In GET /auth/me's answer. */
  permissions: Type.Optional(Type.Array(Type.String())),
  /** What the caller is limited to; null: the whole fleet. */
  scope: Type.Union([Type.String(), Type.Null()]),
  /** A signed-in person's: what X-CSRF-Token must carry on each request that changes something. */
  csrf: Type.Optional(Type.String()),
  /** A signed-in person's session: when it ends at the latest (ISO), and after how long idle. */
  expires: Type.Optional(Type.String()),
  idle_s: Type.Optional(Type.Integer()),
});

export const UserCreate = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Password,
  role: Type.String({ maxLength: 16 }),
  shell: Type.Optional(Type.Boolean()),
  centers: Type.Optional(Type.Array(IntLike({ minimum: 1 }), { maxItems: 256 })),
  rooms: Type.Optional(Type.Array(IntLike({ minimum: 1 }), { maxItems: 256 })),
});

export const UserUpdate = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  role: Type.Optional(Type.String({ maxLength: 16 })),
  shell: Type.Optional(Type.Boolean()),
  centers: Type.Optional(Type.Array(IntLike({ minimum: 1 }), { maxItems: 256 })),
  rooms: Type.Optional(Type.Array(IntLike({ minimum: 1 }), { maxItems: 256 })),
});

export const UserName = Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) });
export const UserPassword = Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }), password: Password });
export const OwnPassword = Type.Object({ current: Password, password: Password });

export const UserView = Type.Object({
  username: Type.String(),
  role: Type.String(),
  shell: Type.Boolean(),
  centers: Type.Array(Type.Integer()),
  rooms: Type.Array(Type.Integer()),
  disabled: Type.Boolean(),
  created: Type.String(),
  password_changed: Type.String(),
});
export const UserList = Type.Object({ users: Type.Array(UserView) });
export const Done = Type.Object({});

/** POST /auth/tokens: `name` is appended to the caller's (`ana.laptop`). */
export const OwnToken = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
  role: Type.Optional(Type.Union([Type.Literal('reader'), Type.Literal('operator'), Type.Literal('imager'), Type.Literal('admin')])),
  shell: Type.Optional(Type.Boolean()),
  /** `30d`, `12h` or `90m`; 30 days when absent. */
  expires: Type.Optional(Type.String({ maxLength: 8 })),
  centers: Type.Optional(Type.Array(IntLike({ minimum: 1 }), { maxItems: 256 })),
  rooms: Type.Optional(Type.Array(IntLike({ minimum: 1 }), { maxItems: 256 })),
});
export const OwnTokenName = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) });

/** GET /auth/providers: what the sign-in page offers. */
export const Providers = Type.Object({
  password: Type.Boolean(),
  providers: Type.Array(Type.Object({ name: Type.String(), label: Type.String() })),
});
