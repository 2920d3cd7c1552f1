import { Store, useStore } from './store';
import type { VersionInfo } from './types';

/** What GET /version said after sign-in: the release and the enabled plugins, with their console views (GET /console-views). */
export const server = new Store<VersionInfo | null>(null);

export function useServer(): VersionInfo | null {
  return useStore(server);
}

/** Whether the caller may call every route named (`POST /wol`): the console offers only what will not be refused. */
export function may(info: VersionInfo | null, ...routes: string[]): boolean {
  return !!info?.allowed && routes.every((route) => info.allowed!.has(route));
}

/** Whether every named plugin is enabled: the console offers only what the server serves. */
export function enabled(info: VersionInfo | null, ...names: string[]): boolean {
  return !!info && names.every((name) => info.plugins.some((p) => p.name === name));
}
