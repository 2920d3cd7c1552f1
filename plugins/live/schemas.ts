import { Type } from '@sinclair/typebox';
import { IpList, Text } from 'ogserve';

/** POST /live/set, POST /oglive/set: any name is accepted; an unlisted one means the default. */
export const LiveSetBody = Type.Object({ clients: IpList(), name: Type.String({ maxLength: 256 }) });

/** Free text of a live entry: one line, no control characters. */
const Field = (maxLength: number) => Type.Optional(Text(maxLength));

/** POST /live/add: a live image directory (the same rule as a stored livedir) and what it holds. */
export const LiveAddBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._+-]*$' }),
  distribution: Field(64),
  kernel: Field(64),
  architecture: Field(16),
  revision: Field(64),
  iso: Field(255),
});

export const LiveDeleteBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }) });

/** Answers of the live routes (the OpenAPI document publishes them; the tests check them). */
const LiveEntry = Type.Object({
  distribution: Type.String(),
  kernel: Type.String(),
  architecture: Type.String(),
  revision: Type.String(),
  directory: Type.String(),
  iso: Type.String(),
});

/** An image as GET /live/list shows it: with whether its kernel is signed (null: no kernel to read). */
const ListedImage = Type.Intersect([
  LiveEntry,
  Type.Object({
    signed: Type.Union([Type.Boolean(), Type.Null()], {
      description: "its kernel's Authenticode signature verifies and signs it (Secure Boot)",
    }),
    signer: Type.String({ description: "the signing certificate's name ('' when none)" }),
  }),
]);

/** `default` is the index in the list of the image clients boot when none is set. */
export const LiveListing = Type.Object({ live: Type.Array(ListedImage), default: Type.Integer({ minimum: 0 }) });
export const OgliveListing = Type.Object({ oglive: Type.Array(LiveEntry), default: Type.Integer({ minimum: 0 }) });

/** The live directory the clients got, and the addresses no client has. */
export const LiveSetAnswer = Type.Object({ livedir: Type.String(), unknown: Type.Array(Type.String()) });
