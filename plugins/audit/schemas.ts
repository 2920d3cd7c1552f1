import { Type } from '@sinclair/typebox';

const AuditView = Type.Object({
  id: Type.Integer(),
  time: Type.String(),
  token: Type.String(),
  address: Type.String(),
  method: Type.String(),
  path: Type.String(),
  clients: Type.Array(Type.String()),
  status: Type.Union([Type.Integer(), Type.Null()]),
  ms: Type.Number(),
});

/** GET /audit: a page, newest first; `next` is the `before` of the following page. */
export const AuditPage = Type.Object({
  entries: Type.Array(AuditView),
  next: Type.Union([Type.Integer(), Type.Null()]),
});
