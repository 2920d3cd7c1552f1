import { Type } from '@sinclair/typebox';
import { IntLike, IpList, Ipv4 } from 'ogserve';
import { ImageName } from '../agents';

/** Request bodies of the cache endpoints. */
export const CacheList = Type.Object({ clients: IpList({ minItems: 1 }) });

export const CacheDelete = Type.Object({
  clients: IpList({ minItems: 1 }),
  images: Type.Array(ImageName(), { minItems: 1, maxItems: 4096 }),
});

export const CacheFetch = Type.Object({
  clients: IpList({ minItems: 1 }),
  image: ImageName(),
  /** The repository by id; else by one of its addresses (any other address is sent as it is); else each client's own. */
  repository_id: Type.Optional(IntLike({ minimum: 1 })),
  repository: Type.Optional(Ipv4()),
});

/** GET /cache/list: each known client's cache partition and the images in it (bytes). */
export const CacheListing = Type.Object({
  clients: Type.Array(
    Type.Object({
      ip: Type.String(),
      cache_size: Type.Number(),
      used_size: Type.Number(),
      free_size: Type.Number(),
      images: Type.Array(Type.Object({ name: Type.String(), size: Type.Number(), checksum: Type.String() })),
    }),
  ),
});
