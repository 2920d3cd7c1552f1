import type { EntityManager, EntityName, EntityProperty } from '@mikro-orm/core';

/**
 * The statement that inserts `rows` of `entity` as they are, when every key is a column of
 * the entity with no hook (a scalar, or a many-to-one given as its id) and every value, as its
 * type writes it, a string, a number or null; undefined when not (a reference given as an
 * entity, a boolean, a date, a key some row lacks), for MikroORM's own insert. MikroORM builds
 * each insert through knex and its metadata: for the 2,000 lines of a job made by a wake that
 * was most of the request's CPU.
 */
export function plainInsert<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  rows: readonly object[],
): { sql: string; params: unknown[] } | undefined {
  const meta = em.getMetadata().find(entity);
  if (!meta || rows.length === 0 || meta.hooks.beforeCreate?.length || meta.hooks.onInit?.length) return undefined;
  const platform = em.getPlatform();
  const keys = Object.keys(rows[0]!);
  const props: EntityProperty[] = [];
  for (const key of keys) {
    const prop = (meta.properties as Record<string, EntityProperty>)[key];
    if ((prop?.kind !== 'scalar' && prop?.kind !== 'm:1') || prop.fieldNames?.length !== 1 || prop.onCreate || prop.version)
      return undefined;
    props.push(prop);
  }
  const params: unknown[] = [];
  for (const row of rows as Record<string, unknown>[]) {
    if (Object.keys(row).length !== keys.length) return undefined;
    for (const prop of props) {
      const given = row[prop.name];
      const value = prop.customType && given !== null ? prop.customType.convertToDatabaseValue(given, platform) : given;
      if (value !== null && typeof value !== 'string' && typeof value !== 'number') return undefined;
      params.push(value);
    }
  }
  const one = `(${keys.map(() => '?').join(', ')})`;
  const columns = props.map((prop) => platform.quoteIdentifier(prop.fieldNames[0]!)).join(', ');
  return { sql: `insert into ${platform.quoteIdentifier(meta.tableName)} (${columns}) values ${rows.map(() => one).join(', ')}`, params };
}
