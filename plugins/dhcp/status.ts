import type { Static } from '@sinclair/typebox';
import { desiredNow, type PushDeps } from './push';
import { KeaUnreachable } from './kea-client';
import { differences, mergedConfig, ownedPart } from './kea-config';
import type { DhcpStatus } from './schemas';
import type { DhcpSync } from './sync';

/** GET /dhcp/status: what Kea runs now against the inventory, and how the last push went. */
export async function dhcpStatus(deps: PushDeps, sync: DhcpSync, url: string, pushesHere: boolean): Promise<Static<typeof DhcpStatus>> {
  // The push's state is read after Kea's answer: a push that ended meanwhile is seen whole.
  const common = () => ({ control_agent: url, pending: sync.pending, pushes_here: pushesHere, last_push: sync.last ?? null });
  try {
    const current = await deps.kea.configGet();
    const desired = await desiredNow(deps);
    const inStep = ownedPart(current) === ownedPart(mergedConfig(current, desired, deps.boot));
    return {
      ...common(),
      reachable: true,
      in_step: inStep,
      last_error: sync.lastError ?? null,
      differences: differences(current, desired),
    };
  } catch (error) {
    if (!(error instanceof KeaUnreachable)) throw error;
    const now = { at: new Date().toISOString(), reason: 'unreachable' as const, message: error.message };
    return { ...common(), reachable: false, in_step: false, last_error: now, differences: null };
  }
}
