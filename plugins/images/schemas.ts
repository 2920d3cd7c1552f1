import { Type } from '@sinclair/typebox';
import { IntLike, Ipv4, Number16, Text } from 'ogserve';
import { ImageName } from '../agents';

/**
 * Request bodies of the images endpoints. Both existing consoles are accepted: numbers as
 * JSON integers or numeric strings, the repository as an id or an address.
 */

const Description = () => Text(250, { multiline: true });

/** The image_create command: POST /image/create besides its clients, and a queued step. */
export const ImageCreateParams = Type.Object({
  disk: Number16(),
  partition: Number16(),
  /** The partition type code, decimal ("131" for 0x83). */
  code: IntLike(),
  /** "0" for a new image, or the id of the image to refresh. */
  id: IntLike(),
  name: ImageName(),
  description: Type.Optional(Description()),
  repository_id: Type.Optional(IntLike({ minimum: 1 })),
  /** The repository by one of its addresses (the web console's update form). */
  repository: Type.Optional(Ipv4()),
  center_id: Type.Optional(IntLike()),
  group_id: Type.Optional(IntLike()),
  /** Relayed: the agent keeps the previous image file as a backup. */
  backup: Type.Optional(Type.Boolean()),
});

export const ImageUpdate = Type.Object({
  id: IntLike(),
  description: Type.Optional(Description()),
  center_id: Type.Optional(IntLike()),
  group_id: Type.Optional(IntLike()),
  repository_id: Type.Optional(IntLike({ minimum: 1 })),
  software_id: Type.Optional(IntLike()),
  type: Type.Optional(IntLike()),
});

export const ImageDelete = Type.Object({ image: IntLike() });

/** The restore methods the agent knows; ogCLI sends them upper-cased, ogCP only TIPTORRENT. */
export const restoreTypes = ['UNICAST', 'UNICAST-DIRECT', 'TIPTORRENT'] as const;

/** The image_restore command: POST /image/restore besides its clients, and a queued step. */
export const ImageRestoreParams = Type.Object({
  disk: Number16(),
  partition: Number16(),
  id: IntLike(),
  /** When sent it must be the image's name. */
  name: Type.Optional(Type.String({ maxLength: 255 })),
  /** Sent to the agent as is when it is not one of the image repository's addresses (ogCLI sends its server). */
  repository: Type.Optional(Ipv4()),
  /** One of restoreTypes, in any case (checked by the command). */
  type: Type.String({ minLength: 1, maxLength: 32 }),
  /** Software profile; the image's own when absent. */
  profile: Type.Optional(IntLike()),
  /** A kept version of the image (GET /image/versions) instead of its current file. */
  version: Type.Optional(IntLike({ minimum: 1 })),
});

export const ImageQuery = Type.Object({ image: IntLike() });
export const ImageRestrict = Type.Object({ image: IntLike(), scopes: Type.Array(IntLike({ minimum: 1 }), { maxItems: 4096 }) });

/** Answers of the images routes (the OpenAPI document publishes them; the tests check them). */
const Image = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  /** Bytes, exact past 2^53 (a bare integer in the JSON text). */
  size: Type.Integer(),
  datasize: Type.Integer(),
  /** ctime(3) text of the file's or record's last change. */
  modified: Type.String(),
  /** Octal permission bits of the image file, e.g. "644". */
  permissions: Type.String(),
  software_id: Type.Integer(),
  type: Type.Integer(),
  repo_id: Type.Integer(),
  /** The repository's first address now; empty when it has none. */
  repo_ip: Type.String(),
  checksum: Type.String(),
  center_id: Type.Integer(),
  group_id: Type.Integer(),
  /** The sha256 ogserve computed of the file, hex; '' until hashed, or when the file is kept on another repository. */
  sha256: Type.String(),
  /** available, hashing (after a create, until hashed) or damaged (restores refused). */
  state: Type.String(),
  /** Why it is damaged; '' otherwise. */
  damage: Type.String(),
  /** When ogserve last hashed the file (ISO 8601), null: never. */
  checked: Type.Union([Type.String(), Type.Null()]),
});

/** GET /images: the repository directory's file system (bytes) and every image. */
export const ImageListing = Type.Object({
  disk: Type.Object({ free: Type.Integer(), total: Type.Integer() }),
  images: Type.Array(Image),
});

/** GET /image/restrict: the centers an image is restored in; none means every center. */
export const ImageScopes = Type.Object({ image: Type.Integer(), scopes: Type.Array(Type.Integer()) });
