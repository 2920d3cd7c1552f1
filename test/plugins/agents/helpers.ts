import { type Lab, addresses, startLab } from '../../support/lab';

/** Clients 127.0.1.1, 127.0.1.2, ... known to the inventory, no agent connected yet. */
export type Site = Lab;

/** A server with `count` clients in one room, and agent settings merged over the defaults. */
export function site(count: number, agents: Record<string, unknown> = {}): Promise<Site> {
  return startLab({ ips: addresses('127.0.1', count), server: { config: { agents } } });
}
