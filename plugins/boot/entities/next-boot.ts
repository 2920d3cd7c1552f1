import { EntitySchema } from '@mikro-orm/core';

/**
 * A one-shot boot waiting to be put back (POST /boot/next): the PC `ip` boots `mode` until
 * `revert` happens (`agent` connects, script `served`) or `until`, then gets `previous` back.
 * One row per PC: a second one-shot keeps the first's `previous`. Keyed by address, with no
 * foreign key: a removed PC's row reverts to nothing and is dropped. Times are ms since 1970.
 */
export interface NextBoot {
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
    ip: { type: 'string', length: 15, primary: true },
    mode: { type: 'string', length: 64 },
    previous: { type: 'string', length: 64 },
    revert: { type: 'string', length: 8 },
    since: { type: 'double' },
    until: { type: 'double' },
  },
});
