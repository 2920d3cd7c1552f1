import { EntitySchema } from '@mikro-orm/core';

/**
 * A PC nobody registered that booted the discovery live image (boot.unknown_client
 * `discover`): its MAC (12 hex digits, unique), the address and network it came from, and
 * what its agent reported. Times are ms since 1970: `booted` its last discovery boot,
 * `first_seen` its first, `agent_at` when its agent last connected, `reported_at` when its
 * hardware was last read (null until then: it is `booted` only). `hardware` and `disks` are
 * JSON lists. `moved_client` is the id of the client whose serial number it reported, if
 * one has it: the same PC with another MAC or address ("moved?"). No foreign key: a client
 * that goes leaves the id behind, which the listing checks.
 */
export interface DiscoveredPc {
  id: number;
  mac: string;
  ip: string;
  network: string;
  firstSeen: number;
  booted: number;
  agentAt: number | null;
  reportedAt: number | null;
  serial: string;
  hardware: string;
  disks: string;
  movedClient: number | null;
}

export const DiscoveredPcEntity = new EntitySchema<DiscoveredPc>({
  name: 'DiscoveredPc',
  tableName: 'discovered_pcs',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    mac: { type: 'string', length: 12, unique: 'discovered_pcs_mac_unique' },
    ip: { type: 'string', length: 15, index: 'discovered_pcs_ip_index' },
    network: { type: 'string', length: 18 },
    firstSeen: { type: 'double' },
    booted: { type: 'double' },
    agentAt: { type: 'double', nullable: true },
    reportedAt: { type: 'double', nullable: true },
    serial: { type: 'string', length: 64, default: '' },
    hardware: { type: 'text' },
    disks: { type: 'text' },
    movedClient: { type: 'integer', nullable: true },
  },
});
