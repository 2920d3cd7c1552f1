import type { AccessScope } from 'ogserve';
import type { ClientView } from './client-view';
import type { ScopeNode } from './scopes';

/** What a FleetScope reads: the inventory's clients and each room's center. */
export interface FleetScopeSource {
  clientByIp(ip: string): Promise<ClientView | null>;
  allClients(): Promise<Iterable<ClientView>>;
  /** A room's center, or undefined for a room that does not exist. */
  centerOfRoom(roomId: number): Promise<number | undefined>;
}

/**
 * A token's part of the fleet: whole centers and single rooms. A client is inside when its
 * room is listed or its room's center is. Read from the inventory's index at each call, so
 * clients added, moved or deleted are seen at once.
 */
export class FleetScope implements AccessScope {
  readonly description: string;

  constructor(
    private readonly source: FleetScopeSource,
    readonly centers: ReadonlySet<number>,
    readonly rooms: ReadonlySet<number>,
  ) {
    const parts = [
      ...(centers.size > 0 ? [`centers ${[...centers].join(', ')}`] : []),
      ...(rooms.size > 0 ? [`rooms ${[...rooms].join(', ')}`] : []),
    ];
    this.description = parts.join('; ') || 'nothing';
  }

  includes(client: ClientView): boolean {
    return this.rooms.has(client.room.id) || this.centers.has(client.room.centerId);
  }

  async includesRoom(roomId: number): Promise<boolean> {
    if (this.rooms.has(roomId)) return true;
    const center = await this.source.centerOfRoom(roomId);
    return center !== undefined && this.centers.has(center);
  }

  async outside(ips: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const ip of new Set(ips)) {
      const client = await this.source.clientByIp(ip);
      if (!client || !this.includes(client)) out.push(ip);
    }
    return out;
  }

  async addresses(): Promise<ReadonlySet<string>> {
    const inside = new Set<string>();
    for (const client of await this.source.allClients()) if (this.includes(client)) inside.add(client.ip);
    return inside;
  }

  /**
   * The scope tree cut to what is inside: whole centers of the scope; of other centers, only
   * the rooms of the scope and the folders that lead to them.
   */
  prune(tree: ScopeNode[]): ScopeNode[] {
    const keepRooms = (nodes: ScopeNode[]): ScopeNode[] =>
      nodes.flatMap((node) => {
        if (node.type === 'room') return this.rooms.has(node.id) ? [node] : [];
        if (node.type !== 'folder') return [];
        const scope = keepRooms(node.scope);
        return scope.length > 0 ? [{ ...node, scope }] : [];
      });
    return tree.flatMap((center) => {
      if (this.centers.has(center.id)) return [center];
      const scope = keepRooms(center.scope);
      return scope.length > 0 ? [{ ...center, scope }] : [];
    });
  }
}
