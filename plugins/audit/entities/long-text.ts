import { type EntityProperty, type Platform, Type } from '@mikro-orm/core';
import { MySqlPlatform } from '@mikro-orm/knex';

/**
 * Text without the 64 KiB bound of MySQL's and MariaDB's `text` (a wake of 10,000 clients
 * names 160 KB of addresses): `mediumtext` there, `text` on the engines where it is unbounded.
 */
export class LongText extends Type<string, string> {
  override getColumnType(_prop: EntityProperty, platform: Platform): string {
    return platform instanceof MySqlPlatform ? 'mediumtext' : 'text';
  }
}
