/** What one-shot boots announce on the event bus. */
declare module 'ogserve' {
  interface EventMap {
    /** A PC boots `mode` once (POST /boot/next); `previous` comes back when `revert` happens or at `until` (ISO time). */
    'boot.next.set': { client: string; mode: string; previous: string; revert: NextRevert; until: string };
    /** A one-shot boot ended: the PC boots `previous` again, for `reason`. */
    'boot.next.reverted': { client: string; mode: string; previous: string; reason: RevertReason };
  }
}

/** What ends a one-shot boot besides its timeout. */
export type NextRevert = 'agent' | 'served';
export type RevertReason = NextRevert | 'timeout';
