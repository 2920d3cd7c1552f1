import type { FleetEvent } from './event-log';

/**
 * Which events a subscriber (or webhook) wants. `types` holds exact names or prefixes
 * written `command.*`; `clients` keeps events about those addresses only (an event names
 * its client in `data.client`, or several in `data.clients`). Empty means everything.
 */
export class EventFilter {
  private readonly exact = new Set<string>();
  private readonly prefixes: string[] = [];

  constructor(
    types: readonly string[] = [],
    private readonly clients?: ReadonlySet<string>,
  ) {
    for (const type of types) {
      if (type.endsWith('.*')) this.prefixes.push(type.slice(0, -1));
      else this.exact.add(type);
    }
  }

  /** No type and no client named: every event. Such readers share one copy of each batch. */
  get takesAll(): boolean {
    return this.exact.size + this.prefixes.length === 0 && this.clients === undefined;
  }

  matches(event: FleetEvent): boolean {
    if (event.type === 'reset') return true;
    if (this.exact.size + this.prefixes.length > 0 && !this.exact.has(event.type) && !this.prefixes.some((p) => event.type.startsWith(p)))
      return false;
    if (!this.clients) return true;
    const { client, clients } = event.data;
    if (typeof client === 'string') return this.clients.has(client);
    if (Array.isArray(clients)) return clients.some((c) => typeof c === 'string' && this.clients!.has(c));
    return false;
  }
}

/** `a,b,,c` → [a, b, c]. */
export function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
