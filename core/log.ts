import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';

export type { Logger };

/**
 * JSON lines with the level by name (`"level":"warn"`), what a reader of the journal or a
 * log shipper expects (the program may turn each into a line for a terminal: `log.format`).
 */
export function createLogger(level: string, destination: DestinationStream = pino.destination(1)): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
