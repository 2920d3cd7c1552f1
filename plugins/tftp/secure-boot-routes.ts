import { Type } from '@sinclair/typebox';
import { IpList, type PluginContext } from 'ogserve';
import type { SecureBootSettings } from './secure-boot';

const Listing = Type.Object({
  rooms: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }), { description: 'rooms whose UEFI PCs boot Secure Boot' }),
  clients: Type.Array(Type.Object({ client: Type.String(), secure_boot: Type.Boolean() }), {
    description: "PCs with a setting of their own, over their room's",
  }),
  unsigned: Type.Array(Type.Object({ client: Type.String(), livedir: Type.String(), problem: Type.String() }), {
    description: 'Secure Boot PCs whose ogLive kernel is not signed: shim will refuse it',
  }),
});

const SetBody = Type.Object({
  rooms: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 10000 })),
  clients: Type.Optional(IpList()),
  secure_boot: Type.Union([Type.Boolean(), Type.Null()], { description: "on, off, or (PCs) their room's setting" }),
});

const SetAnswer = Type.Intersect([Listing, Type.Object({ unknown: Type.Array(Type.String()) })]);

declare module 'ogserve' {
  interface EventMap {
    /** Rooms or PCs set to boot Secure Boot (true), not to (false), or back to their room's setting (null). */
    'tftp.secure_boot.set': { rooms: number[]; clients: string[]; secure_boot: boolean | null };
  }
}

/** GET /tftp/secure-boot lists what boots Secure Boot and what cannot; POST sets rooms and PCs. */
export function secureBootRoutes(ctx: PluginContext<unknown>, settings: SecureBootSettings): void {
  ctx.router.get(
    '/tftp/secure-boot',
    {
      permission: 'read',
      bodyPolicy: 'forbidden',
      response: Listing,
      events: ['tftp.secure_boot.set'],
      summary: 'The rooms and PCs that boot Secure Boot (shim, then GRUB), and those set to an ogLive whose kernel is not signed',
    },
    ({ em }) => settings.listing(em),
  );
  ctx.router.post(
    '/tftp/secure-boot',
    {
      permission: 'operate',
      body: SetBody,
      response: SetAnswer,
      summary: 'Set rooms and PCs to boot Secure Boot (true), not to (false), or PCs back to their room (null)',
    },
    async ({ body, em }) => {
      const { unknown } = await settings.set(body);
      void ctx.events.emit('tftp.secure_boot.set', { rooms: body.rooms ?? [], clients: body.clients ?? [], secure_boot: body.secure_boot });
      return { ...(await settings.listing(em)), unknown };
    },
  );
}
