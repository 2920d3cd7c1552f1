import { type Role, roleNames } from 'ogserve';

/** What a person may do once signed in: a role over part of the fleet, as a token has. A person holds one or more. */
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

export const rankOf = (role: Role): number => roleNames.indexOf(role);

export const isWholeFleet = (grant: Pick<Grant, 'centers' | 'rooms'>): boolean => grant.centers.length + grant.rooms.length === 0;

/** The highest role among `grants`. */
export function highestRole(grants: readonly Grant[]): Role {
  return grants.reduce((best, grant) => (rankOf(grant.role) > rankOf(best) ? grant.role : best), grants[0]!.role);
}

/** Where any of `grants` reaches, as one grant's centers and rooms (both empty: the whole fleet). */
export function reachOf(grants: readonly Pick<Grant, 'centers' | 'rooms'>[]): Pick<Grant, 'centers' | 'rooms'> {
  if (grants.some(isWholeFleet)) return { centers: [], rooms: [] };
  return { centers: [...new Set(grants.flatMap((g) => g.centers))], rooms: [...new Set(grants.flatMap((g) => g.rooms))] };
}

/** Grants of the same role and shell made one, over where they all reach. */
export function mergeGrants(grants: readonly Grant[]): Grant[] {
  const byKind = new Map<string, Grant[]>();
  for (const grant of grants) byKind.set(`${grant.role} ${grant.shell}`, [...(byKind.get(`${grant.role} ${grant.shell}`) ?? []), grant]);
  return [...byKind.values()]
    .map((same) => ({ role: same[0]!.role, shell: same[0]!.shell, ...reachOf(same) }))
    .sort((a, b) => rankOf(b.role) - rankOf(a.role));
}
