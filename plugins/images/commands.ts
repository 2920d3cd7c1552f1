import type { EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { ErrorCode, badRequest, inject, injectable, toInt } from 'ogserve';
import type { AgentCommands, AgentRequest, AnswerHandler } from '../agents';
import { type ClientView, Inventory, type RepositoryView, repositoryAddressFor } from '../inventory';
import { CreatesUnderWay } from './creates';
import type { Image } from './entities/image';
import { ImageVersions } from './life/versions';
import { requireImage, requireRepository } from './routes/lookups';
import { ImageCreateParams, ImageRestoreParams, restoreTypes } from './schemas';
import { ImageRunLog } from './run-log';
import { ImageStore } from './store';

export type CreateParams = Static<typeof ImageCreateParams>;
export type RestoreParams = Static<typeof ImageRestoreParams>;

/** Whether `type` HTTP is taken (`repository.http_restore`: the ogLive's restoreImageCustom hook is in place). */
export interface RestoreSettings {
  http: boolean;
}
export const RestoreSettings = Symbol('RestoreSettings');

/** A create request made for one client, with what its answer will need. */
export interface PreparedCreate {
  request: AgentRequest;
  repository: RepositoryView;
}

/**
 * image_create and image_restore, as POST /image/create and /image/restore and queued
 * steps send them: the same params, the same checks, the same request for a client.
 */
@injectable()
export class ImageCommands {
  constructor(
    @inject(ImageStore) private readonly store: ImageStore,
    @inject(Inventory) private readonly inventory: Inventory,
    @inject(ImageRunLog) private readonly runs: ImageRunLog,
    @inject(CreatesUnderWay) private readonly creates: CreatesUnderWay,
    @inject(ImageVersions) private readonly versions: ImageVersions,
    @inject(RestoreSettings) private readonly restoreSettings: RestoreSettings,
  ) {}

  define(commands: AgentCommands, stored: { create: AnswerHandler; restore: AnswerHandler }) {
    return {
      create: commands.define({
        name: 'image_create',
        path: 'image/create',
        params: ImageCreateParams,
        oneClient: true,
        request: async (params, ip) => (await this.prepareCreate(this.store.unit(undefined), params, ip)).request,
        stored: stored.create,
      }),
      restore: commands.define({
        name: 'image_restore',
        path: 'image/restore',
        params: ImageRestoreParams,
        check: (params) => this.restoreType(params),
        request: async (params, ip) => {
          const image = await this.restoredImage(this.store.unit(undefined), params, [ip]);
          const [client] = await this.inventory.clientsByIps([ip]);
          return this.restoreRequest(image, params, await this.restoreAddresses(image), client);
        },
        stored: stored.restore,
      }),
    };
  }

  /** The create request for a client: the image it refreshes (if any) and the repository it goes to, at the client's address for it. */
  async prepareCreate(em: EntityManager, params: CreateParams, ip: string): Promise<PreparedCreate> {
    const [client] = await this.inventory.clientsByIps([ip]);
    const image = await this.existingImage(em, params);
    const repository = await this.targetRepository(params, image, client);
    const address = repositoryAddressFor(client, repository.addresses);
    if (!address)
      throw badRequest(
        ErrorCode.invalidField,
        `repository ${repository.id} has no address`,
        params.repository_id === undefined ? 'repository' : 'repository_id',
      );
    const body = {
      disk: String(params.disk),
      partition: String(params.partition),
      code: String(params.code),
      id: String(image?.id ?? 0),
      name: params.name,
      repository: address,
      ...(params.backup === undefined ? {} : { backup: params.backup }),
    };
    this.runs.requested(ip, { kind: 'create', name: params.name, id: image?.id });
    // From here until its command ends, the file is the agent's to write; the one it replaces is kept.
    await this.creates.start(ip, params.name);
    if (image) await this.versions.beforeCreate(ip, image);
    return { request: { method: 'POST', path: 'image/create', body }, repository };
  }

  /**
   * The restore method in the agent's spelling; refuses one it does not know. `added`: the
   * types other plugins carry out (POST /image/restore accepts them, a queued step does not).
   */
  restoreType(params: RestoreParams, added: readonly string[] = []): string {
    const type = params.type.toUpperCase();
    if (type === 'HTTP' && !this.restoreSettings.http)
      throw badRequest(
        ErrorCode.invalidField,
        "'type' HTTP needs repository.http_restore: the ogLive's restoreImageCustom hook (templates/oglive) in place first",
        'type',
      );
    const known = [...restoreTypes, ...(this.restoreSettings.http ? ['HTTP'] : []), ...added];
    if (!known.includes(type)) throw badRequest(ErrorCode.invalidField, `'type' must be one of ${known.join(', ')}`, 'type');
    return type;
  }

  /** The image to restore, refused when its name differs from the one asked or it is kept from a center of one of the clients. */
  async restoredImage(em: EntityManager, params: RestoreParams, ips: string[]): Promise<Image> {
    const image = await requireImage(this.store, em, toInt(params.id), 'id');
    if (params.name !== undefined && params.name !== image.name)
      throw badRequest(ErrorCode.conflict, `image ${image.id} is named '${image.name}', not '${params.name}'`, 'name');
    if (params.version !== undefined) {
      const version = await this.versions.byVersion(image.id, toInt(params.version));
      if (!version)
        throw badRequest(
          ErrorCode.unknownId,
          `image '${image.name}' has no kept version ${params.version} (GET /image/versions)`,
          'version',
        );
      if (version.state === 'damaged')
        throw badRequest('image_damaged', `image '${image.name}' version ${version.version} is damaged: ${version.damage}`, 'version');
    } else if (image.state === 'damaged')
      throw badRequest(
        'image_damaged',
        `image '${image.name}' (id ${image.id}) is damaged: ${image.damage}; POST /image/check {id} after repairing its file`,
        'id',
      );
    const scopes = await this.store.scopes(image.id);
    if (scopes.length > 0) {
      const clients = await this.inventory.clientsByIps(ips);
      const outside = clients.filter((c) => !scopes.includes(c.room.centerId)).map((c) => c.ip);
      if (outside.length > 0)
        throw badRequest(
          ErrorCode.conflict,
          `image '${image.name}' is restricted to other centers than that of ${outside.slice(0, 10).join(', ')}`,
          'clients',
        );
    }
    return image;
  }

  async restoreAddresses(image: Image): Promise<string[]> {
    return (await this.inventory.repository(image.repositoryId))?.addresses ?? [];
  }

  /**
   * The restore request for a client: the image's repository at the client's address for it
   * (or the address asked when it is not one of them); `type` when a restore method says it.
   */
  restoreRequest(image: Image, params: RestoreParams, addresses: string[], client: ClientView | undefined, type?: string): AgentRequest {
    const address = repositoryAddressFor(client, addresses, params.repository);
    if (!address) throw badRequest(ErrorCode.missingField, `'repository' is required: the image's repository has no address`, 'repository');
    const body = {
      disk: String(params.disk),
      partition: String(params.partition),
      // A kept version is its own file on the share and under /images/files: <name>@v<n>.img.
      name: params.version === undefined ? image.name : `${image.name}@v${toInt(params.version)}`,
      repository: address,
      type: type ?? this.restoreType(params),
      profile: String(params.profile ?? image.softwareId),
      id: String(image.id),
    };
    if (client) this.runs.requested(client.ip, { kind: 'restore', name: image.name, id: image.id });
    return { method: 'POST', path: 'image/restore', body };
  }

  /** The image a create refers to: by id when not "0" (its name must match), else by name if it exists. */
  private async existingImage(em: EntityManager, params: CreateParams): Promise<Image | null> {
    const id = toInt(params.id);
    if (id === 0) return this.store.byName(em, params.name);
    const image = await requireImage(this.store, em, id, 'id');
    if (image.name !== params.name)
      throw badRequest(ErrorCode.conflict, `image ${id} is named '${image.name}', not '${params.name}'`, 'name');
    return image;
  }

  /** The repository an image is written to: the one named (by id or by one of its addresses), else the image's, else the client's. */
  private async targetRepository(params: CreateParams, image: Image | null, client: ClientView | undefined): Promise<RepositoryView> {
    if (params.repository_id !== undefined) return requireRepository(this.inventory, toInt(params.repository_id), 'repository_id');
    if (params.repository !== undefined) {
      const repository = await this.inventory.repositoryByAddress(params.repository);
      if (!repository) throw badRequest(ErrorCode.unknownId, `no repository has the address ${params.repository}`, 'repository');
      return repository;
    }
    const id = image?.repositoryId || client?.repositoryId;
    if (!id)
      throw badRequest(
        ErrorCode.missingField,
        "'repository_id' is required: neither the image nor the client has a repository",
        'repository_id',
      );
    return requireRepository(this.inventory, id, 'repository_id');
  }
}
