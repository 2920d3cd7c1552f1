import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';

/**
 * One stage of a PC's network boot, as the timeline keeps it: `boot` is when that boot began
 * (its first loader or its script served; ms since 1970 as a decimal string, a 64-bit column,
 * as `at`), `stage` one of loader, script, kernel, initrd, root, agent; a transfer's `bytes`, `ms` and `cut_short`; the
 * state its agent came up in. Rows go with their client (foreign key cascade).
 */
export interface BootStageRow {
  id: number;
  client: Client;
  boot: string;
  stage: string;
  at: string;
  bytes: string | null;
  ms: number | null;
  cutShort: boolean | null;
  state: string | null;
}

export const BootStageEntity = new EntitySchema<BootStageRow>({
  name: 'BootStage',
  tableName: 'boot_stages',
  indexes: [{ name: 'boot_stages_client_index', properties: ['client', 'boot'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade' },
    boot: { type: 'bigint' },
    stage: { type: 'string', length: 8 },
    at: { type: 'bigint' },
    bytes: { type: 'bigint', nullable: true },
    ms: { type: 'integer', nullable: true },
    cutShort: { type: 'boolean', nullable: true },
    state: { type: 'string', length: 8, nullable: true },
  },
});
