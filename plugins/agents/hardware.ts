import { execute, type Database, type PluginEvents } from 'ogserve';
import { answerLines } from './answer-lines';
import { AnswerError } from './configuration';
import type { Inventory } from '../inventory';
import { type HardwareItem, HardwareItemEntity } from './entities/hardware';
import { hardwareProfileId } from './profiles';

/**
 * The reference's hardware type codes (`tipohardwares.nemonico`) and what GET /hardware
 * shows for each: the reference's own descriptions (`tipohardwares.descripcion`, Spanish,
 * as its database ships them, spacing included), what its consoles show, or English names.
 */
export const hardwareTypeNames = {
  reference: {
    boa: 'Placas',
    mul: 'Dispositivos Multimedia',
    net: 'Tarjetas de Red',
    cpu: 'Microprocesadores',
    mem: 'Memorias',
    vga: 'Tarjetas gr\u00e1ficas',
    dis: 'Discos',
    aud: 'Dispositivos de sonido',
    mod: 'Marca y modelo del equipo',
    bio: 'Modelo y version de la bios',
    cdr: 'Modelo de grabadora o  grabadora de CD/DVD',
    ide: 'Controladores IDE',
    fir: 'Controladores FireWire',
    usb: 'Controladores USB',
    bus: 'Bus del Sistema',
    cha: 'Chasis del Sistema',
    sto: 'Controladores de almacenamiento',
    boo: 'Tipo de proceso de arranque',
  },
  english: {
    boa: 'Board',
    mul: 'Multimedia device',
    net: 'Network card',
    cpu: 'CPU',
    mem: 'Memory',
    vga: 'Graphics card',
    dis: 'Disk',
    aud: 'Audio device',
    mod: 'Make and model',
    bio: 'BIOS',
    cdr: 'Optical drive',
    ide: 'IDE controller',
    fir: 'FireWire controller',
    usb: 'USB controller',
    bus: 'System bus',
    cha: 'Chassis',
    sto: 'Storage controller',
    boo: 'Boot type',
  },
} as const satisfies Record<string, Record<string, string>>;

export type HardwareTypeNames = keyof typeof hardwareTypeNames;

/** The type codes ogserve knows, with its English name for each (importers check codes against it). */
export const hardwareTypes: Readonly<Record<string, string>> = hardwareTypeNames.english;

/** Bounds the rows one answer can write (the reference reads 128). */
const maxItems = 4096;

/**
 * `{"hardware": "<key>=<value>\n..."}`. As the reference, an unknown type code fails the
 * whole update; blank lines are skipped.
 */
export function readHardware(body: unknown): { type: string; description: string }[] {
  const text = (body as { hardware?: unknown } | null)?.hardware;
  if (typeof text !== 'string') throw new AnswerError("the answer has no 'hardware' string");
  const items: { type: string; description: string }[] = [];
  for (const line of answerLines(text)) {
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    if (eq < 0) throw new AnswerError(`hardware line without '=': ${JSON.stringify(line.slice(0, 60))}`);
    const type = line.slice(0, eq).trim();
    if (!Object.hasOwn(hardwareTypes, type)) throw new AnswerError(`unknown hardware type '${type.slice(0, 20)}'`);
    items.push({ type, description: line.slice(eq + 1).trim() });
    if (items.length > maxItems) throw new AnswerError(`more than ${maxItems} hardware items`);
  }
  return items;
}

/**
 * Replace a client's stored components and set its hardware profile (its `hardware_id`,
 * shared by every client with the same components), in one transaction. Resolves with the
 * components it replaced, for the `client.hardware.reported` event.
 */
export async function storeHardware(
  db: Database,
  inventory: Inventory,
  clientId: number,
  items: { type: string; description: string }[],
): Promise<{ type: string; description: string }[]> {
  const profile = await hardwareProfileId(db, items);
  return db.transactional(async (em) => {
    await inventory.setHardwareProfile(em, clientId, profile);
    const before = await execute<{ type: string; description: string }>(
      em,
      'select type, description from client_hardware where client_id = ? order by position',
      [clientId],
    );
    await execute(em, 'delete from client_hardware where client_id = ?', [clientId]);
    if (items.length > 0)
      await em.insertMany<HardwareItem>(
        HardwareItemEntity,
        items.map((item, position) => ({ client: inventory.clientRef(em, clientId), ...item, position })),
      );
    return before.map((row) => ({ type: row.type, description: row.description }));
  });
}

export async function storedHardware(
  db: Database,
  clientId: number,
  names: HardwareTypeNames,
): Promise<{ description: string; type: string }[]> {
  const rows = await db.query<{ type: string; description: string }>(
    'select type, description from client_hardware where client_id = ? order by position',
    [clientId],
  );
  const typeNames: Readonly<Record<string, string>> = hardwareTypeNames[names];
  return rows.map((r) => ({ description: r.description, type: typeNames[r.type] ?? r.type }));
}

/** The components the agents reported, for plugins that read them (a fleet report) or bring them (a PC enrolled). */
export class HardwareInventory {
  constructor(
    private readonly db: Database,
    /** `agents.hardware_type_names`: how GET /hardware names the types. */
    readonly names: HardwareTypeNames = 'reference',
    private readonly stores?: { inventory: Inventory; events: PluginEvents },
  ) {}

  /**
   * Store components an agent reported before its PC was a client (the enrol plugin's
   * discovery), as a hardware answer is stored: the client's components and profile, and
   * `client.hardware.reported`.
   */
  async store(client: { id: number; ip: string }, items: { type: string; description: string }[]): Promise<void> {
    if (!this.stores) throw new Error('this HardwareInventory only reads');
    for (const item of items)
      if (!Object.hasOwn(hardwareTypes, item.type)) throw new AnswerError(`unknown hardware type '${item.type.slice(0, 20)}'`);
    const before = await storeHardware(this.db, this.stores.inventory, client.id, items);
    await this.stores.events.tell('client.hardware.reported', { client: client.ip, clientId: client.id, before, after: items });
  }

  /** What GET /hardware calls a type code (the reference's Spanish description, or English). */
  typeName(code: string): string {
    return (hardwareTypeNames[this.names] as Readonly<Record<string, string>>)[code] ?? code;
  }

  /**
   * The stored components of these type codes (`cpu`, `mem`...) of these clients, each with
   * its client's id, in report order.
   */
  async components(
    types: readonly string[],
    clientIds: readonly number[],
  ): Promise<{ clientId: number; type: string; description: string }[]> {
    const found: { clientId: number; type: string; description: string }[] = [];
    if (types.length === 0) return found;
    const marks = (n: number) => Array(n).fill('?').join(', ');
    for (let i = 0; i < clientIds.length; i += 500) {
      const ids = clientIds.slice(i, i + 500);
      const rows = await this.db.query<{ client_id: number; type: string; description: string }>(
        `select client_id, type, description from client_hardware where client_id in (${marks(ids.length)}) and type in (${marks(types.length)})
         order by client_id, position`,
        [...ids, ...types],
      );
      for (const r of rows) found.push({ clientId: Number(r.client_id), type: r.type, description: r.description });
    }
    return found;
  }
}
