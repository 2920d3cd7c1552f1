import { HttpError, type PluginContext } from 'ogserve';
import type { Backups } from './backups';
import { dhcpEvents } from './events';
import { KeaRefused, KeaUnreachable } from './kea-client';
import { emitDone, type PushDeps, replaceConfig } from './push';
import { BackupList, DhcpStatus, RestoreAnswer, RestoreBody, SyncAnswer } from './schemas';
import { dhcpStatus } from './status';
import type { DhcpSync } from './sync';

/** Kea's refusal is the request's (400), Kea not answering is 503; both carry Kea's words. */
function asHttp(error: unknown): unknown {
  if (error instanceof KeaRefused) return new HttpError(400, 'kea_refused', `Kea refused the configuration: ${error.message}`);
  if (error instanceof KeaUnreachable) return new HttpError(503, 'kea_unreachable', `Kea does not answer: ${error.message}`);
  return error;
}

export interface DhcpRouteDeps {
  push: PushDeps;
  sync: DhcpSync;
  backups: Backups;
  url: string;
  pushesHere(): boolean;
}

/** GET /dhcp/status and /dhcp/backups (read); POST /dhcp/sync and /dhcp/restore (admin). */
export function dhcpRoutes(ctx: PluginContext<unknown>, deps: DhcpRouteDeps): void {
  ctx.router.get(
    '/dhcp/status',
    {
      permission: 'read',
      bodyPolicy: 'forbidden',
      response: DhcpStatus,
      events: dhcpEvents,
      summary: "Whether Kea is in step with the inventory, the reservations that differ, and the last push's outcome",
    },
    () => dhcpStatus(deps.push, deps.sync, deps.url, deps.pushesHere()),
  );
  ctx.router.post(
    '/dhcp/sync',
    { permission: 'admin', bodyPolicy: 'ignored', response: SyncAnswer, summary: 'Put Kea in step with the inventory now' },
    async () => {
      try {
        const pushed = await deps.sync.syncNow();
        return { changed: pushed.changed, ...(pushed.backup ? { backup: pushed.backup } : {}), leases_deleted: pushed.leasesDeleted };
      } catch (error) {
        throw asHttp(error);
      }
    },
  );
  ctx.router.get(
    '/dhcp/backups',
    {
      permission: 'read',
      bodyPolicy: 'forbidden',
      response: BackupList,
      summary: 'The configurations ogserve replaced in Kea, newest first',
    },
    async ({ em }) => ({ backups: await deps.backups.list(em) }),
  );
  ctx.router.post(
    '/dhcp/restore',
    {
      permission: 'admin',
      body: RestoreBody,
      response: RestoreAnswer,
      summary: 'Give Kea a configuration it ran before (config-test first)',
    },
    async ({ body, em }) => {
      const config = await deps.backups.config(body.id, em);
      if (!config) throw new HttpError(404, 'unknown_id', `no backup ${body.id}: GET /dhcp/backups lists them`, 'id');
      try {
        return await deps.sync.serial(async () => {
          const current = await deps.push.kea.configGet();
          const done = await replaceConfig(deps.push, current, config, 'restore');
          await emitDone(deps.push, config, 'restore', done.backup, []);
          return { restored: body.id, backup: done.backup };
        });
      } catch (error) {
        throw asHttp(error);
      }
    },
  );
}
