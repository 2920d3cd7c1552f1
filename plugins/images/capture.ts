import { type AnswerHandler, isImageName, type SoftwareInventory } from '../agents';
import type { Inventory } from '../inventory';
import { ImageAnswerError, readImageAnswer, readRestoreAnswer } from './answer';
import { imageFileStat } from './files';
import type { ImageChecker } from './integrity/checker';
import type { ImageVersions } from './life/versions';
import type { PendingCreates } from './pending';
import type { RestoreMethods } from './restore-methods';
import type { ImageStore } from './store';

/** Octal permission digits of a file mode, without a leading zero: 420 -> "644". */
export function permissionDigits(mode: number): string {
  return (mode & 0o777).toString(8);
}

declare module 'ogserve' {
  interface EventMap {
    /** An image was written from a client's partition and its record stored. */
    'image.created': ImageEvent;
    /** A client's partition now holds the image. */
    'image.restored': ImageEvent;
  }
}

export interface ImageEvent {
  client: string;
  image: number;
  name: string;
  disk: number;
  partition: number;
}

export interface CaptureDeps {
  store: ImageStore;
  inventory: Inventory;
  software: Pick<SoftwareInventory, 'store'>;
  pending: PendingCreates;
  checker: ImageChecker;
  versions: ImageVersions;
  directory: string;
  announce: (event: ImageEvent) => void;
}

/**
 * Store a 200 answer to POST /image/create: the partition's software list (first, as the
 * reference), then create the image record, or refresh it when the name exists, and link
 * the source partition to it; then hash the file the agent wrote and hold it to what the
 * agent said (its size and md5): a file that differs makes the image damaged and the command
 * a failure. Throwing makes the client's last command a failure. Answers to requests this
 * plugin did not send (the scheduler's) name their repository by address.
 */
export function captureHandler(deps: CaptureDeps): AnswerHandler {
  const { store, inventory, software, pending, checker, versions, directory, announce } = deps;
  return async (client, answer) => {
    const a = readImageAnswer(answer.body);
    const request = pending.get(client.ip);
    if (request && request.name !== a.name)
      throw new ImageAnswerError(`the answer is about image '${a.name}', the request was '${request.name}'`);
    if (!isImageName(a.name)) throw new ImageAnswerError(`'${a.name.slice(0, 60)}' is not a valid image name`);
    let repositoryId = request?.repositoryId;
    if (repositoryId === undefined) {
      const repository = a.repository ? await inventory.repositoryByAddress(a.repository) : null;
      if (!repository) throw new ImageAnswerError(`no repository has the address '${String(a.repository).slice(0, 40)}'`);
      repositoryId = repository.id;
    }
    if (a.software !== undefined) await software.store(client.id, a.disk, a.partition, a.software);
    // The image carries the source partition's software profile, as the reference's does:
    // consoles show it and send it back as the restore's profile.
    const softwareId = await inventory.partitionSoftware(client.id, a.disk, a.partition);
    // Older agents leave out size, mode and time: read them from the file when it is here.
    const file =
      a.size === undefined || a.perms === undefined || a.lastupdate === undefined ? await imageFileStat(directory, a.name) : undefined;
    const perms = a.perms ?? file?.mode;
    // The agent's md5 of the file: its answer's, else the `.full.sum` it wrote beside the image.
    const checksum = a.checksum ?? (await checker.fullSum(a.name)) ?? '';
    const size = a.size ?? file?.size ?? 0n;
    const imageId = await store.saveCapture({
      name: a.name,
      repositoryId,
      description: request?.description,
      centerId: request ? request.centerId : client.room.centerId,
      groupId: request?.groupId,
      clientId: client.id,
      softwareId,
      disk: a.disk,
      partition: a.partition,
      code: a.code,
      size,
      datasize: a.datasize,
      checksum,
      permissions: perms === undefined ? '0' : permissionDigits(perms),
      lastUpdate: a.lastupdate ?? file?.mtime ?? BigInt(Math.floor(Date.now() / 1000)),
      clonator: a.clonator,
      compressor: a.compressor,
      filesystem: a.filesystem,
    });
    // The record is the new file's now: the one it replaced stays a kept version.
    await versions.kept(client.ip);
    await inventory.setPartitionImage(client.id, a.disk, a.partition, imageId);
    announce({ client: client.ip, image: imageId, name: a.name, disk: a.disk, partition: a.partition });
    const record = { id: imageId, name: a.name, size, sha256: '', state: 'hashing' as const, checksum };
    const checked = await checker.afterCreate(record, a.size);
    if (checked.state === 'damaged') throw new ImageAnswerError(`image '${a.name}' is damaged: ${checked.damage}`);
  };
}

/**
 * Store a 200 answer to POST /image/restore: the partition now holds the image, and its
 * software profile. A restore another plugin carried out (its agent type, `MULTICAST:9000`)
 * is first asked of that plugin, which may say the client did not get the image.
 */
export function restoreHandler(
  store: ImageStore,
  inventory: Inventory,
  methods: RestoreMethods,
  announce: (event: ImageEvent) => void,
): AnswerHandler {
  return async (client, answer, request) => {
    const type = (request.body as { type?: unknown } | undefined)?.type;
    if (typeof type === 'string') await methods.ofAgentType(type)?.answered?.(client, type);
    const a = readRestoreAnswer(answer.body);
    const image = await store.byId(store.unit(undefined), a.imageId);
    if (!image) throw new ImageAnswerError(`the answer names image ${a.imageId}, which does not exist`);
    await inventory.setPartitionImage(client.id, a.disk, a.partition, image.id, image.softwareId);
    announce({ client: client.ip, image: image.id, name: image.name, disk: a.disk, partition: a.partition });
  };
}
