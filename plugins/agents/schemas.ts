import { Type } from '@sinclair/typebox';
import { IntLike, IpList, Ipv4 } from 'ogserve';

/** Request bodies of the agents endpoints. Unknown keys are ignored and relayed, as the reference does. */
export const ClientsBody = Type.Object({ clients: IpList() });

/** GET /session takes `client` or `clients`. */
export const SessionQuery = Type.Object({
  client: Type.Optional(IpList({ minItems: 1 })),
  clients: Type.Optional(IpList({ minItems: 1 })),
});
/** Exactly one address in a list, as read-backs (GET /client/info, /hardware) name their client. */
const OneClient = () => Type.Array(Ipv4(), { minItems: 1, maxItems: 1 });
export const ClientQuery = Type.Object({ client: OneClient() });
export const SoftwareQuery = Type.Object({ client: OneClient(), disk: IntLike(), partition: IntLike() });

/** The answer of every command relayed to agents: who was sent it, who was busy, who is not connected. */
export const DispatchAnswer = Type.Object({
  clients: Type.Array(
    Type.Object({ addr: Type.String(), outcome: Type.Union([Type.Literal('sent'), Type.Literal('busy'), Type.Literal('not_connected')]) }),
  ),
  job: Type.Optional(Type.Integer({ description: 'the job that follows this command (GET /jobs/:id), when the jobs plugin is on' })),
});

/** GET /clients: the agents connected (and the clients other plugins list, e.g. WOL_SENT), with their state. */
export const ClientsAnswer = Type.Object({
  clients: Type.Array(
    Type.Object({
      addr: Type.String(),
      state: Type.String(),
      speed: Type.Optional(Type.Integer()),
      last_cmd: Type.Object({ result: Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Literal('unknown')]) }),
    }),
  ),
});

const Sessions = Type.Array(Type.Object({ disk: Type.Integer(), partition: Type.Integer(), name: Type.String() }));

export const SessionAnswer = Type.Object({
  sessions: Sessions,
  clients: Type.Array(Type.Object({ addr: Type.String(), sessions: Sessions })),
});

export const HardwareAnswer = Type.Object({ hardware: Type.Array(Type.Object({ description: Type.String(), type: Type.String() })) });

export const SoftwareAnswer = Type.Object({ software: Type.Array(Type.String()) });
