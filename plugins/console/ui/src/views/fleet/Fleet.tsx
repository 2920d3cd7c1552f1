import { useMemo, useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog';
import { ErrorNote } from '../../components/ErrorNote';
import { StateBadge } from '../../components/StateBadge';
import { fleet, loadTree, patchFleet, setSelection } from '../../fleet/fleet';
import { stateNames } from '../../fleet/states';
import { countStates, parseQuery, shownClients, type TreeNode, visibleRows } from '../../fleet/tree';
import { t } from '../../i18n';
import { useStore } from '../../store';
import { ActionBar } from './Actions';
import { may, useServer } from '../../plugins';
import { CenterForm, NodeDialog, offersNodeMenu } from './NodeDialogs';
import { CsvImport } from './CsvImport';
import { exportFleet } from './export';
import { GroupBar } from './GroupBar';
import { ImageFilter } from './ImageFilter';
import { RunsPanel } from './RunsPanel';
import { TreeList } from './TreeList';

/** The fleet: the scope tree with live states, search, selection, and what to do with the selection. */
export function Fleet() {
  const state = useStore(fleet);
  const info = useServer();
  const { model, states, wakeFailed, macs, selection, collapsed } = state;
  const [menu, setMenu] = useState<TreeNode | null>(null);
  const [addingCenter, setAddingCenter] = useState(false);
  const [importing, setImporting] = useState(false);
  const [imported, setImported] = useState<number | null>(null);
  const query = useMemo(() => parseQuery(state.query, state.filters), [state.query, state.filters]);
  // States change every few seconds: they narrow the rows only while a state or result filter is on.
  const live = query && (query.states.size > 0 || query.result) ? states : undefined;
  const rows = useMemo(() => (model ? visibleRows(model, collapsed, query, macs, live) : []), [model, collapsed, query, macs, live]);
  const matching = useMemo(() => rows.filter((r) => r.type === 'computer').map((r) => r.ip!), [rows]);
  const { filters } = state;
  const toggleState = (name: string) => {
    const next = new Set(filters.states);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    patchFleet({ filters: { ...filters, states: next } });
  };
  const counts = useMemo(() => (model ? countStates(model, states) : new Map()), [model, states]);
  const selected = useMemo(() => [...selection], [selection]);

  const toggle = (node: TreeNode) => {
    const next = new Set(collapsed);
    if (next.has(node.key)) next.delete(node.key);
    else next.add(node.key);
    patchFleet({ collapsed: next });
  };
  const select = (node: TreeNode, on: boolean) => {
    const next = new Set(selection);
    for (const ip of shownClients(node, rows, !!query)) {
      if (on) next.add(ip);
      else next.delete(ip);
    }
    setSelection(next);
  };

  return (
    <div class="fleet">
      <div class="fleet-bar">
        <label class="search">
          <span class="sr-only">{t('fleet.search')}</span>
          <input
            type="search"
            placeholder={t('fleet.search')}
            value={state.query}
            onInput={(e) => patchFleet({ query: e.currentTarget.value })}
            aria-describedby="match-count"
          />
        </label>
        <span id="match-count" class="hint" aria-live="polite">
          {query ? t('fleet.matches', { count: matching.length }) : t('fleet.clients', { count: model?.byIp.size ?? 0 })}
        </span>
        <span class="live" data-live={state.live}>
          {state.live === 'events' ? t('fleet.liveEvents') : t('fleet.livePoll')}
        </span>
        {may(info, 'POST /center/add') && (
          <button type="button" onClick={() => setAddingCenter(true)}>
            {t('fleet.addCenter')}
          </button>
        )}
        {may(info, 'POST /client/import') && (
          <button type="button" onClick={() => setImporting(true)}>
            {t('csvImport.title')}
          </button>
        )}
      </div>
      <div class="filters">
        <ul class="legend" aria-label={t('fleet.legend')}>
          {stateNames.map((name) => (
            <li key={name}>
              <button
                type="button"
                class="state-filter"
                aria-pressed={filters.states.has(name)}
                title={t('fleet.filterState')}
                onClick={() => toggleState(name)}
              >
                <StateBadge state={name} />
              </button>
            </li>
          ))}
        </ul>
        <label class="result-filter">
          {t('fleet.lastResult')}{' '}
          <select value={filters.result} onInput={(e) => patchFleet({ filters: { ...filters, result: e.currentTarget.value } })}>
            <option value="">{t('fleet.anyResult')}</option>
            <option value="success">{t('result.success')}</option>
            <option value="failure">{t('result.failure')}</option>
          </select>
        </label>
        <ImageFilter />
        <GroupBar />
        {filters.within && model?.byKey.get(filters.within) && (
          <button type="button" class="within" onClick={() => patchFleet({ filters: { ...filters, within: undefined } })}>
            {t('fleet.within', { name: model.byKey.get(filters.within)!.name })} ✕
          </button>
        )}
        {filters.only && (
          <button type="button" class="within only" onClick={() => patchFleet({ filters: { ...filters, only: undefined } })}>
            {filters.only.label} ✕
          </button>
        )}
        {query && matching.length > 0 && (
          <button type="button" onClick={() => setSelection(new Set([...selection, ...matching]))}>
            {t('fleet.selectMatches', { count: matching.length })}
          </button>
        )}
        <button type="button" onClick={() => exportFleet(query ? matching : [...(model?.byIp.keys() ?? [])], model, states, macs)}>
          {t('fleet.exportCsv')}
        </button>
      </div>
      <ErrorNote error={state.error ? new Error(state.error) : null} />
      <div class="selection-bar">
        <span aria-live="polite" class="selected-count">
          {t('fleet.selected', { count: selected.length })}
        </span>
        {selected.length > 0 && (
          <button type="button" class="link" onClick={() => setSelection(new Set())}>
            {t('fleet.clearSelection')}
          </button>
        )}
      </div>
      {imported !== null && (
        <p role="status" class="saved import-result">
          {t('csvImport.added', { count: imported })}
        </p>
      )}
      <ActionBar clients={selected} />
      {model ? (
        <TreeList
          rows={rows}
          states={states}
          wakeFailed={wakeFailed}
          macs={macs}
          counts={counts}
          selection={selection}
          collapsed={collapsed}
          filtered={!!query}
          onToggle={toggle}
          onSelect={select}
          onMenu={setMenu}
          offersMenu={(node) => offersNodeMenu(info, node)}
        />
      ) : (
        <p class="loading">{t('loading')}</p>
      )}
      <RunsPanel />
      {menu && <NodeDialog node={menu} onClose={() => setMenu(null)} />}
      {importing && (
        <Dialog title={t('csvImport.title')} onClose={() => setImporting(false)} wide>
          <CsvImport
            done={(added) => {
              setImporting(false);
              setImported(added);
            }}
          />
        </Dialog>
      )}
      {addingCenter && (
        <Dialog title={t('fleet.addCenter')} onClose={() => setAddingCenter(false)}>
          <CenterForm
            done={async () => {
              await loadTree();
              setAddingCenter(false);
            }}
          />
        </Dialog>
      )}
    </div>
  );
}
