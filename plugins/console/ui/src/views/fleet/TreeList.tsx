import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { StateBadge } from '../../components/StateBadge';
import type { Counts, TreeNode } from '../../fleet/tree';
import { t } from '../../i18n';
import { href } from '../../router';
import type { ClientListing } from '../../types';
import { colonMac } from '../../format';

export const rowHeight = 30;
const overscan = 10;

export interface TreeListProps {
  rows: TreeNode[];
  states: Map<string, ClientListing>;
  /** Clients that did not wake, with why. */
  wakeFailed: Map<string, string>;
  macs: Map<string, string>;
  counts: Map<string, Counts>;
  selection: Set<string>;
  collapsed: Set<string>;
  filtered: boolean;
  onToggle(node: TreeNode): void;
  onSelect(node: TreeNode, selected: boolean): void;
  onMenu(node: TreeNode): void;
  /** Whether a node's menu would offer anything the caller may do. */
  offersMenu(node: TreeNode): boolean;
}

/**
 * The scope tree as a flat list that draws only the rows in view (plus a few), so 10,000
 * clients cost what 40 do. Rows have one fixed height; the list keeps the full height so the
 * scroll bar tells where one is.
 */
export function TreeList(props: TreeListProps) {
  const scroller = useRef<HTMLElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  useLayoutEffect(() => {
    const element = scroller.current!;
    setHeight(element.clientHeight);
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // A shorter list (a filter) must not leave the view scrolled past its end.
  useEffect(() => {
    const element = scroller.current!;
    if (element.scrollTop > props.rows.length * rowHeight) element.scrollTop = 0;
  }, [props.rows.length]);

  // The scroll event that follows a shorter list comes a frame later: until then the rows are
  // drawn from the top the list can still have, never from past its end (an empty view).
  const top = Math.min(scrollTop, Math.max(0, props.rows.length * rowHeight - height));
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(props.rows.length, Math.ceil((top + height) / rowHeight) + overscan);
  const shown = props.rows.slice(first, last);

  // The keyboard moves along the rows as along a list: the arrows from a row's checkbox to
  // the one above or below (scrolling it into view, drawn or not yet), Home and End to the
  // ends, Left and Right fold and unfold a center, room or folder. Space ticks, as always.
  const [focusAt, setFocusAt] = useState<number | null>(null);
  useEffect(() => {
    if (focusAt === null) return;
    const box = scroller.current?.querySelector<HTMLInputElement>(`li[data-index="${focusAt}"] input[type=checkbox]`);
    if (box) {
      box.focus();
      setFocusAt(null);
    }
  });
  const onKeyDown = (e: KeyboardEvent) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('li[data-index]');
    if (!row || (e.target as HTMLElement).tagName !== 'INPUT') return;
    const at = Number(row.dataset.index);
    const node = props.rows[at]!;
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: props.rows.length - 1 }[e.key];
    if (to !== undefined) {
      e.preventDefault();
      const target = Math.max(0, Math.min(props.rows.length - 1, to));
      const element = scroller.current!;
      if (target * rowHeight < element.scrollTop) element.scrollTop = target * rowHeight;
      else if ((target + 1) * rowHeight > element.scrollTop + element.clientHeight)
        element.scrollTop = (target + 1) * rowHeight - element.clientHeight;
      setFocusAt(target);
    } else if ((e.key === 'ArrowLeft' || e.key === 'ArrowRight') && node.children.length > 0 && !props.filtered) {
      const open = !props.collapsed.has(node.key);
      if (open === (e.key === 'ArrowLeft')) {
        e.preventDefault();
        props.onToggle(node);
      }
    }
  };

  return (
    <section
      class="tree"
      ref={scroller}
      onKeyDown={onKeyDown}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      aria-label={t('fleet.tree')}
      data-rows={props.rows.length}
    >
      <ul style={{ height: `${props.rows.length * rowHeight}px` }} aria-label={t('fleet.tree')}>
        {shown.map((node, i) => (
          <Row key={node.key} node={node} index={first + i} top={(first + i) * rowHeight} {...props} />
        ))}
      </ul>
      {props.rows.length === 0 && <p class="empty">{props.filtered ? t('fleet.noMatch') : t('fleet.empty')}</p>}
    </section>
  );
}

function Row(props: TreeListProps & { node: TreeNode; index: number; top: number }) {
  const { node, selection } = props;
  const style = { transform: `translateY(${props.top}px)`, paddingLeft: `${0.5 + node.depth * 1.25}rem` };
  if (node.type === 'computer') {
    const ip = node.ip!;
    const listing = props.states.get(ip);
    const mac = props.macs.get(ip);
    // Shown while the client is still not up: off, or woken again.
    const why = !listing || listing.state === 'WOL_SENT' ? props.wakeFailed.get(ip) : undefined;
    return (
      <li class="row computer" style={style} data-ip={ip} data-index={props.index}>
        <span class="twisty" />
        <input
          type="checkbox"
          checked={selection.has(ip)}
          aria-label={t('fleet.selectClient', { name: node.name })}
          onChange={(e) => props.onSelect(node, e.currentTarget.checked)}
        />
        <a class="name" href={href('client', ip)}>
          {node.name}
        </a>
        <span class="ip">{ip}</span>
        {mac && <span class="mac">{colonMac(mac)}</span>}
        <StateBadge state={listing?.state} />
        {why !== undefined && (
          <span class="wake-failed" title={why}>
            {t('fleet.wakeFailed')}
          </span>
        )}
        {listing?.last_cmd.result && listing.last_cmd.result !== 'unknown' && listing.state !== 'BSY' && (
          <span class={`result result-${listing.last_cmd.result}`}>{t(`result.${listing.last_cmd.result}` as 'result.success')}</span>
        )}
      </li>
    );
  }
  const beneath = node.clients;
  const chosen = beneath.reduce((n, ip) => n + (selection.has(ip) ? 1 : 0), 0);
  const counts = props.counts.get(node.key);
  const open = props.filtered || !props.collapsed.has(node.key);
  return (
    <li class={`row group ${node.type}`} style={style} data-key={node.key} data-index={props.index}>
      <button
        type="button"
        class="twisty"
        aria-expanded={open}
        aria-label={t(open ? 'fleet.collapse' : 'fleet.expand', { name: node.name })}
        disabled={props.filtered || node.children.length === 0}
        onClick={() => props.onToggle(node)}
      >
        {node.children.length === 0 ? '' : open ? '▾' : '▸'}
      </button>
      <input
        type="checkbox"
        checked={beneath.length > 0 && chosen === beneath.length}
        indeterminate={chosen > 0 && chosen < beneath.length}
        disabled={beneath.length === 0}
        aria-label={t('fleet.selectGroup', { name: node.name })}
        onChange={(e) => props.onSelect(node, e.currentTarget.checked)}
      />
      <span class="name">{node.name}</span>
      <span class="kind">{t(`kind.${node.type}`)}</span>
      {counts && (
        <span class="counts" title={t('fleet.countsTitle')}>
          {t('fleet.counts', { on: counts.on, total: counts.total })}
          {counts.busy > 0 && ` · ${t('fleet.busyCount', { busy: counts.busy })}`}
        </span>
      )}
      {props.offersMenu(node) && (
        <button type="button" class="menu" aria-label={t('fleet.menu', { name: node.name })} onClick={() => props.onMenu(node)}>
          ⋯
        </button>
      )}
    </li>
  );
}
