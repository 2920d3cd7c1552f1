import { ConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { ErrorCode, HttpError, Reply, badRequest, compile, execute, normalizeMac, type PluginContext } from 'ogserve';
import type { ClientRules, InventoryConfig } from '../client-rules';
import { type CsvClientRow, csvClientRows } from '../csv-clients';
import { ImportRefused } from '../import-refusal';
import { ClientAdd, ClientImport, ClientImported } from '../schemas';
import type { Inventory } from '../service';
import type { WriteChanges } from '../write-changes';

type Answer = Static<typeof ClientImported>;
type RowAnswer = Answer['rows'][number];
/** A row that passed every rule, ready to insert. */
type Accepted = { body: Static<typeof ClientAdd>; mac: string };

const checkAdd = compile(ClientAdd);

/**
 * POST /client/import: clients from a CSV file, each row held to POST /client/add's rules
 * (its schema, the `client.check` hooks, the room, unique IP and MAC, references) and to
 * no IP or MAC twice in the file. All rows are stored in one transaction, or none.
 */
export function clientImportRoute(
  ctx: PluginContext<InventoryConfig>,
  inventory: Inventory,
  rules: ClientRules,
  changes: WriteChanges,
): void {
  const { router, db, config, events, settings } = ctx;
  const refusal = (answer: Answer) => new ImportRefused(answer, settings.rest.max_response_bytes);

  /** Every row checked: the answer for each, and the rows that passed, in order. */
  async function checkRows(em: EntityManager, rows: CsvClientRow[]): Promise<{ answers: RowAnswer[]; accepted: Accepted[] }> {
    const rooms = await execute(em, 'select id, name from rooms');
    const seen = { ip: new Map<string, number>(), mac: new Map<string, number>() };
    const answers: RowAnswer[] = [];
    const accepted: Accepted[] = [];
    for (const row of rows) {
      const shown = { line: row.line, ip: String(row.fields.ip ?? ''), name: String(row.fields.name ?? '') };
      try {
        const body = await checkRow(em, row, rooms);
        const mac = normalizeMac(body.mac);
        for (const [field, value] of [['ip', body.ip] as const, ['mac', mac] as const]) {
          const first = seen[field].get(value);
          if (first !== undefined) throw badRequest(ErrorCode.duplicate, `line ${first} has ${field} ${value} too`, field);
          seen[field].set(value, row.line);
        }
        accepted.push({ body, mac });
        answers.push({ ...shown, ok: true });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        answers.push({ ...shown, ok: false, error: String(error.code), field: error.field, message: error.message });
      }
    }
    return { answers, accepted };
  }

  /** One row by POST /client/add's rules, in its order; the first refusal is thrown. */
  async function checkRow(em: EntityManager, row: CsvClientRow, rooms: Record<string, unknown>[]): Promise<Static<typeof ClientAdd>> {
    if (row.problem) throw badRequest(ErrorCode.invalidField, row.problem);
    const fields = { ...row.fields };
    if (typeof fields.room === 'string') fields.room = roomOf(fields.room, rooms);
    const checked = checkAdd(fields);
    if (!checked.ok) {
      const { field, message, missing } = checked.violation;
      throw badRequest(missing ? ErrorCode.missingField : ErrorCode.invalidField, message, field || undefined);
    }
    await inventory.checkClient(checked.value);
    await rules.explainRefusal(em, checked.value, normalizeMac(checked.value.mac));
    return checked.value;
  }

  const store = (accepted: Accepted[]) =>
    db.transactional(async (em) => {
      const ids: number[] = [];
      for (const { body, mac } of accepted) ids.push(await rules.insertClient(em, body, mac));
      return ids;
    });

  router.post(
    '/client/import',
    { permission: 'admin', body: ClientImport, response: ClientImported, summary: 'Clients from a CSV file: all rows or none' },
    async ({ body, em, log, req }) => {
      const dryRun = body.dry_run ?? false;
      const rows = csvClientRows(body.csv, config.import_max_rows);
      const answer = (answers: RowAnswer[]): Answer => {
        const refused = answers.filter((a) => !a.ok).length;
        return { rows: answers, added: refused > 0 ? 0 : answers.length, refused, dry_run: dryRun };
      };
      const { answers, accepted } = await checkRows(em, rows);
      if (accepted.length < rows.length) throw refusal(answer(answers));
      if (dryRun) return Reply.json(answer(answers), { uncapped: true });
      let ids: number[];
      try {
        ids = await store(accepted);
      } catch (error) {
        if (!(error instanceof ConstraintViolationException) && !(error instanceof HttpError)) throw error;
        // Written meanwhile: a client took an address, or a reference went. Checked again (with
        // nothing the request read before kept), the answer names the row.
        em.clear();
        const again = await checkRows(em, rows);
        if (again.accepted.length < rows.length) throw refusal(answer(again.answers));
        throw error;
      }
      inventory.clientsChanged(ids);
      const ips = accepted.map((a) => a.body.ip);
      // The router announces a write from its body and answer; only this route knows which clients a file added.
      void events.emit('inventory.created', { kind: 'client', clients: ips }, log);
      await changes.added(req, ids, log);
      const warnings = await inventory.notifySaved(await inventory.clientsByIps(ips), log);
      const done = answer(answers);
      return Reply.json(warnings.length > 0 ? { ...done, warnings } : done, { uncapped: true });
    },
  );
}

/**
 * The room a cell names: a number is a room id when a room has it; otherwise the cell is a
 * room's name, which must be unique. A number no room has is left to POST /client/add's rule.
 */
function roomOf(cell: string, rooms: Record<string, unknown>[]): string | number {
  const number = /^\d+$/.test(cell);
  if (number && rooms.some((r) => Number(r.id) === Number(cell))) return cell;
  const named = rooms.filter((r) => r.name === cell).map((r) => Number(r.id));
  if (named.length === 1) return named[0]!;
  if (named.length > 1)
    throw badRequest(ErrorCode.conflict, `${named.length} rooms are named '${cell}' (ids ${named.join(', ')}); give the room's id`, 'room');
  if (number) return cell;
  throw badRequest(ErrorCode.unknownId, `no room is named '${cell}'`, 'room');
}
