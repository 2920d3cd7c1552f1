import { type EntityProperty, type Platform, Type } from '@mikro-orm/core';
import { MySqlPlatform } from '@mikro-orm/knex';

/**
 * Text without the 64 KiB bound of MySQL's and MariaDB's `text` (Kea's configuration with
 * 2,000 reservations is about 600 KB as config-get answers it): `mediumtext` there, `text`
 * on the engines where it is unbounded.
 */
export class LongText extends Type<string, string> {
  override getColumnType(_prop: EntityProperty, platform: Platform): string {
    return platform instanceof MySqlPlatform ? 'mediumtext' : 'text';
  }
}
