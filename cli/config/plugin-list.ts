/**
 * `plugins` written as changes to the list beneath it (the defaults, or the site file's
 * list under an environment variable): `["+scheduler", "-console"]` adds scheduler and
 * drops console, so a site that wants one plugin more need not copy every default name,
 * nor miss the plugins a later release adds to the defaults. A list of plain names
 * replaces the list, as it always did.
 */

/** Whether a `plugins` value is a list of changes rather than the list itself. */
export function isPluginChangeList(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.some(isChange);
}

/** The list beneath with the changes made, or the first change that cannot be made (by its index). */
export function applyPluginChanges(beneath: unknown[], changes: unknown[]): { list: unknown[] } | { index: number; problem: string } {
  const list = [...beneath];
  for (const [index, change] of changes.entries()) {
    if (typeof change !== 'string') return { index, problem: 'must be a string' };
    if (!isChange(change)) {
      return {
        index,
        problem: `is a plugin name in a list of changes: write '+${change}' to add it, or list every plugin without + and -`,
      };
    }
    const name = change.slice(1);
    if (name === '') return { index, problem: `names no plugin after '${change}'` };
    const at = list.indexOf(name);
    if (change.startsWith('+')) {
      if (at < 0) list.push(name);
    } else if (at < 0) {
      return { index, problem: `removes '${name}', which is not enabled (enabled: ${list.join(', ')})` };
    } else {
      list.splice(at, 1);
    }
  }
  return { list };
}

function isChange(item: unknown): boolean {
  return typeof item === 'string' && (item.startsWith('+') || item.startsWith('-'));
}
