import Module from 'node:module';

/**
 * A plugin outside the install (a directory named in `plugins`, anywhere on disk) requires
 * `ogserve` and `ogserve/plugins/<name>` without installing ogserve itself: these names
 * resolve to the install that is loading it. It must be this very copy, not another one
 * found in the plugin's node_modules: service tokens are classes, and a second copy's
 * `Inventory` would be a different token that no plugin provides.
 */
type ResolveFilename = (request: string, parent: unknown, ...rest: unknown[]) => string;

let installed = false;

export function resolveOgserveToThisInstall(): void {
  if (installed) return;
  installed = true;
  // Node offers no public resolution hook for CommonJS before version 22 (module.registerHooks).
  const loader = Module as unknown as { _resolveFilename: ResolveFilename };
  const original = loader._resolveFilename;
  loader._resolveFilename = function resolveFilename(request, parent, ...rest) {
    // Resolved as if required from this file, inside the package: the package's self-reference.
    const from = request === 'ogserve' || request.startsWith('ogserve/') ? module : parent;
    return original.call(this, request, from, ...rest);
  };
}
