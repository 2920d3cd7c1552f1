import { ApiError } from '../../api';

/** Ids typed as "2, 7 9", each sent as typed: a wrong one is named by the API itself (`centers[1]`). */
export const ids = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** An API error as a form shows it: under the field it names (`centers[1]` is the centers field). */
export function problemOf(error: unknown): { field?: string; message: string } | null {
  if (!error) return null;
  const field = error instanceof ApiError ? error.field?.replace(/[[.].*$/, '') : undefined;
  return { field, message: (error as Error).message };
}
