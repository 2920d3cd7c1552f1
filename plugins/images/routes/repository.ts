import { Type } from '@sinclair/typebox';
import type { PluginContext } from 'ogserve';
import { diskSpace } from '../files';
import type { ImageTrashCan } from '../life/trash';
import type { ShareKeeper } from '../share/keeper';
import type { ImageStore } from '../store';

const Share = Type.Object({
  enabled: Type.Boolean(),
  name: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  config_file: Type.Optional(Type.String()),
  writable: Type.Optional(Type.Boolean()),
  reachable: Type.Optional(Type.Boolean()),
  in_step: Type.Optional(Type.Boolean()),
  problems: Type.Array(Type.String()),
  last_reload: Type.Optional(
    Type.Union([Type.Object({ at: Type.String(), ok: Type.Boolean(), error: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
  ),
  checked: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

const Repository = Type.Object({
  directory: Type.String(),
  disk: Type.Object({ free: Type.Integer(), total: Type.Integer() }),
  images: Type.Object({ total: Type.Integer(), available: Type.Integer(), hashing: Type.Integer(), damaged: Type.Array(Type.String()) }),
  trash: Type.Object({ images: Type.Integer(), bytes: Type.Integer() }),
  transfers: Type.Object({ active: Type.Integer() }),
  /** Whether POST /image/restore takes type HTTP (repository.http_restore). */
  http_restore: Type.Boolean(),
  share: Share,
});

/** GET /images/repository: the repository as ogserve keeps it, the share with it. */
export function repositoryRoutes(
  ctx: PluginContext<unknown>,
  deps: {
    directory: string;
    store: ImageStore;
    trash: ImageTrashCan;
    share?: ShareKeeper;
    httpRestore: boolean;
    activeTransfers(): number;
  },
): void {
  ctx.router.get(
    '/images/repository',
    {
      permission: 'read',
      scoped: 'open',
      bodyPolicy: 'forbidden',
      response: Repository,
      summary: "The image repository: its disk, images by state, trash, transfers, and the ogimages share's state",
    },
    async () => {
      const [disk, images, trashed] = await Promise.all([diskSpace(deps.directory), deps.store.list(), deps.trash.list()]);
      const count = (state: string) => images.filter((i) => i.state === state).length;
      return {
        directory: deps.directory,
        disk: { free: Number(disk.free), total: Number(disk.total) },
        images: {
          total: images.length,
          available: count('available'),
          hashing: count('hashing'),
          damaged: images.filter((i) => i.state === 'damaged').map((i) => i.name),
        },
        trash: { images: trashed.length, bytes: trashed.reduce((sum, t) => sum + t.bytes, 0) },
        transfers: { active: deps.activeTransfers() },
        http_restore: deps.httpRestore,
        share: deps.share ? await deps.share.status() : { enabled: false, problems: [] },
      };
    },
  );
}
