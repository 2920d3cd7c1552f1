import type { ClientView } from './client-view';
import type { ClientRequestFields } from './service';

declare module 'ogserve' {
  interface InternalEventMap {
    /** A client was added or updated through the REST interface (its record as saved). */
    'client.saved': ClientView;
    /** A client was deleted, or its IP or MAC changed (its record before the change). */
    'client.removed': ClientView;
    /**
     * Every client one removal took (a cascade's thousands at once), after the per-client
     * events: for work better done once per batch than per client.
     */
    'clients.removed': ClientView[];
  }
  interface HookMap {
    /**
     * Before /client/add or /client/update writes anything, with the fields it sent: a plugin
     * refuses a value only it can judge (pxe-modes: a boot mode without a template).
     */
    'client.check': ClientRequestFields;
  }
}
