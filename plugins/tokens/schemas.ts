import { Type } from '@sinclair/typebox';
import { IntLike } from 'ogserve';

/** POST /tokens. `centers` and `rooms` limit the token to them (absent or empty: the whole fleet). */
export const TokenCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64 }),
  role: Type.String({ maxLength: 16 }),
  shell: Type.Optional(Type.Boolean()),
  /** `30d`, `12h` or `90m` from now; absent for a token that does not expire. */
  expires: Type.Optional(Type.String({ maxLength: 8 })),
  centers: Type.Optional(Type.Array(IntLike({ minimum: 1 }), { maxItems: 256 })),
  rooms: Type.Optional(Type.Array(IntLike({ minimum: 1 }), { maxItems: 256 })),
});

export const TokenName = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) });

export const TokenView = Type.Object({
  name: Type.String(),
  role: Type.String(),
  shell: Type.Boolean(),
  created: Type.String(),
  expires: Type.Union([Type.String(), Type.Null()]),
  last_used: Type.Union([Type.String(), Type.Null()]),
  centers: Type.Array(Type.Integer()),
  rooms: Type.Array(Type.Integer()),
  owner: Type.Union([Type.String(), Type.Null()]),
});

export const TokenList = Type.Object({ tokens: Type.Array(TokenView) });
/** The secret is in this answer only: it is not kept. */
export const TokenCreated = Type.Object({ ...TokenView.properties, secret: Type.String() });
export const Revoked = Type.Object({});
