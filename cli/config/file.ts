import { readFileSync } from 'node:fs';
import { StartupError } from '../../core/errors';
import { scanJson } from './json-lines';

type Json = Record<string, unknown>;

/** A config file's object and the line of each key in it; a syntax error names its line and column. */
export function readJson(file: string): { value: Json; lines: Map<string, number> } {
  let text: string;
  try {
    // An editor may have put a byte order mark first; JSON has none.
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw new StartupError(`config: cannot read ${file}: ${(error as Error).message}`);
  }
  const scanned = scanJson(text);
  if ('error' in scanned) {
    const { line, column, problem } = scanned.error;
    throw new StartupError(`config: ${file} is not valid JSON: line ${line}, column ${column}: ${problem}`);
  }
  // The scan follows JSON's grammar: a text it passes, JSON.parse reads.
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StartupError(`config: ${file} must hold a JSON object`);
  return { value: value as Json, lines: scanned.lines };
}
