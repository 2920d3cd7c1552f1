import { ErrorCode, Reply, badRequest, toInt, type PluginContext } from 'ogserve';
import type { InventoryConfig } from '../client-rules';
import type { DhcpdImport } from '../dhcpd-import';
import { DhcpdImport as DhcpdImportBody, DhcpdImported } from '../schemas';
import type { WriteChanges } from '../write-changes';

/**
 * POST /client/import-dhcpd: the host blocks of an ISC dhcpd.conf as clients (what `ogserve
 * import-dhcpd` does from a file). Hosts refused are answered with their reason; the others
 * are stored, so the answer is 200 unless the file is not dhcpd.conf at all.
 */
export function clientImportDhcpdRoute(ctx: PluginContext<InventoryConfig>, dhcpd: DhcpdImport, changes: WriteChanges): void {
  ctx.router.post(
    '/client/import-dhcpd',
    {
      permission: 'admin',
      body: DhcpdImportBody,
      response: DhcpdImported,
      summary: "Clients from an ISC dhcpd.conf's host blocks, each in the room whose network holds its address",
    },
    async ({ body, log, req, em }) => {
      if (body.folder_id !== undefined && body.room === undefined)
        throw badRequest(ErrorCode.missingField, 'folder_id is a folder of the room given in room', 'room');
      const target = body.room === undefined ? undefined : { room: toInt(body.room), folderId: toInt(body.folder_id ?? 0) };
      const { answer, ids } = await dhcpd.importConf(body.conf, body.dry_run ?? false, log, target, em);
      // The audit log's entry lists each client added, as a CSV import's does.
      if (ids.length > 0) await changes.added(req, ids, log);
      // A check writes nothing: its audit entry says so rather than read as an import.
      if (body.dry_run) await ctx.events.tell('audit.details', { req, dry_run: true });
      return Reply.json(answer, { uncapped: true });
    },
  );
}
