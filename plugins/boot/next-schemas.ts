import { Type } from '@sinclair/typebox';
import { IpList } from 'ogserve';

const Revert = Type.Union([Type.Literal('agent'), Type.Literal('served')], { expected: "'agent' or 'served'" });

/** POST /boot/next. The mode is only looked up in GET /mode's list, never used as a path. */
export const NextBody = Type.Object(
  {
    clients: IpList(),
    mode: Type.String({ minLength: 1, maxLength: 64 }),
    revert: Revert,
    /** Seconds before the previous mode comes back anyway; `boot.next_timeout_s` when absent. */
    timeout_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600 })),
  },
  { additionalProperties: false },
);

const Pending = Type.Object({
  client: Type.String(),
  mode: Type.String(),
  previous: Type.String(),
  revert: Revert,
  /** ISO times: when the one-shot was set, and when it reverts at the latest. */
  since: Type.String(),
  until: Type.String(),
});

/** GET /boot/next, and POST /boot/next's one-shots with the addresses no client has. */
export const PendingAnswer = Type.Object({ pending: Type.Array(Pending) });
export const NextAnswer = Type.Object({ pending: Type.Array(Pending), unknown: Type.Array(Type.String()) });
