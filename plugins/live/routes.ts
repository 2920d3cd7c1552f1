import { ErrorCode, badRequest, type PluginContext, type RequestContext } from 'ogserve';
import type { AuditChange } from '../audit';
import { Created, Done, type Inventory } from '../inventory';
import type { BootFiles } from '../pxe-modes';
import type { LiveCatalog } from './catalog';
import type { KernelSignatures } from './kernel-signatures';
import { LiveImageEntity } from './entities/live-image';
import { parseLiveName } from './live-names';
import { LiveAddBody, LiveDeleteBody, LiveListing, LiveSetAnswer, LiveSetBody, OgliveListing } from './schemas';

export function liveRoutes(
  ctx: PluginContext<unknown>,
  catalog: LiveCatalog,
  inventory: Inventory,
  bootFiles: BootFiles,
  signatures: KernelSignatures,
): void {
  const { router } = ctx;

  // The audit log is told each client whose live directory this changed.
  const set = async ({ body, req, log }: RequestContext<{ clients: string[]; name: string }>) => {
    const livedir = await catalog.resolve(body.name);
    // Alone among boot-file changes, with the clients' boot modes read inside.
    const clients = await bootFiles.exclusive(async () => {
      const found = await inventory.clientsByIps(body.clients);
      await inventory.setLivedir(
        found.map((c) => c.id),
        livedir,
      );
      // The new live directory goes into the files of each client's own mode.
      await bootFiles.writeOwnModes(found.map((c) => ({ ...c, livedir })));
      return found;
    });
    const changes: AuditChange[] = [...new Map(clients.map((c) => [c.id, c])).values()]
      .filter((c) => c.livedir !== livedir)
      .map((c) => ({ entity: 'client', id: c.id, name: c.name || c.ip, field: 'livedir', before: c.livedir, after: livedir }));
    if (changes.length > 0) await ctx.events.tell('audit.details', { req, changes }, log);
    const known = new Set(clients.map((c) => c.ip));
    return { livedir, unknown: [...new Set(body.clients)].filter((ip) => !known.has(ip)) };
  };

  router.get(
    '/live/list',
    { permission: 'read', scoped: 'open', response: LiveListing, summary: 'The live images clients may boot, and the default one' },
    async () => {
      const list = await catalog.list();
      // Whether each kernel is signed: what a Secure Boot PC needs (shim refuses another).
      const live = await Promise.all(
        list.live.map(async (entry) => {
          const { signed, signer } = await signatures.of(entry.directory);
          return { ...entry, signed, signer };
        }),
      );
      return { ...list, live };
    },
  );
  const setSpec = {
    permission: 'operate',
    scoped: { clients: 'clients' },
    body: LiveSetBody,
    response: LiveSetAnswer,
    summary: "Set clients' live image and rewrite their boot files",
  } as const;
  router.post('/live/set', setSpec, set);

  // The names the existing web console uses (real-clients.md), with the older list key.
  router.get(
    '/oglive/list',
    { permission: 'read', scoped: 'open', response: OgliveListing, summary: 'GET /live/list under the older name and key' },
    async () => {
      const list = await catalog.list();
      return { oglive: list.live, default: list.default };
    },
  );
  router.post('/oglive/set', setSpec, set);

  router.post(
    '/live/add',
    { permission: 'admin', body: LiveAddBody, response: Created, summary: 'List a live image' },
    async ({ body, em }) => {
      const { live } = await catalog.list();
      if (live.some((e) => e.directory === body.name))
        throw badRequest(ErrorCode.duplicate, `live image '${body.name}' is already listed`, 'name');
      const parsed = parseLiveName(body.name);
      const row = em.create(LiveImageEntity, {
        directory: body.name,
        distribution: body.distribution ?? parsed.distribution,
        kernel: body.kernel ?? parsed.kernel,
        architecture: body.architecture ?? parsed.architecture,
        revision: body.revision ?? parsed.revision,
        iso: body.iso ?? '',
      });
      await em.flush();
      await signatures.record(body.name);
      return { id: row.id };
    },
  );

  // Only added entries can be deleted here; images found on disk belong to the site's tools.
  router.post(
    '/live/delete',
    { permission: 'admin', body: LiveDeleteBody, response: Done, summary: 'Unlist a live image added here' },
    async ({ body, em }) => {
      const deleted = await em.nativeDelete(LiveImageEntity, { directory: body.name });
      if (deleted > 0) return {};
      const { live } = await catalog.list();
      if (live.some((e) => e.directory === body.name)) {
        throw badRequest(
          ErrorCode.conflict,
          `live image '${body.name}' was found in the live directory, not added here; remove it there`,
          'name',
        );
      }
      throw badRequest(ErrorCode.unknownId, `no live image '${body.name.slice(0, 64)}'`, 'name');
    },
  );
}
