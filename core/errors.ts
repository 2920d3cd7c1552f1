/**
 * Errors that carry an HTTP status and a stable machine-readable code.
 * Every error body the service writes is `{error, message[, field]}`.
 */
export const ErrorCode = {
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  tooManyAttempts: 'too_many_attempts',
  notFound: 'not_found',
  methodNotAllowed: 'method_not_allowed',
  payloadTooLarge: 'payload_too_large',
  invalidJson: 'invalid_json',
  bodyRequired: 'body_required',
  bodyNotAllowed: 'body_not_allowed',
  missingField: 'missing_field',
  invalidField: 'invalid_field',
  duplicate: 'duplicate',
  unknownId: 'unknown_id',
  conflict: 'conflict',
  responseTooLarge: 'response_too_large',
  internal: 'internal_error',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode] | string;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCodeValue,
    message: string,
    readonly field?: string,
    /** Headers the answer carries besides the usual (a 401's own WWW-Authenticate challenge). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  toJSON(): { error: string; message: string; field?: string } {
    return this.field === undefined
      ? { error: this.code, message: this.message }
      : { error: this.code, message: this.message, field: this.field };
  }
}

/** A refused request (400) naming the offending field. */
export function badRequest(code: ErrorCodeValue, message: string, field?: string): HttpError {
  return new HttpError(400, code, message, field);
}

/** A startup problem (bad config, plugin graph): reported once, the process exits non-zero. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
