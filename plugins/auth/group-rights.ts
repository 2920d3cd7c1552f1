import type { Role } from 'ogserve';
import { type Grant, mergeGrants } from './grant';

/** What membership of one directory group (or one OpenID claim value) gives. */
export interface GroupRights {
  role: Role;
  /** Absent or empty, with `rooms` too: the whole fleet. */
  centers?: number[];
  rooms?: number[];
  shell?: boolean;
}

/**
 * The grants of a person in `groups` (keys of `mapping`, compared as `normalise` makes
 * them): one per mapped group, those of the same role and shell made one; empty when no
 * group of theirs is mapped. Several groups give the union of what each allows: a reader of
 * the whole fleet who is also the admin of one center may read everything and change that
 * center.
 */
export function grantsOfGroups(
  groups: readonly string[],
  mapping: Readonly<Record<string, GroupRights>>,
  normalise: (group: string) => string = (group) => group,
): Grant[] {
  const mapped = new Map(Object.entries(mapping).map(([group, rights]) => [normalise(group), rights]));
  const held = [...new Set(groups.map(normalise))].flatMap((group) => mapped.get(group) ?? []);
  return mergeGrants(
    held.map((rights) => ({ role: rights.role, shell: rights.shell === true, centers: rights.centers ?? [], rooms: rights.rooms ?? [] })),
  );
}
