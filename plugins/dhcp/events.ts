declare module 'ogserve' {
  interface EventMap {
    /** Kea was given a configuration (one config-set): the inventory's reservations, or a restored backup. */
    'dhcp.sync.done': {
      at: string;
      reason: 'sync' | 'restore';
      subnets: number;
      reservations: number;
      /** The backup of the configuration it replaced (GET /dhcp/backups). */
      backup: number;
      /** Leases deleted for PCs that were given another address (lease4-del). */
      leases_deleted: string[];
    };
    /** Kea refused the configuration (config-test or config-set), or did not answer (sent again when it does). */
    'dhcp.sync.failed': { at: string; reason: 'refused' | 'unreachable'; message: string };
  }
}

export const dhcpEvents = ['dhcp.sync.done', 'dhcp.sync.failed'] as const;
