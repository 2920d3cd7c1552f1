import type { StepChecks } from '../parts';
import { decodeLegacyCommand } from '../legacy-commands';
import { refusalFromError } from './body-check';
import { MAX_NESTING } from './context';
import type { CommandStep } from './records';

/**
 * A stored legacy command as the scheduler would queue it, checked by the scheduler's own
 * rules for a step of that command: the step, or the reason it cannot be kept.
 */
export function commandStep(
  steps: Pick<StepChecks, 'check'>,
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
 * the ids it includes already decided, and a refusal when the item is part of a loop of
 * includes (named along its path) or when it and what it includes nest past MAX_NESTING
 * levels. The walk keeps its own stack: a reference database may chain thousands.
 */
export function decideWithIncludes<T extends { id: number }>(
  table: string,
  items: T[],
  includes: (item: T) => number[],
  decideOne: (item: T, refusal?: string) => void,
): void {
  const byId = new Map(items.map((item) => [item.id, item]));
  const done = new Set<number>();
  /** Levels each decided item nests (1: it includes none of the items). */
  const levels = new Map<number, number>();
  const decide = (item: T, refusal?: string): void => {
    done.add(item.id);
    decideOne(item, refusal);
  };
  for (const start of items) {
    if (done.has(start.id)) continue;
    const path = [{ item: start, ids: includes(start), next: 0 }];
    const onPath = new Map([[start.id, 0]]);
    while (path.length > 0) {
      const top = path.at(-1)!;
      if (top.next < top.ids.length) {
        const id = top.ids[top.next++]!;
        const included = byId.get(id);
        if (!included || done.has(id)) continue;
        const loopStart = onPath.get(id);
        if (loopStart === undefined) {
          onPath.set(id, path.length);
          path.push({ item: included, ids: includes(included), next: 0 });
          continue;
        }
        const members = path.slice(loopStart).map((step) => step.item);
        const loop = [...members.map((member) => member.id), id].join(' -> ');
        for (const member of members) if (!done.has(member.id)) decide(member, `it includes itself (${table} ${loop})`);
        continue;
      }
      path.pop();
      onPath.delete(top.item.id);
      const nested = 1 + top.ids.reduce((most, id) => Math.max(most, levels.get(id) ?? 0), 0);
      levels.set(top.item.id, nested);
      if (done.has(top.item.id)) continue;
      decide(
        top.item,
        nested > MAX_NESTING ? `it and what it includes nest ${nested} levels deep, past the ${MAX_NESTING} the import takes` : undefined,
      );
    }
  }
}
