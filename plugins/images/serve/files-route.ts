import { ErrorCode, HttpError, isMac, normalizeMac, type PluginContext, type Reply, type RequestContext } from 'ogserve';
import type { Inventory } from '../../inventory';
import { ByteSender, FolderFiles, type TransferSlots, allowList, relativePath } from '../../transfers';
import type { PcTransfers } from './pc-transfers';
import { imageFileName, type RecordLookup, servedFolder } from './served-files';

declare module 'ogserve' {
  interface EventMap {
    /**
     * A body of an image file ended (a PC's restore over HTTP, another site's pull): the PC
     * its URL's `mac=` names (else the source address's), its job when it is in a restore job.
     */
    'image.transfer': {
      client: string | null;
      file: string;
      image: number | null;
      job: number | null;
      bytes: number;
      ms: number;
      cut_short: boolean;
      done: boolean;
    };
  }
}

export interface FileRouteDeps {
  inventory: Inventory;
  directory: string;
  slots: TransferSlots;
  lookup: RecordLookup;
  beingWritten(name: string): boolean;
  transfers: PcTransfers;
  allow: readonly string[];
  bytesSent(bytes: number): void;
}

/**
 * GET and HEAD /images/files/<name>.img (and its `.full.sum`, `.sum`, `.torrent`, and kept
 * versions `<name>@v<n>.img`): the repository's image files for PCs that restore over HTTP
 * and for other sites' pulls, public as PCs hold no key, through the byte path's folder rules
 * (transfers: ranges, validators, slots, stall cuts). Only files an image record names; a
 * damaged image, one being written, or a file whose size is not its record's is a 500
 * `file_damaged`. Each body is counted against the PC its `?mac=` names (else its source
 * address), so a restore's job shows each PC's bytes as they go.
 */
export function fileRoutes(ctx: PluginContext<unknown>, deps: FileRouteDeps): void {
  const { inventory, transfers, lookup } = deps;
  const allowed = allowList(deps.allow, 'repository.allow');
  const folder = servedFolder(deps.directory, lookup, deps.beingWritten);
  const named = { what: 'image file', limitKey: 'repository.max_transfers' };
  const files = new FolderFiles([folder], deps.slots, ctx.log, named, ctx.use(ByteSender).nginx);
  const prefix = '/images/files/';

  const answer = async (rc: RequestContext<unknown>): Promise<Reply> => {
    const { address } = rc;
    if (!allowed(address)) throw new HttpError(403, ErrorCode.forbidden, `image files are not served to ${address} (repository.allow)`);
    const raw = (rc.req.url ?? '').split('?', 1)[0]!.slice(prefix.length);
    // Only the files an image record names, at the folder's top: anything else is not here.
    const file = relativePath(raw, 'image file');
    const parsed = file.includes('/') ? undefined : imageFileName(file);
    const record = parsed && (await lookup(parsed));
    if (!record) throw new HttpError(404, ErrorCode.notFound, `no image file at ${file}`);
    const macText = rc.query.get('mac');
    const mac = macText && isMac(macText) ? normalizeMac(macText) : undefined;
    const client = (mac ? await inventory.clientByMac(mac) : await inventory.clientByIp(address))?.ip;
    let tracker: ReturnType<PcTransfers['begin']> | undefined;
    return files.answer(
      rc.req,
      raw,
      (transfer) => {
        const line = tracker?.ended(transfer.cutShort);
        deps.bytesSent(transfer.bytes);
        void ctx.events.emit('image.transfer', {
          client: client ?? null,
          file,
          image: record.image,
          job: line?.job ?? null,
          bytes: transfer.bytes,
          ms: transfer.ms,
          cut_short: transfer.cutShort,
          done: line?.done ?? false,
        });
      },
      {
        started: ({ size, start, toldAtEnd }) => {
          tracker = transfers.begin({ client, file, image: record.image, size, start, toldAtEnd });
        },
        moved: (bytes) => tracker?.moved(bytes),
      },
    );
  };
  const spec = {
    public: true,
    bodyPolicy: 'ignored',
    responseType: 'application/octet-stream',
    summary: 'An image file (or its checksum companions) for PCs restoring over HTTP and for other sites',
  } as const;
  ctx.router.get(`${prefix}*`, spec, answer);
  ctx.router.head(`${prefix}*`, spec, answer);
}
