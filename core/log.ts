import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';

export type { Logger };

/** JSON lines with the level by name (`"level":"warn"`), what a reader of the journal or a log shipper expects. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination(1),
  );
}
