import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';
import type { logFormats } from './config-schema';
import { prettyStream } from './log-pretty';

export type { Logger };

export type LogFormat = (typeof logFormats)[number];

/**
 * JSON lines with the level by name (`"level":"warn"`), what a reader of the journal or a
 * log shipper expects; `pretty` turns each into one readable line for a terminal.
 */
export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const out = destination ?? pino.destination(1);
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    format === 'pretty' ? prettyStream(out) : out,
  );
}
