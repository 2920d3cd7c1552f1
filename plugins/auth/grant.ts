import type { Role } from '../../core/access';

/** What a person may do once signed in: a role over part of the fleet, as for tokens. */
export interface Grant {
  role: Role;
  /** Running shell commands, which no role holds. */
  shell: boolean;
  /** Both empty: the whole fleet. */
  centers: number[];
  rooms: number[];
}

/** `2,3` -> [2, 3]; '' -> []. */
export function idsOf(text: string | null | undefined): number[] {
  return (text ?? '').split(',').filter(Boolean).map(Number);
}

/** [2, 3] -> `2,3`, without repeats. */
export function textOf(ids: readonly number[]): string {
  return [...new Set(ids)].join(',');
}
