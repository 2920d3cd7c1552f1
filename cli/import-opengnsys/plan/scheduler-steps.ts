import type { StepCommands } from '../../../plugins/scheduler';
import { decodeLegacyCommand } from '../legacy-commands';
import { refusalFromError } from './body-check';
import type { CommandStep } from './records';

/**
 * A stored legacy command as the scheduler would queue it, checked by the scheduler's own
 * rules for a step of that command: the step, or the reason it cannot be kept.
 */
export function commandStep(
  steps: Pick<StepCommands, 'check'>,
  text: string,
  catalogueFunction: string | null,
  where: string,
): CommandStep | string {
  const decoded = decodeLegacyCommand(text, catalogueFunction);
  if (!decoded.ok) return `${where}: ${decoded.reason}`;
  try {
    return { command: decoded.command, params: steps.check(decoded.command, decoded.params, `${where}.command`, `${where}.params`) };
  } catch (error) {
    return refusalFromError(error, {}, {}, '');
  }
}

/**
 * Walk includes depth first, deciding each item after those it includes. `decideOne` gets
 * the ids it includes already decided; an include that comes back to an item being decided
 * is a loop, reported along its path.
 */
export function decideWithIncludes<T extends { id: number }>(
  items: T[],
  includes: (item: T) => number[],
  decideOne: (item: T, loop?: number[]) => void,
): void {
  const byId = new Map(items.map((item) => [item.id, item]));
  const done = new Set<number>();
  const path: number[] = [];
  const visit = (item: T): void => {
    if (done.has(item.id)) return;
    path.push(item.id);
    for (const id of includes(item)) {
      const included = byId.get(id);
      if (!included || done.has(id)) continue;
      const loopStart = path.indexOf(id);
      if (loopStart >= 0) {
        const loop = [...path.slice(loopStart), id];
        for (const member of path.slice(loopStart)) {
          if (done.has(member)) continue;
          done.add(member);
          decideOne(byId.get(member)!, loop);
        }
        continue;
      }
      visit(included);
    }
    path.pop();
    if (!done.has(item.id)) {
      done.add(item.id);
      decideOne(item);
    }
  };
  for (const item of items) visit(item);
}
