import { Type } from '@sinclair/typebox';
import { ErrorCode, HttpError, IntLike, type PluginContext, badRequest, toInt } from 'ogserve';
import type { ImageChecker } from '../integrity/checker';
import type { PcTransfers } from '../serve/pc-transfers';
import type { ImageStore } from '../store';

const CheckBody = Type.Object({ id: IntLike({ minimum: 1 }) });

const CheckAnswer = Type.Object({
  image: Type.Integer(),
  name: Type.String(),
  state: Type.String({ description: 'available, hashing or damaged' }),
  damage: Type.String({ description: "why it is damaged; '' otherwise" }),
  sha256: Type.String({ description: "the file's sha256 in hex; '' when ogserve holds no file of it" }),
  size: Type.Integer(),
  held: Type.Boolean({ description: 'whether the file is in repository.directory' }),
});

const TransferLine = Type.Object({
  client: Type.Union([Type.String(), Type.Null()]),
  file: Type.String(),
  image: Type.Union([Type.Integer(), Type.Null()]),
  job: Type.Union([Type.Integer(), Type.Null()]),
  bytes: Type.Integer(),
  size: Type.Integer(),
  rate: Type.Integer({ description: 'bytes per second now' }),
  stalled_since: Type.Union([Type.String(), Type.Null()]),
  done: Type.Boolean(),
  bodies: Type.Integer(),
  cut_short: Type.Boolean(),
  started: Type.String(),
  ended: Type.Union([Type.String(), Type.Null()]),
});

/** POST /image/check: hash an image's file again and hold it to its record. GET /images/transfers: each PC's bytes as they go. */
export function integrityRoutes(ctx: PluginContext<unknown>, store: ImageStore, checker: ImageChecker, transfers: PcTransfers): void {
  ctx.router.post(
    '/image/check',
    { permission: 'image', body: CheckBody, response: CheckAnswer, summary: "Hash an image's file and compare it with its record" },
    async ({ body }) => {
      const id = toInt(body.id);
      const image = (await store.list()).find((i) => i.id === id);
      if (!image) throw badRequest(ErrorCode.unknownId, `no image with id ${id}`, 'id');
      return checker.check(image);
    },
  );

  ctx.router.get(
    '/images/transfers',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: Type.Object({ transfers: Type.Array(TransferLine) }),
      summary: "Each PC's transfers of image files (?job=, ?client=): bytes, size, rate, stalled since, done",
    },
    async ({ query, access }) => {
      const jobText = query.get('job');
      const client = query.get('client') ?? undefined;
      if (jobText !== null && !/^[1-9][0-9]{0,9}$/.test(jobText))
        throw new HttpError(400, ErrorCode.invalidField, 'job: a job id, a whole number from 1', 'job');
      const lines = transfers.list({ job: jobText === null ? undefined : Number(jobText), client });
      const allowed = await access?.scope?.addresses();
      return { transfers: allowed ? lines.filter((l) => l.client !== null && allowed.has(l.client)) : lines };
    },
  );
}
