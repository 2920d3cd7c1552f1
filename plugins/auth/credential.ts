import type { AccessScope, Credential, CredentialPart } from 'ogserve';
import { type Grant, highestRole, isWholeFleet, reachOf } from './grant';
import type { LiveSession } from './sessions';

/** The scope of some centers and rooms (the inventory makes it). */
export type FleetScopeMaker = (centers: readonly number[], rooms: readonly number[]) => AccessScope;

/**
 * What a session's requests stand for: `user@provider` with the grants of their sign-in.
 * Several grants (directory groups of different roles) make a credential of several parts,
 * whose scopes the inventory unites by their centers and rooms.
 */
export function credentialOf(session: LiveSession, fleetScope: FleetScopeMaker, holds: () => boolean): Credential {
  const reach = new WeakMap<AccessScope, Pick<Grant, 'centers' | 'rooms'>>();
  const scopeOf = (grant: Pick<Grant, 'centers' | 'rooms'>): AccessScope | undefined => {
    if (isWholeFleet(grant)) return undefined;
    const scope = fleetScope(grant.centers, grant.rooms);
    reach.set(scope, grant);
    return scope;
  };
  const parts: CredentialPart[] = session.grants.map((grant) => ({
    role: grant.role,
    // The agents' shell permission, which no role holds, as a token may be given it.
    grants: grant.shell ? ['shell'] : [],
    scope: scopeOf(grant),
  }));
  const base = { name: `${session.username}@${session.provider}`, source: session.provider, holds };
  if (parts.length === 1) return { ...base, ...parts[0]! };
  return {
    ...base,
    role: highestRole(session.grants),
    scope: scopeOf(reachOf(session.grants)),
    parts,
    unite: (scopes) => scopeOf(reachOf(scopes.map((scope) => reach.get(scope)!)))!,
  };
}

/** For GET /auth/me: where the caller reaches; with several parts, each role's. */
export function describeReach(credential: Credential): string | null {
  if (!credential.parts) return credential.scope?.description ?? null;
  return credential.parts.map((part) => `${part.role}: ${part.scope?.description ?? 'the whole fleet'}`).join('; ');
}
