import type { EntityMetadata, EntityProperty, MikroORM } from '@mikro-orm/core';
import type { PluginDefinition } from '../../core/plugin';

/** How a column's values are written in a backup, the same whatever the engine. */
export type Codec = 'int' | 'bigint' | 'bool' | 'double' | 'text';

export interface Column {
  name: string;
  codec: Codec;
  /** A reference to a row of the same table (a folder's parent): restored in a second pass. */
  selfRef: boolean;
  /** The table a reference points at. */
  references?: string;
  nullable: boolean;
  /** The most characters a string column holds. */
  length?: number;
  /** A 16-bit integer. */
  small: boolean;
}

/** One plugin table as a backup reads and a restore writes it. */
export interface TableSpec {
  table: string;
  plugin: string;
  columns: Column[];
  /** The tables its rows refer to (other than itself). */
  parents: string[];
}

/** A name for every kind of column the plugins' entities use; anything else is refused by name. */
function codecOf(meta: EntityMetadata, prop: EntityProperty): Codec {
  if (prop.kind !== 'scalar') return 'int';
  const type = String(prop.type ?? '')
    .toLowerCase()
    .replace(/type$/, '');
  const runtime = String(prop.runtimeType ?? '').toLowerCase();
  if (['integer', 'int', 'smallint', 'tinyint', 'mediumint', 'number'].includes(type)) return 'int';
  if (type === 'bigint') return 'bigint';
  if (type === 'boolean' || runtime === 'boolean') return 'bool';
  if (['double', 'float', 'decimal', 'real'].includes(type)) return 'double';
  if (['string', 'text', 'longtext', 'varchar'].includes(type) || runtime === 'string') return 'text';
  if (runtime === 'number') return 'int';
  throw new Error(`${meta.className}.${prop.name}: a column of type '${type}' cannot be backed up yet`);
}

/**
 * The tables of the enabled plugins, parents before the tables that refer to them: the
 * order a restore inserts in and a backup writes in.
 */
export function tableSpecs(orm: MikroORM, definitions: PluginDefinition[]): TableSpec[] {
  const pluginOf = new Map<string, string>();
  for (const d of definitions) {
    // Tables of running processes (the cluster's instances and messages) mean nothing to the database a backup is restored to.
    if (d.backup?.transient) continue;
    for (const entity of d.entities ?? []) {
      const name = (entity as { meta?: { className?: string }; name?: string }).meta?.className ?? (entity as { name: string }).name;
      pluginOf.set(name, d.name);
    }
  }
  const metadata = orm.getMetadata();
  const specs = new Map<string, TableSpec>();
  for (const [className, plugin] of pluginOf) {
    const meta = metadata.find(className);
    if (!meta || meta.embeddable || meta.virtual) continue;
    if (meta.primaryKeys.length !== 1 || meta.primaryKeys[0] !== 'id')
      throw new Error(`${className}: a table without a single 'id' key cannot be backed up yet`);
    const columns: Column[] = [];
    const parents = new Set<string>();
    for (const prop of meta.props) {
      if (prop.persist === false || !(prop.kind === 'scalar' || prop.kind === 'm:1' || (prop.kind === '1:1' && prop.owner))) continue;
      const target = prop.kind === 'scalar' ? undefined : prop.targetMeta;
      const selfRef = target?.className === className;
      if (target && !selfRef) parents.add(target.tableName);
      for (const field of prop.fieldNames)
        columns.push({
          name: field,
          codec: codecOf(meta, prop),
          selfRef,
          references: target?.tableName,
          nullable: prop.nullable === true,
          length: typeof prop.length === 'number' && prop.length > 0 ? prop.length : undefined,
          small: /^smallint/i.test(String(prop.type ?? '')),
        });
    }
    specs.set(meta.tableName, { table: meta.tableName, plugin, columns, parents: [...parents] });
  }
  const ordered: TableSpec[] = [];
  const placed = new Set<string>();
  const visit = (spec: TableSpec, path: string[]): void => {
    if (placed.has(spec.table)) return;
    if (path.includes(spec.table)) throw new Error(`tables refer to each other in a cycle: ${[...path, spec.table].join(' -> ')}`);
    for (const parent of spec.parents) {
      const p = specs.get(parent);
      if (p) visit(p, [...path, spec.table]);
    }
    placed.add(spec.table);
    ordered.push(spec);
  };
  for (const spec of [...specs.values()].sort((a, b) => a.table.localeCompare(b.table))) visit(spec, []);
  return ordered;
}

/** A value as the database driver hands it back, in the backup's one shape for its codec. */
export function decode(codec: Codec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (codec) {
    case 'int':
    case 'double':
      return Number(value);
    case 'bigint':
      return String(value);
    case 'bool':
      return value === true || value === 1 || value === '1' || value === 1n;
    case 'text':
      return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  }
}
