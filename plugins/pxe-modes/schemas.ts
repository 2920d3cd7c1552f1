import { Type } from '@sinclair/typebox';
import { IpList } from 'ogserve';

/** POST /mode. The mode is only ever looked up in the template list, never used as a path. */
export const ModeBody = Type.Object({ clients: IpList(), mode: Type.String({ minLength: 1, maxLength: 256 }) });

/** GET /efi. */
export const EfiQuery = Type.Object({ clients: IpList() });

export const ModesAnswer = Type.Object({ modes: Type.Array(Type.String()) });

/** POST /mode: the addresses no client has (the others got the mode). */
export const ModeAnswer = Type.Object({ unknown: Type.Array(Type.String()) });

export const EfiAnswer = Type.Object({
  clients: Type.Array(Type.Object({ ip: Type.String(), efi: Type.Boolean(), bios: Type.Boolean() })),
});
