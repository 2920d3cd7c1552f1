import { parentPort } from 'node:worker_threads';
import { parseBody } from './answer-body';

/** A body to parse: its bytes (moved here, not copied) and the values it may hold. */
export interface ParseJob {
  id: number;
  bytes: ArrayBuffer;
  maxValues: number;
}

/** The parsed body, or why it cannot be used. */
export type ParseResult = { id: number; body: unknown } | { id: number; unusable: string };

/**
 * The thread that parses large agent answers (see answer-parsing.ts): decoding and parsing
 * several MiB of JSON take tens to hundreds of milliseconds the REST answers would wait for.
 */
parentPort!.on('message', ({ id, bytes, maxValues }: ParseJob) => {
  let result: ParseResult;
  try {
    result = { id, body: parseBody(new Uint8Array(bytes), maxValues) };
  } catch (error) {
    result = { id, unusable: (error as Error).message };
  }
  parentPort!.postMessage(result);
});
