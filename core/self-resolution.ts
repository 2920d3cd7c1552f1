import Module from 'node:module';

/**
 * A plugin outside the install (a directory named in `plugins`, an npm package, anywhere on
 * disk) requires `ogserve`, `ogserve/plugins/<name>` and the libraries whose objects cross
 * into ogserve without installing them itself: these resolve to the install that is loading
 * it. It must be this very copy, not another one found in the plugin's node_modules: service
 * tokens are classes (a second copy's `Inventory` is a token no plugin provides), entities
 * must be the running MikroORM's `EntitySchema`, and injection needs the running tsyringe.
 */
type ResolveFilename = (request: string, parent: unknown, ...rest: unknown[]) => string;

const shared = /^(ogserve|@mikro-orm\/[^/]+|tsyringe|reflect-metadata)(\/|$)/;

let installed = false;

export function resolveOgserveToThisInstall(): void {
  if (installed) return;
  installed = true;
  // Node offers no public resolution hook for CommonJS before version 22 (module.registerHooks).
  const loader = Module as unknown as { _resolveFilename: ResolveFilename };
  const original = loader._resolveFilename;
  loader._resolveFilename = function resolveFilename(request, parent, ...rest) {
    if (!shared.test(request)) return original.call(this, request, parent, ...rest);
    // Resolved as if required from this file, inside the package: the package's self-reference
    // and its own dependencies. A part of MikroORM ogserve does not ship (another driver) is
    // the plugin's own.
    try {
      return original.call(this, request, module, ...rest);
    } catch {
      return original.call(this, request, parent, ...rest);
    }
  };
}
