import type { EntityManager } from '@mikro-orm/core';
import { ErrorCode, badRequest } from 'ogserve';
import type { Inventory, RepositoryView } from '../../inventory';
import type { Image } from '../entities/image';
import type { ImageStore } from '../store';

/** Load an image or refuse the request, naming the field that carried its id. */
export async function requireImage(store: ImageStore, em: EntityManager, id: number, field: string): Promise<Image> {
  const image = await store.byId(em, id);
  if (!image) throw badRequest(ErrorCode.unknownId, `no image with id ${id}`, field);
  return image;
}

export async function requireRepository(inventory: Inventory, id: number, field: string): Promise<RepositoryView> {
  const repository = await inventory.repository(id);
  if (!repository) throw badRequest(ErrorCode.unknownId, `no repository with id ${id}`, field);
  return repository;
}
