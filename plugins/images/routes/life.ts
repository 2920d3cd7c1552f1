import { Type } from '@sinclair/typebox';
import { ErrorCode, IntLike, MAX_INT, type PluginContext, badRequest, toInt } from 'ogserve';
import type { ImageTrashCan } from '../life/trash';
import type { ImageVersions } from '../life/versions';
import type { ImageStore } from '../store';
import { requireImage } from './lookups';

const Version = Type.Object({
  version: Type.Integer(),
  /** `<name>@v<version>`: the name its files have, and the agent is sent to restore it. */
  file: Type.String(),
  size: Type.Integer(),
  datasize: Type.Integer(),
  checksum: Type.String(),
  sha256: Type.String(),
  state: Type.String(),
  damage: Type.String(),
  /** When the agent wrote it, and when it was kept (ISO 8601). */
  written: Type.String(),
  kept: Type.String(),
});

const Trashed = Type.Object({
  id: Type.Integer({ description: 'the id the image had: POST /image/recover takes it' }),
  name: Type.String(),
  bytes: Type.Integer(),
  trashed: Type.String(),
  expires: Type.String(),
  versions: Type.Array(Type.Integer()),
});

const iso = (seconds: unknown) => new Date(Number(seconds) * 1000).toISOString();

/** GET /image/versions, GET /image/trash and POST /image/recover: an image's kept versions and the deleted images' trash. */
export function lifeRoutes(ctx: PluginContext<unknown>, store: ImageStore, versions: ImageVersions, trash: ImageTrashCan): void {
  ctx.router.get(
    '/image/versions',
    {
      permission: 'read',
      scoped: 'open',
      bodyPolicy: 'forbidden',
      response: Type.Object({ image: Type.Integer(), name: Type.String(), versions: Type.Array(Version) }),
      summary: 'The kept versions of the image ?id=, newest first (POST /image/restore takes `version`)',
    },
    async ({ query, em }) => {
      const raw = query.get('id');
      if (raw === null || !/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_INT)
        throw badRequest(ErrorCode.invalidField, 'id: the image id, a whole number from 1', 'id');
      const image = await requireImage(store, em, Number(raw), 'id');
      const kept = await versions.list(image.id, em);
      return {
        image: image.id,
        name: image.name,
        versions: kept.map((v) => ({
          version: v.version,
          file: `${image.name}@v${v.version}`,
          size: Number(v.size),
          datasize: Number(v.datasize),
          checksum: v.checksum,
          sha256: v.sha256,
          state: v.state,
          damage: v.damage,
          written: iso(v.lastUpdate),
          kept: iso(v.keptAt),
        })),
      };
    },
  );

  ctx.router.get(
    '/image/trash',
    {
      permission: 'read',
      scoped: 'open',
      bodyPolicy: 'forbidden',
      response: Type.Object({ trash: Type.Array(Trashed) }),
      summary: 'Deleted images kept in the trash (repository.trash_days), newest first',
    },
    async ({ em }) => ({ trash: await trash.list(em) }),
  );

  ctx.router.post(
    '/image/recover',
    {
      permission: 'image',
      body: Type.Object({ id: IntLike({ minimum: 1 }) }),
      response: Type.Object({ id: Type.Integer(), name: Type.String() }),
      summary: 'Put a deleted image back from the trash: its record, versions and files',
    },
    async ({ body, em }) => trash.recover(toInt(body.id), em),
  );
}
