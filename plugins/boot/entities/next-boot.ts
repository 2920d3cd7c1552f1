import { EntitySchema } from '@mikro-orm/core';

/**
 * A one-shot boot waiting to be put back (POST /boot/next): the PC `ip` boots `mode` until
 * `revert` happens (`agent` connects, script `served`) or `until`, then gets `previous` back.
 * One row per PC (its address is unique): a second one-shot keeps the first's `previous`. No
 * foreign key: a removed PC's row reverts to nothing and is dropped. Times are ms since 1970.
 * `id` is the row's own key, as every table has one (backups copy tables by it).
 */
export interface NextBoot {
  id: number;
  ip: string;
  mode: string;
  previous: string;
  revert: string;
  since: number;
  until: number;
}

export const NextBootEntity = new EntitySchema<NextBoot>({
  name: 'NextBoot',
  tableName: 'boot_next',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    ip: { type: 'string', length: 15, unique: 'boot_next_ip_unique' },
    mode: { type: 'string', length: 64 },
    previous: { type: 'string', length: 64 },
    revert: { type: 'string', length: 8 },
    since: { type: 'double' },
    until: { type: 'double' },
  },
});

/** A one-shot boot as the plugin handles it, before or apart from its row's key. */
export type PendingBoot = Omit<NextBoot, 'id'>;
