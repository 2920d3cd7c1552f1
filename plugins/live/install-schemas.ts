import { Type } from '@sinclair/typebox';

/** An installed image's directory name, as `live install` makes them. */
const ImageName = Type.String({ minLength: 1, maxLength: 64, pattern: '^ogLive-[A-Za-z0-9._+-]+$' });

/** POST /live/install: an ISO of `live.iso_dir`, by its file name (nothing outside that folder). */
export const LiveInstallBody = Type.Object({
  iso: Type.String({ minLength: 5, maxLength: 255, pattern: '^[A-Za-z0-9][A-Za-z0-9._+-]*\\.iso$' }),
  name: Type.Optional(ImageName),
});

/** POST /live/default, POST /live/remove. */
export const LiveNameBody = Type.Object({ name: ImageName });

export const LiveInstalled = Type.Object({
  distribution: Type.String(),
  kernel: Type.String(),
  architecture: Type.String(),
  revision: Type.String(),
  directory: Type.String(),
  iso: Type.String(),
  signed: Type.Union([Type.Boolean(), Type.Null()], {
    description: "its kernel's Authenticode signature verifies and signs it (Secure Boot)",
  }),
  signer: Type.String({ description: "the signing certificate's name ('' when none)" }),
});

export const IsoListing = Type.Object({ isos: Type.Array(Type.String()) });
