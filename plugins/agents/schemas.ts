import { Type } from '@sinclair/typebox';
import { IntLike, IpList, Ipv4, Number16 } from '../../core/schema-types';

/** Request bodies of the agents endpoints. Unknown keys are ignored and relayed, as the reference does. */
export const ClientsBody = Type.Object({ clients: IpList() });

export const DiskPartitionCommand = Type.Object({ clients: IpList(), disk: Number16(), partition: Number16() });

const Digits = (maxLength: number) => Type.String({ pattern: `^[0-9]{1,${maxLength}}$` });
const Word = () => Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_-]+$' });

export const SetupCommand = Type.Object({
  clients: IpList(),
  type: Type.Union([Type.Literal('MSDOS'), Type.Literal('GPT')]),
  disk: Digits(3),
  cache: Digits(1),
  cache_size: Digits(19),
  partition_setup: Type.Array(
    Type.Object({
      partition: Digits(3),
      code: Word(),
      filesystem: Word(),
      size: Digits(19),
      format: Digits(1),
    }),
    { minItems: 1, maxItems: 16 },
  ),
});

/** GET /session takes `client` or `clients`. */
export const SessionQuery = Type.Object({
  client: Type.Optional(IpList({ minItems: 1 })),
  clients: Type.Optional(IpList({ minItems: 1 })),
});
/** Read-backs name exactly one client, as GET /client/info does. */
const OneClient = () => Type.Array(Ipv4(), { minItems: 1, maxItems: 1 });
export const ClientQuery = Type.Object({ client: OneClient() });
export const SoftwareQuery = Type.Object({ client: OneClient(), disk: IntLike(), partition: IntLike() });
