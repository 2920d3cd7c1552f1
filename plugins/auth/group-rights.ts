import { type Role, roleNames } from '../../core/access';
import type { Grant } from './grant';

/** What membership of one directory group (or one OpenID claim value) gives. */
export interface GroupRights {
  role: Role;
  /** Absent or empty, with `rooms` too: the whole fleet. */
  centers?: number[];
  rooms?: number[];
  shell?: boolean;
}

/**
 * The grant of a person in `groups` (keys of `mapping`, compared as `normalise` makes them),
 * or undefined when no group of theirs is mapped. Several groups: the highest role among
 * them, over every center and room the groups giving that role name (the whole fleet when
 * one of them names none), with the shell when one of those gives it. A lower role's group
 * adds nothing: a grant is one role over one part of the fleet, so adding a reader group's
 * whole fleet to an admin group's one center would make the person admin of everything.
 */
export function grantOfGroups(
  groups: readonly string[],
  mapping: Readonly<Record<string, GroupRights>>,
  normalise: (group: string) => string = (group) => group,
): Grant | undefined {
  const mapped = new Map(Object.entries(mapping).map(([group, rights]) => [normalise(group), rights]));
  const held = [...new Set(groups.map(normalise))].flatMap((group) => mapped.get(group) ?? []);
  if (held.length === 0) return undefined;
  const rank = (role: Role) => roleNames.indexOf(role);
  const top = held.reduce((best, rights) => (rank(rights.role) > rank(best) ? rights.role : best), held[0]!.role);
  const giving = held.filter((rights) => rights.role === top);
  const everywhere = giving.some((rights) => (rights.centers ?? []).length + (rights.rooms ?? []).length === 0);
  return {
    role: top,
    shell: giving.some((rights) => rights.shell === true),
    centers: everywhere ? [] : [...new Set(giving.flatMap((rights) => rights.centers ?? []))],
    rooms: everywhere ? [] : [...new Set(giving.flatMap((rights) => rights.rooms ?? []))],
  };
}
