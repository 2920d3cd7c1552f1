import { useState } from 'preact/hooks';
import { fleet } from '../fleet/fleet';
import type { TreeNode } from '../fleet/tree';
import { t } from '../i18n';
import { problemSentence } from '../sentences';
import { useStore } from '../store';

let nextId = 0;

/** Every room beneath a node (rooms may sit in room folders). */
function roomsOf(node: TreeNode): TreeNode[] {
  return node.children.flatMap((child) => (child.type === 'room' ? [child] : child.type === 'folder' ? roomsOf(child) : []));
}

/**
 * Centers and rooms picked by name from the fleet's tree (what a user or a token is limited
 * to): a center ticked holds all its rooms; a filter narrows a long list. The API's refusal of
 * `centers` or `rooms` shows under it.
 */
export function ScopePicker(props: {
  legend: string;
  centers: number[];
  rooms: number[];
  onChange(centers: number[], rooms: number[]): void;
  error?: { field?: string; message: string } | null;
  hint?: string;
}) {
  const { model } = useStore(fleet);
  const [filter, setFilter] = useState('');
  const [id] = useState(() => `scope-${++nextId}`);
  const text = filter.trim().toLowerCase();
  const centers = new Set(props.centers);
  const rooms = new Set(props.rooms);
  const toggle = (set: Set<number>, value: number, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    return [...next].sort((a, b) => a - b);
  };
  const problem = props.error && (props.error.field === 'centers' || props.error.field === 'rooms') ? props.error : null;
  return (
    <fieldset class="scope-picker" aria-describedby={problem ? `${id}-error` : undefined}>
      <legend>{props.legend}</legend>
      {props.hint && <p class="hint">{props.hint}</p>}
      <label class="scope-filter">
        <span>{t('scope.filter')}</span>
        <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </label>
      <ul class="scope-list">
        {(model?.roots ?? []).map((center) => {
          const shown = roomsOf(center).filter(
            (room) => !text || room.name.toLowerCase().includes(text) || center.name.toLowerCase().includes(text),
          );
          if (text && shown.length === 0) return null;
          const whole = centers.has(center.id);
          return (
            <li key={center.key} data-center={center.name}>
              <label class="checkbox">
                <input
                  type="checkbox"
                  checked={whole}
                  onChange={(e) => props.onChange(toggle(centers, center.id, e.currentTarget.checked), props.rooms)}
                />
                {t('scope.wholeCenter', { name: center.name })}
              </label>
              {shown.length > 0 && (
                <ul>
                  {shown.map((room) => (
                    <li key={room.key} data-room={room.name}>
                      <label class="checkbox">
                        <input
                          type="checkbox"
                          checked={whole || rooms.has(room.id)}
                          disabled={whole}
                          onChange={(e) => props.onChange(props.centers, toggle(rooms, room.id, e.currentTarget.checked))}
                        />
                        {room.name}
                      </label>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
      {problem && (
        <small class="error" id={`${id}-error`} role="alert">
          {problemSentence(problem, props.legend)}
        </small>
      )}
    </fieldset>
  );
}

/** Centers and rooms by name, as a list shows a scope: "School; Lab 1 (Annex)"; the whole fleet when none. */
export function scopeNames(model: { byKey: Map<string, TreeNode> } | null, centers: number[], rooms: number[], none: string): string {
  if (centers.length + rooms.length === 0) return none;
  const center = (id: number) => model?.byKey.get(`center:${id}`)?.name ?? `#${id}`;
  const room = (id: number) => {
    const node = model?.byKey.get(`room:${id}`);
    if (!node) return `#${id}`;
    let at: TreeNode | undefined = node.parent;
    while (at && at.type !== 'center') at = at.parent;
    return at ? `${node.name} (${at.name})` : node.name;
  };
  return [...centers.map(center), ...rooms.map(room)].join('; ');
}
