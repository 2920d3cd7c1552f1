import { ErrorCode, HttpError, type PluginContext, type Reply, type RequestContext } from 'ogserve';
import type { Inventory } from '../inventory';
import { stageOfFile } from './events';
import { ByteSender, FolderFiles, type ServedFolder, type Transfer, type TransferSlots, allowList } from '../transfers';
import { macFrom } from './mac';
import type { BootMetrics } from './metrics';
import type { RefusalLog } from './refusal-log';
import type { BootSettings } from './schemas';

/**
 * GET and HEAD /boot/files/<path>: kernels, initrds and root images for PCs (public: a PC
 * holds no key). `folders`: `live.directory` (its images checked against their manifests),
 * then `boot.extra_dir` when set; their bodies go out in `slots`.
 */
export function fileRoutes(
  ctx: PluginContext<BootSettings>,
  deps: { inventory: Inventory; folders: ServedFolder[]; slots: TransferSlots; metrics: BootMetrics; refusals: RefusalLog },
): void {
  const { inventory, metrics, refusals } = deps;
  const allowed = allowList(ctx.config.allow, 'boot.allow');
  const named = { what: 'boot file', limitKey: 'boot.max_transfers' };
  const files = new FolderFiles(deps.folders, deps.slots, ctx.log, named, ctx.use(ByteSender).nginx);

  // The PC a transfer is for: the MAC its script put in the URL, else its source address.
  async function announce(transfer: Transfer, mac: string | undefined, address: string): Promise<void> {
    const stage = stageOfFile(transfer.file);
    metrics.transferred(transfer, stage);
    if (!stage) return;
    const client = mac ? await inventory.clientByMac(mac) : await inventory.clientByIp(address);
    if (!client) return;
    const { bytes, ms, cutShort } = transfer;
    void ctx.events.emit('boot.stage', { client: client.ip, stage, bytes, ms, cut_short: cutShort });
  }

  const spec = {
    public: true,
    bodyPolicy: 'ignored',
    responseType: 'application/octet-stream',
    summary: 'A boot file (kernel, initrd, root image) for PCs',
  } as const;
  const prefix = '/boot/files/';
  const answer = async (rc: RequestContext<unknown>): Promise<Reply> => {
    const { address } = rc;
    if (!allowed(address)) {
      metrics.refusedFor('not_allowed');
      throw new HttpError(403, ErrorCode.forbidden, `boot files are not served to ${address} (boot.allow)`);
    }
    // The PC its script put in the file's URL.
    const mac = macFrom(rc.query.get('mac'));
    // The whole rest of the path, as sent (polka's `*` parameter holds one segment only).
    const pathname = (rc.req.url ?? '').split('?', 1)[0]!;
    return files
      .answer(rc.req, pathname.slice(prefix.length), (transfer) =>
        announce(transfer, mac, address).catch((error: Error) =>
          ctx.log.warn({ err: error }, `boot stage not announced: ${error.message}`),
        ),
      )
      .catch((error: unknown) => {
        if (error instanceof HttpError && error.status === 503) {
          metrics.refusedFor('busy');
          refusals.note('503 busy', error.message);
        }
        if (error instanceof HttpError && error.code === 'file_damaged') metrics.refusedFor('damaged');
        throw error;
      });
  };
  ctx.router.get(`${prefix}*`, spec, answer);
  // A download tool's first look (curl -I, wget --spider): the same head, no body, no slot.
  ctx.router.head(`${prefix}*`, spec, answer);
}
