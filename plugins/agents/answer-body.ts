/** An answer body that cannot be used: the connection is dropped, as the reference drops one that is not JSON. */
export class UnusableBody extends Error {
  override name = 'UnusableBody';
}

/**
 * An agent answer's body as JSON. Refused when it is not JSON, or when it holds more than
 * `maxValues` values (objects, arrays, strings, numbers...): the largest answers agents send
 * carry their bulk in a few long strings (a software list, a shell output), and the busiest
 * structure is a refresh of 1,024 partitions and a cache of 4,096 images, about 26,000 values.
 * Each value costs the main thread time to build, however the body was parsed, so a body of
 * millions of tiny values (which fits in a few MiB) is refused rather than built.
 * Runs on the parse thread for large bodies (answer-worker.ts), inline for small ones.
 */
export function parseBody(bytes: Uint8Array, maxValues: number): unknown {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    throw new UnusableBody('answer body is not JSON');
  }
  if (holdsMoreThan(body, maxValues))
    throw new UnusableBody(`answer body holds more than ${maxValues} JSON values (agents.max_answer_values)`);
  return body;
}

/** Whether a parsed JSON value counts more than `max` values, itself included; stops counting past it. */
function holdsMoreThan(value: unknown, max: number): boolean {
  let count = 1;
  const containers: object[] = typeof value === 'object' && value !== null ? [value] : [];
  while (containers.length > 0) {
    const container = containers.pop()!;
    const items: unknown[] = Array.isArray(container) ? container : Object.values(container);
    count += items.length;
    if (count > max) return true;
    for (const item of items) if (typeof item === 'object' && item !== null) containers.push(item);
  }
  return count > max;
}
