import type { Database } from 'ogserve';
import { clientViewSelect, toClientView, type ClientView } from './client-view';

interface Maps {
  byId: Map<number, ClientView>;
  byIp: Map<string, ClientView>;
  byMac: Map<string, ClientView>;
}

/** The fields of a client that commands change one client at a time, without moving it. */
export type ClientPatch = Partial<Pick<ClientView, 'boot' | 'livedir' | 'hardwareId' | 'serialNumber'>>;

/**
 * Every client's view in memory, for the lookups that consoles and agents make on every
 * request and connection. Read whole on first use (one query), then kept exact by the
 * writers once their write committed: a command's change of a client's own fields is
 * patched in, the rows of added, changed or deleted clients are read again before the next
 * lookup, and any other write (a room's network, a deleted folder) drops it whole. So no
 * answer after a write through this server is stale.
 */
export class ClientIndex {
  private loading?: Promise<Maps>;
  /** The maps of the last load that no write overtook. */
  private current?: Maps;
  /** Clients written since they were read, each with the mark of its latest write. */
  private readonly stale = new Map<number, number>();
  private marks = 0;
  private refreshing?: Promise<void>;

  constructor(private readonly db: Database) {}

  /** Forget everything: the next lookup reads the tables again. */
  invalidate(): void {
    this.loading = undefined;
    this.current = undefined;
    this.stale.clear();
  }

  /**
   * These clients were added, changed or deleted (committed): only their rows are read
   * again, before the next lookup, so adding clients one by one costs no full reload.
   */
  changed(clientIds: Iterable<number>): void {
    if (!this.current) {
      this.invalidate();
      return;
    }
    for (const id of clientIds) this.stale.set(id, ++this.marks);
  }

  /**
   * Apply a committed change of a client's own fields. A load still under way may have read
   * the row before the change, so it is dropped instead.
   */
  patch(clientIds: Iterable<number>, fields: ClientPatch): void {
    const maps = this.current;
    if (!maps) {
      this.invalidate();
      return;
    }
    for (const id of clientIds) {
      const old = maps.byId.get(id);
      if (!old) continue;
      this.put(maps, { ...old, ...fields });
    }
  }

  async byIp(ip: string): Promise<ClientView | undefined> {
    return (await this.maps()).byIp.get(ip);
  }

  /** The clients at these addresses, each once, in the order first asked; unknown addresses are left out. */
  async byIps(ips: Iterable<string>): Promise<ClientView[]> {
    const { byIp } = await this.maps();
    const found = new Set<ClientView>();
    for (const ip of ips) {
      const client = byIp.get(ip);
      if (client) found.add(client);
    }
    return [...found];
  }

  async byId(id: number): Promise<ClientView | undefined> {
    return (await this.maps()).byId.get(id);
  }

  async byMac(mac: string): Promise<ClientView | undefined> {
    return (await this.maps()).byMac.get(mac);
  }

  /** Every client, in no particular order. */
  async all(): Promise<Iterable<ClientView>> {
    return (await this.maps()).byId.values();
  }

  private async maps(): Promise<Maps> {
    const maps = this.current ?? (await this.loaded());
    // Readers that arrive while stale rows are read wait for them, then look again: a write
    // that committed after that read began is read in the next round.
    while (this.stale.size > 0 && this.current === maps) {
      this.refreshing ??= this.refresh(maps).finally(() => (this.refreshing = undefined));
      await this.refreshing;
    }
    return maps;
  }

  private async refresh(maps: Maps): Promise<void> {
    const marked = [...this.stale];
    const found = new Map<number, ClientView>();
    for (let i = 0; i < marked.length; i += 500) {
      const ids = marked.slice(i, i + 500).map(([id]) => id);
      const rows = await this.db.query(`${clientViewSelect} where c.id in (${ids.map(() => '?').join(',')})`, ids);
      for (const row of rows) found.set(Number(row.id), toClientView(row));
    }
    if (this.current !== maps) return;
    for (const [id, mark] of marked) {
      if (this.stale.get(id) !== mark) continue;
      this.stale.delete(id);
      const old = maps.byId.get(id);
      // Another client may hold the old address by now (two clients swapped theirs).
      if (old && maps.byIp.get(old.ip) === old) maps.byIp.delete(old.ip);
      if (old && maps.byMac.get(old.mac) === old) maps.byMac.delete(old.mac);
      maps.byId.delete(id);
      const view = found.get(id);
      if (view) this.put(maps, view);
    }
  }

  private put(maps: Maps, view: ClientView): void {
    maps.byId.set(view.id, view);
    maps.byIp.set(view.ip, view);
    maps.byMac.set(view.mac, view);
  }

  private loaded(): Promise<Maps> {
    if (this.loading) return this.loading;
    const loading = this.load().then(
      (maps) => {
        // A write that committed while the rows were read invalidated this load: its callers
        // get what was read when they asked, later ones a fresh load.
        if (this.loading === loading) this.current = maps;
        return maps;
      },
      (error: unknown) => {
        if (this.loading === loading) this.loading = undefined;
        throw error;
      },
    );
    this.loading = loading;
    return loading;
  }

  private async load(): Promise<Maps> {
    const rows = await this.db.query(`${clientViewSelect} order by c.id`);
    const maps: Maps = { byId: new Map(), byIp: new Map(), byMac: new Map() };
    for (const row of rows) this.put(maps, toClientView(row));
    return maps;
  }
}
