/** What the enrol plugin announces on the event bus (MACs as aa:bb:cc:dd:ee:ff). */
declare module 'ogserve' {
  interface EventMap {
    /** A PC nobody registered started the discovery boot (`first`: never seen before). */
    'discovered.booted': { mac: string; address: string; network: string; first: boolean };
    /** Its agent reported its hardware: it is discovered. `moved`: the address of the client whose serial number it has. */
    'discovered.reported': { mac: string; address: string; network: string; model: string; serial_number: string; moved?: string };
    /** Discovered PCs became clients of a room (`rule`: the number of the rule that did it, from 1; absent for a request). */
    'discovered.assigned': { room: number; clients: { mac: string; ip: string; name: string }[]; rule?: number };
    /** PCs found again were confirmed as the clients they are (their MAC or address changed). */
    'discovered.confirmed': { clients: { mac: string; ip: string; name: string }[] };
    /** Discovered PCs forgotten: asked, past `enrol.max_pending` (`limit`), or added as clients another way (`client`). */
    'discovered.forgotten': { macs: string[]; reason: 'asked' | 'limit' | 'client' };
    /** The restore asked with an assignment was sent (`job` when the jobs plugin follows it); `missing`: PCs whose agents never came. */
    'discovered.restore': { clients: string[]; missing: string[]; job?: number };
  }
}

export const discoveredEvents = [
  'discovered.booted',
  'discovered.reported',
  'discovered.assigned',
  'discovered.confirmed',
  'discovered.forgotten',
  'discovered.restore',
] as const;

/** aa:bb:cc:dd:ee:ff of a stored MAC (12 hex digits). */
export function colonMac(mac: string): string {
  return mac.match(/../g)!.join(':');
}
