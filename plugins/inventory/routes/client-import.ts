import { ConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { ErrorCode, HttpError, Reply, badRequest, execute, type PluginContext } from 'ogserve';
import type { InventoryConfig } from '../client-rules';
import { type CsvClientRow, csvClientRows } from '../csv-clients';
import { ImportRefused } from '../import-refusal';
import { type AcceptedClient, ImportedClients } from '../imported-clients';
import { ClientImport, ClientImported } from '../schemas';
import type { WriteChanges } from '../write-changes';

type Answer = Static<typeof ClientImported>;
type RowAnswer = Answer['rows'][number];

/**
 * POST /client/import: clients from a CSV file, each row held to POST /client/add's rules
 * and to no IP or MAC twice in the file (ImportedClients). All rows are stored in one
 * transaction, or none.
 */
export function clientImportRoute(ctx: PluginContext<InventoryConfig>, imported: ImportedClients, changes: WriteChanges): void {
  const { router, config, settings } = ctx;
  const refusal = (answer: Answer) => new ImportRefused(answer, settings.rest.max_response_bytes);

  /** Every row checked: the answer for each, and the rows that passed, in order. */
  async function checkRows(em: EntityManager, rows: CsvClientRow[]): Promise<{ answers: RowAnswer[]; accepted: AcceptedClient[] }> {
    const rooms = await execute(em, 'select id, name from rooms');
    const sameFile = ImportedClients.sameFile((line) => `line ${line}`);
    const answers: RowAnswer[] = [];
    const accepted: AcceptedClient[] = [];
    for (const row of rows) {
      const shown = { line: row.line, ip: String(row.fields.ip ?? ''), name: String(row.fields.name ?? '') };
      try {
        if (row.problem) throw badRequest(ErrorCode.invalidField, row.problem);
        const fields = { ...row.fields };
        if (typeof fields.room === 'string') fields.room = roomOf(fields.room, rooms);
        const client = await imported.check(em, fields);
        sameFile(client, row.line);
        accepted.push(client);
        answers.push({ ...shown, ok: true });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        answers.push({ ...shown, ok: false, error: String(error.code), field: error.field, message: error.message });
      }
    }
    return { answers, accepted };
  }

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
      if (dryRun) {
        // A check writes nothing: its audit entry says so rather than read as an import.
        await ctx.events.tell('audit.details', { req, dry_run: true });
        return Reply.json(answer(answers), { uncapped: true });
      }
      let ids: number[];
      try {
        ids = await imported.store(accepted);
      } catch (error) {
        if (!(error instanceof ConstraintViolationException) && !(error instanceof HttpError)) throw error;
        // Written meanwhile: a client took an address, or a reference went. Checked again (with
        // nothing the request read before kept), the answer names the row.
        em.clear();
        const again = await checkRows(em, rows);
        if (again.accepted.length < rows.length) throw refusal(answer(again.answers));
        throw error;
      }
      const warnings = await imported.stored(ids, accepted, log);
      await changes.added(req, ids, log);
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
