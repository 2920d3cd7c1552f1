import type { EntityManager, EntitySchema, FilterQuery } from '@mikro-orm/core';
import { ErrorCode, badRequest } from 'ogserve';

/** Load a row by id or refuse the request, naming the field that carried the id. */
export async function requireRow<T extends { id: number }>(
  em: EntityManager,
  entity: EntitySchema<T>,
  id: number,
  field: string,
): Promise<T> {
  // Generic over T, TypeScript cannot see that `id` is one of T's properties.
  const row = await em.findOne(entity, { id } as FilterQuery<T>);
  if (!row)
    throw badRequest(
      ErrorCode.unknownId,
      `no ${entity.meta.className.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} with id ${id}`,
      field,
    );
  return row;
}

/** Refuse a batch that names addresses the inventory does not know. */
export function requireAllKnown(asked: string[], found: { ip: string }[], field = 'clients'): void {
  const known = new Set(found.map((c) => c.ip));
  const unknown = [...new Set(asked)].filter((ip) => !known.has(ip));
  if (unknown.length > 0)
    throw badRequest(
      ErrorCode.unknownId,
      `no client with ip ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ', ...' : ''}`,
      field,
    );
}
