import type { PluginContext } from 'ogserve';
import type { AuditChange } from '../audit';
import type { Inventory } from '../inventory';
import { EfiAnswer, EfiQuery, ModeAnswer, ModeBody, ModesAnswer } from './schemas';
import { UnknownModeError, type BootFiles } from './service';

/** The asked addresses the inventory does not know, reported back rather than failing the batch. */
function unknownOf(asked: string[], found: { ip: string }[]): string[] {
  const known = new Set(found.map((c) => c.ip));
  return [...new Set(asked)].filter((ip) => !known.has(ip));
}

export function modeRoutes(ctx: PluginContext<unknown>, bootFiles: BootFiles, inventory: Inventory): void {
  const { router } = ctx;

  router.get('/mode', { permission: 'read', scoped: 'open', response: ModesAnswer }, async () => ({ modes: await bootFiles.modes() }));

  // Files first, then the boot column, as the reference does: the record never names a mode
  // whose files were not written.
  // The audit log is told each client whose mode this changed.
  router.post(
    '/mode',
    { permission: 'operate', scoped: { clients: 'clients' }, body: ModeBody, response: ModeAnswer },
    async ({ body, req, log }) => {
      const modes = await bootFiles.modes();
      if (!modes.includes(body.mode)) throw new UnknownModeError(body.mode);
      return bootFiles.exclusive(async () => {
        const clients = await inventory.clientsByIps(body.clients);
        await bootFiles.writeMany(clients, body.mode);
        await inventory.setBootMode(
          clients.map((c) => c.id),
          body.mode,
        );
        const changes: AuditChange[] = [...new Map(clients.map((c) => [c.id, c])).values()]
          .filter((c) => c.boot !== body.mode)
          .map((c) => ({ entity: 'client', id: c.id, name: c.name || c.ip, field: 'boot', before: c.boot, after: body.mode }));
        if (changes.length > 0) await ctx.events.tell('audit.details', { req, changes }, log);
        return { unknown: unknownOf(body.clients, clients) };
      });
    },
  );

  // Which clients boot through UEFI files: the reference snapshot has no /efi and the spec
  // leaves it open, so it answers, per known client, whether its UEFI boot file exists.
  router.get('/efi', { permission: 'read', scoped: { clients: 'clients' }, body: EfiQuery, response: EfiAnswer }, async ({ body }) => {
    const clients = await inventory.clientsByIps(body.clients);
    return {
      clients: await Promise.all(
        clients.map(async (c) => ({ ip: c.ip, efi: await bootFiles.hasUefiFile(c), bios: await bootFiles.hasBiosFile(c) })),
      ),
    };
  });
}
