import { ErrorCode, badRequest } from '../errors';

/** A query's time: an ISO 8601 date or time, or milliseconds since 1970; a 400 naming the field otherwise. */
export function timeOf(value: string, field: string): number {
  const ms = /^[0-9]{1,15}$/.test(value) ? Number(value) : /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms))
    throw badRequest(
      ErrorCode.invalidField,
      `${field}: '${value.slice(0, 40)}' is not an ISO 8601 date or time, nor milliseconds since 1970`,
      field,
    );
  return ms;
}

/** A query's whole number from 1 to `max`; a 400 naming the field otherwise. */
export function positive(value: string, field: string, max = 2 ** 31 - 1): number {
  if (!/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > max)
    throw badRequest(ErrorCode.invalidField, `${field}: must be a whole number from 1 to ${max}`, field);
  return Number(value);
}
