import type { TreeModel, TreeNode } from '../../fleet/tree';
import { groups as savedGroups } from '../../groups/groups';
import { t } from '../../i18n';

/** What a task runs for, in the API's words: a center, a room, one computer ("client") or a saved group. */
export interface Scope {
  type: 'center' | 'room' | 'client' | 'group';
  id: number;
}

/** The tree's key of a scope's node (computers are "client" to the scheduler). */
export const keyOf = (scope: Scope) => `${scope.type === 'client' ? 'computer' : scope.type}:${scope.id}`;

function scopeOf(node: TreeNode): Scope | null {
  if (node.type === 'folder') return null;
  return { type: node.type === 'computer' ? 'client' : node.type, id: node.id };
}

/** The center a node is in (a center is its own). */
export function centerOf(node: TreeNode): TreeNode {
  let at = node;
  while (at.parent) at = at.parent;
  return at;
}

/** The node's rooms and folders from its center down, for a label that says where it is. */
function path(node: TreeNode): string {
  const names: string[] = [];
  for (let at: TreeNode | undefined = node; at?.parent; at = at.parent) names.unshift(at.name);
  return names.join(' › ');
}

/** Computers listed without a filter up to this many; a larger fleet lists those the filter finds, this many at most. */
export const listedComputers = 200;

/** The saved groups (groups' store, read by the views that show these options) whose name holds `text`, as options. */
function groupOptions(text: string, keep: string) {
  const options = savedGroups.value
    .filter((g) => !text || g.name.toLowerCase().includes(text) || `group:${g.id}` === keep)
    .map((g) => ({ value: `group:${g.id}`, label: g.name }));
  return options.length > 0 ? [{ group: t('groups.savedGroups'), options }] : [];
}

/**
 * Every center and room by name, and the computers (all of a small fleet, else those whose
 * name or address holds `filter`), one option group per center (its first option the whole
 * center), for a select whose value is a tree key; `keep` stays listed whatever the filter.
 */
export function targetOptions(model: TreeModel | null, filter = '', keep = '') {
  const text = filter.trim().toLowerCase();
  const allComputers = (model?.byIp.size ?? 0) <= listedComputers;
  let computers = 0;
  const groups = (model?.roots ?? []).map((center) => {
    const options = [{ value: center.key, label: t('scheduler.wholeCenter', { name: center.name }) }];
    const walk = (node: TreeNode) => {
      for (const child of node.children) {
        const label = child.ip ? `${path(child)} (${child.ip})` : path(child);
        const listed =
          child.key === keep ||
          (child.type === 'computer'
            ? (allComputers && !text) || (!!text && child.text.includes(text) && computers++ < listedComputers)
            : !text || label.toLowerCase().includes(text) || center.name.toLowerCase().includes(text));
        if (scopeOf(child) && listed) options.push({ value: child.key, label });
        walk(child);
      }
    };
    walk(center);
    return { group: center.name, options };
  });
  const centers = groups.filter(
    (g) => g.options.length > 1 || !text || g.group.toLowerCase().includes(text) || g.options[0]!.value === keep,
  );
  return [...centers, ...groupOptions(text, keep)];
}

/** The scope and center of a tree key, or null when the tree has no such center, room or computer. */
export function targetOf(model: TreeModel | null, key: string): { scope: Scope; center: number } | null {
  if (key.startsWith('group:')) return groupTarget(model, Number(key.slice(6)));
  const node = model?.byKey.get(key);
  const scope = node && scopeOf(node);
  return node && scope ? { scope, center: centerOf(node).id } : null;
}

/**
 * A saved group as a task's scope; the task belongs to the center the group's filter is
 * within (a task has a center), else to the first center.
 */
function groupTarget(model: TreeModel | null, id: number): { scope: Scope; center: number } | null {
  const group = savedGroups.value.find((g) => g.id === id);
  const first = model?.roots[0];
  if (!group || !first) return null;
  const place = group.filter.within && model?.byKey.get(`${group.filter.within.type}:${group.filter.within.id}`);
  return { scope: { type: 'group', id }, center: place ? centerOf(place).id : first.id };
}

/** A scope by name ("School › Lab 1", a group's name), or its type and id when the tree does not hold it. */
export function scopeName(model: TreeModel | null, scope: Scope | null): string {
  if (!scope) return '';
  if (scope.type === 'group') return savedGroups.value.find((g) => g.id === scope.id)?.name ?? t('power.type.group', { id: scope.id });
  const node = model?.byKey.get(keyOf(scope));
  if (!node) return `${scope.type} ${scope.id}`;
  return node.parent ? `${centerOf(node).name} › ${path(node)}` : node.name;
}
