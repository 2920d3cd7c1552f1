import { ErrorCode, badRequest } from 'ogserve';

/** `{n}`, `{nn}`, `{nnn}`...: a number of at least that many digits; `{mac}`: the PC's 12 hex digits. */
const placeholder = /\{(n+|mac)\}/g;

/** The default pattern: every name different without a number to keep. */
export const defaultPattern = 'pc-{mac}';

/**
 * Names for new clients from a pattern such as `lab3-pc{nn}`: in the PCs' order, each the
 * lowest number from `start` up that gives a name no client has (nor an earlier PC of the
 * batch), so a room's gaps are filled and its names are never taken twice. `{mac}` alone
 * gives each PC its own name; a pattern with neither gives one name, so it is refused for
 * more than one PC. Throws a 400 naming `field` for a pattern that cannot name them.
 */
export function namesFrom(pattern: string, macs: string[], taken: ReadonlySet<string>, start = 1, field = 'names'): string[] {
  const numbers = [...pattern.matchAll(placeholder)].filter((m) => m[1] !== 'mac');
  if (numbers.length > 1) throw badRequest(ErrorCode.invalidField, `'${pattern}' has more than one number ({n}, {nn}...)`, field);
  if (/[{}]/.test(pattern.replace(placeholder, '')))
    throw badRequest(ErrorCode.invalidField, `'${pattern}' has braces that are not {n}, {nn}... or {mac}`, field);
  const withMac = pattern.includes('{mac}');
  if (numbers.length === 0 && !withMac && macs.length > 1)
    throw badRequest(ErrorCode.invalidField, `'${pattern}' gives ${macs.length} PCs the same name: add {n}, {nn}... or {mac}`, field);
  const used = new Set(taken);
  let next = start;
  return macs.map((mac) => {
    const fill = (n: number) =>
      pattern.replace(placeholder, (_, what: string) => (what === 'mac' ? mac : String(n).padStart(what.length, '0')));
    if (numbers.length === 0) {
      const name = fill(0);
      used.add(name);
      return name;
    }
    for (;;) {
      const name = fill(next++);
      if (used.has(name)) continue;
      if (name.length > 100) throw badRequest(ErrorCode.invalidField, `'${pattern}' makes names longer than 100 characters`, field);
      used.add(name);
      return name;
    }
  });
}
