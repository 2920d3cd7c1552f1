import type { EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { type Database, ErrorCode, type Logger, type PluginEvents, badRequest, compile, normalizeMac } from 'ogserve';
import type { ClientRules } from './client-rules';
import { ClientAdd } from './schemas';
import type { Inventory } from './service';

/** A row that passed every rule, ready to insert. */
export type AcceptedClient = { body: Static<typeof ClientAdd>; mac: string };

const checkAdd = compile(ClientAdd);

/**
 * What the imports of many clients at once (a CSV file, a dhcpd.conf) share: each row held
 * to POST /client/add's rules in its order (schema, `client.check` hooks, room, unique IP and
 * MAC, references), no IP or MAC twice in the file, the accepted rows stored in one
 * transaction, and the store told as an add is.
 */
export class ImportedClients {
  constructor(
    private readonly db: Database,
    private readonly inventory: Inventory,
    private readonly rules: ClientRules,
    private readonly events: PluginEvents,
  ) {}

  /** One row's fields by POST /client/add's rules; the first refusal is thrown (an HttpError naming the field). */
  async check(em: EntityManager, fields: Record<string, unknown>): Promise<AcceptedClient> {
    const checked = checkAdd(fields);
    if (!checked.ok) {
      const { field, message, missing } = checked.violation;
      throw badRequest(missing ? ErrorCode.missingField : ErrorCode.invalidField, message, field || undefined);
    }
    const mac = normalizeMac(checked.value.mac);
    await this.inventory.checkClient(checked.value);
    await this.rules.explainRefusal(em, checked.value, mac);
    return { body: checked.value, mac };
  }

  /**
   * A check of the file's rows against each other: `seen(accepted, line)` throws when an
   * earlier row had the IP or MAC, `earlier` saying which (e.g. `line 3`).
   */
  static sameFile(earlier: (line: number) => string): (row: AcceptedClient, line: number) => void {
    const first = { ip: new Map<string, number>(), mac: new Map<string, number>() };
    return ({ body, mac }, line) => {
      // Compared as stored (a MAC's 12 digits), told as the row wrote it.
      for (const [field, value] of [['ip', body.ip] as const, ['mac', mac] as const]) {
        const seen = first[field].get(value);
        if (seen !== undefined) throw badRequest(ErrorCode.duplicate, `${earlier(seen)} has ${field} ${body[field]} too`, field);
      }
      first.ip.set(body.ip, line);
      first.mac.set(mac, line);
    };
  }

  /** The accepted rows in one transaction, with what `alongside` writes: their ids, in order. */
  store(accepted: AcceptedClient[], alongside?: (em: EntityManager) => Promise<void>): Promise<number[]> {
    return this.db.transactional(async (em) => {
      const ids: number[] = [];
      for (const { body, mac } of accepted) ids.push(await this.rules.insertClient(em, body, mac));
      await alongside?.(em);
      return ids;
    });
  }

  /**
   * After the store: the caches told, `inventory.created` for the clients (the router announces
   * a write from its body and answer; only the import knows which clients a file added), and
   * the `client.saved` hooks run; their warnings.
   */
  async stored(ids: number[], accepted: AcceptedClient[], log?: Logger): Promise<string[]> {
    this.inventory.clientsChanged(ids);
    const ips = accepted.map((a) => a.body.ip);
    void this.events.emit('inventory.created', { kind: 'client', clients: ips }, log);
    return this.inventory.notifySaved(await this.inventory.clientsByIps(ips), log);
  }
}
