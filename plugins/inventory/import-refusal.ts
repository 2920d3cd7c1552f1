import type { Static } from '@sinclair/typebox';
import { ErrorCode, HttpError, stringifyAscii } from 'ogserve';
import type { ClientImported } from './schemas';

type Answer = Static<typeof ClientImported>;

/**
 * A refused import: a 400 whose body carries the import's answer beside the usual error
 * fields. An error answer over rest.max_response_bytes would be a 500 saying nothing of the
 * rows, so when every row does not fit, the refused rows alone are listed, as many as fit
 * in order, and the message says so.
 */
export class ImportRefused extends HttpError {
  private readonly answer: Answer;

  constructor(answer: Answer, maxBytes: number) {
    const { rows, message } = listed(answer, maxBytes);
    super(400, ErrorCode.invalidField, message, 'csv');
    this.answer = { ...answer, rows };
  }

  override toJSON() {
    return { ...super.toJSON(), ...this.answer };
  }
}

function listed(answer: Answer, maxBytes: number): { rows: Answer['rows']; message: string } {
  const base = `${answer.refused} of ${answer.rows.length} rows refused; nothing was stored`;
  const size = (rows: Answer['rows'], message: string) =>
    stringifyAscii({ error: ErrorCode.invalidField, message, field: 'csv', ...answer, rows }).length;
  if (size(answer.rows, base) <= maxBytes) return { rows: answer.rows, message: base };
  const refused = answer.rows.filter((row) => !row.ok);
  // Room for the longest message this can say, then each refused row (and its comma) while it fits.
  let bytes = size([], `${base}; the first ${refused.length} refused rows are listed`);
  let count = 0;
  for (const row of refused) {
    bytes += stringifyAscii(row).length + 1;
    if (bytes > maxBytes) break;
    count++;
  }
  const which = count === refused.length ? 'the refused rows alone are listed' : `the first ${count} refused rows are listed`;
  return { rows: refused.slice(0, count), message: `${base}; ${which}` };
}
