// The enrol plugin's view in the web console: "New PCs". The console imports this module and
// calls its default export with an element to draw into and { api, lang }; the function it
// returns is called when the view is closed. It lists the discovered PCs with their hardware,
// and puts the ones selected in a room (a name pattern, addresses, a mode, a restore after),
// showing first what they would be called; it forgets PCs, and confirms PCs found again.
import { type Lang, type Words, words } from './words';

type Api = <T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<T>;

interface Component {
  type: string;
  description: string;
}

interface DiscoveredPc {
  mac: string;
  ip: string;
  network: string;
  state: 'booted' | 'discovered';
  connected: boolean;
  first_seen: string;
  discovered_at: string | null;
  serial_number: string;
  model: string;
  hardware: Component[];
  disks: { disk: number; size: number }[];
  moved: { ip: string; name: string } | null;
}

interface Planned {
  mac: string;
  ip: string;
  name: string;
}

interface ScopeNode {
  type: string;
  id: number;
  name: string;
  scope?: ScopeNode[];
}

/** How often the list is read again while the view is open. */
const pollMs = 5000;

/** An element with attributes and children; `on*` attributes are listeners. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, unknown> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === false || value === null) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value as EventListener);
    else if (key in element && key !== 'list') (element as unknown as Record<string, unknown>)[key] = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/** 512110190592 -> "477 GiB". */
function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n >= 10 || i === 0 ? Math.round(n) : n.toFixed(1)} ${units[i]}`;
}

const first = (pc: DiscoveredPc, type: string) => pc.hardware.find((c) => c.type === type)?.description ?? '';

/** The rooms of GET /scopes, each "Center / Room", in tree order. */
function roomsOf(nodes: ScopeNode[], path: string[] = []): { id: number; label: string }[] {
  return nodes.flatMap((node) => {
    const here = [...path, node.name];
    if (node.type === 'room') return [{ id: node.id, label: here.join(' / ') }];
    return node.type === 'computer' ? [] : roomsOf(node.scope ?? [], here);
  });
}

export default function mount(element: HTMLElement, context: { api: Api; lang: string }): () => void {
  const text: Words = words[(context.lang as Lang) in words ? (context.lang as Lang) : 'en'];
  const { api } = context;
  const selected = new Set<string>();
  const open = new Set<string>();
  let pcs: DiscoveredPc[] = [];
  let stopped = false;

  const status = h('p', { role: 'status', class: 'hint' });
  const error = h('p', { class: 'error-note', role: 'alert', hidden: true });
  const list = h('div', { class: 'table-scroll' });
  const preview = h('div');

  const say = (message: string) => {
    status.textContent = message;
  };
  const fail = (reason: unknown) => {
    const { message, field } = reason as { message?: string; field?: string };
    error.hidden = false;
    error.textContent = field ? text.fieldProblem(field, message ?? '') : (message ?? String(reason));
  };
  const clearError = () => {
    error.hidden = true;
    error.textContent = '';
  };

  // The assignment form.
  const room = h('select', { name: 'room', id: 'enrol-room' }, h('option', { value: '' }, text.pickRoom));
  const names = h('input', { name: 'names', id: 'enrol-names', value: 'pc{nn}', size: 24 });
  const start = h('input', { name: 'start', id: 'enrol-start', type: 'number', min: 0, placeholder: '1', size: 6 });
  const order = h(
    'select',
    { name: 'order', id: 'enrol-order' },
    h('option', { value: 'arrival' }, text.byArrival),
    h('option', { value: 'mac' }, text.byMac),
  );
  const addresses = h(
    'select',
    { name: 'addresses', id: 'enrol-addresses' },
    h('option', { value: 'current' }, text.currentAddresses),
    h('option', { value: 'from' }, text.addressesFrom),
  );
  const firstAddress = h('input', { name: 'first', id: 'enrol-first', placeholder: '10.1.3.20', size: 15, hidden: true });
  addresses.addEventListener('change', () => {
    firstAddress.hidden = addresses.value !== 'from';
  });
  const mode = h('select', { name: 'mode', id: 'enrol-mode' }, h('option', { value: '' }, text.defaultMode));
  const image = h('select', { name: 'image', id: 'enrol-image' }, h('option', { value: '' }, text.noRestore));
  const disk = h('input', { name: 'disk', id: 'enrol-disk', type: 'number', min: 1, value: '1', size: 4 });
  const partition = h('input', { name: 'partition', id: 'enrol-partition', type: 'number', min: 1, value: '1', size: 4 });
  const restoreType = h(
    'select',
    { name: 'type', id: 'enrol-type' },
    ...['UNICAST', 'UNICAST-DIRECT', 'TIPTORRENT'].map((t) => h('option', { value: t }, t)),
  );
  const restoreFields = h(
    'span',
    { class: 'row-fields' },
    field(text.disk, disk),
    field(text.partition, partition),
    field(text.restoreType, restoreType),
  );
  // Shown only with an image picked; by its style (CSSOM, which the page's CSP allows): the
  // console's .row-fields would show a [hidden] one.
  restoreFields.style.display = 'none';
  image.addEventListener('change', () => {
    restoreFields.style.display = image.value === '' ? 'none' : '';
  });

  function field(label: string, control: HTMLElement): HTMLElement {
    return h('span', { class: 'field' }, h('label', { htmlFor: control.id }, label), control);
  }

  const assignBody = (dryRun: boolean) => ({
    macs: [...selected],
    room: Number(room.value),
    names: names.value,
    order: order.value,
    ...(start.value === '' ? {} : { start: Number(start.value) }),
    ...(addresses.value === 'from' ? { addresses: firstAddress.value.trim() } : { addresses: 'current' }),
    ...(mode.value ? { mode: mode.value } : {}),
    ...(image.value
      ? { restore: { id: Number(image.value), disk: Number(disk.value), partition: Number(partition.value), type: restoreType.value } }
      : {}),
    dry_run: dryRun,
  });

  const assign = async (dryRun: boolean) => {
    clearError();
    preview.textContent = '';
    if (selected.size === 0) return fail({ message: text.selectFirst });
    if (!room.value) return fail({ message: text.pickRoomFirst });
    try {
      const answer = await api<{ clients: Planned[]; warnings?: string[]; restore_waiting?: string[] }>(
        'POST',
        '/discovered/assign',
        assignBody(dryRun),
      );
      preview.append(plannedTable(answer.clients, dryRun));
      for (const warning of answer.warnings ?? []) preview.append(h('p', { class: 'warning' }, warning));
      if (dryRun) return;
      say(text.assigned(answer.clients.length, room.selectedOptions[0]?.textContent ?? ''));
      if (answer.restore_waiting) preview.append(h('p', { class: 'hint' }, text.restoreWaits(answer.restore_waiting.length)));
      for (const pc of answer.clients) selected.delete(pc.mac);
      await load();
    } catch (reason) {
      fail(reason);
    }
  };

  const plannedTable = (clients: Planned[], dryRun: boolean) =>
    h(
      'table',
      { class: 'grid', 'data-enrol': dryRun ? 'preview' : 'assigned' },
      h('caption', {}, dryRun ? text.previewCaption : text.assignedCaption),
      h('thead', {}, h('tr', {}, ...[text.mac, text.name, text.address].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...clients.map((c) => h('tr', { 'data-mac': c.mac }, h('td', {}, c.mac), h('td', {}, c.name), h('td', {}, c.ip)))),
    );

  const forget = async () => {
    clearError();
    if (selected.size === 0) return fail({ message: text.selectFirst });
    try {
      const { forgotten } = await api<{ forgotten: string[] }>('POST', '/discovered/forget', {
        macs: [...selected],
        poweroff: poweroff.checked,
      });
      for (const mac of forgotten) selected.delete(mac);
      say(text.forgotten(forgotten.length));
      await load();
    } catch (reason) {
      fail(reason);
    }
  };
  const poweroff = h('input', { type: 'checkbox', id: 'enrol-poweroff' });

  const confirm = async (mac: string) => {
    clearError();
    try {
      const { clients } = await api<{ clients: Planned[] }>('POST', '/discovered/confirm', { macs: [mac] });
      say(text.confirmed(clients[0]?.name ?? mac));
      await load();
    } catch (reason) {
      fail(reason);
    }
  };

  const draw = () => {
    list.textContent = '';
    if (pcs.length === 0) {
      list.append(h('p', { class: 'empty', 'data-enrol': 'none' }, text.none));
      return;
    }
    const all = h('input', {
      type: 'checkbox',
      'aria-label': text.selectAll,
      checked: pcs.every((pc) => selected.has(pc.mac)),
      onChange: (event: Event) => {
        for (const pc of pcs) (event.target as HTMLInputElement).checked ? selected.add(pc.mac) : selected.delete(pc.mac);
        draw();
      },
    });
    const header = [text.mac, text.address, text.model, text.cpu, text.memory, text.disks, text.serial, text.state, text.firstSeen];
    const rows = pcs.flatMap((pc) => {
      const memory = pc.hardware.filter((c) => c.type === 'mem').map((c) => c.description);
      const row = h(
        'tr',
        { 'data-mac': pc.mac, 'data-state': pc.state },
        h(
          'td',
          {},
          h('input', {
            type: 'checkbox',
            'aria-label': text.selectPc(pc.mac),
            checked: selected.has(pc.mac),
            onChange: (event: Event) => {
              (event.target as HTMLInputElement).checked ? selected.add(pc.mac) : selected.delete(pc.mac);
              all.checked = pcs.every((p) => selected.has(p.mac));
            },
          }),
        ),
        h(
          'td',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              'aria-expanded': String(open.has(pc.mac)),
              onClick: () => {
                open.has(pc.mac) ? open.delete(pc.mac) : open.add(pc.mac);
                draw();
              },
            },
            pc.mac,
          ),
        ),
        h('td', {}, pc.ip),
        h('td', {}, pc.model || '—'),
        h('td', {}, first(pc, 'cpu') || '—'),
        h('td', {}, memory.length > 0 ? memory.join(', ') : '—'),
        h('td', {}, pc.disks.length > 0 ? pc.disks.map((d) => bytes(d.size)).join(', ') : '—'),
        h('td', {}, pc.serial_number || '—'),
        h(
          'td',
          {},
          pc.state === 'discovered' ? text.discovered : text.booted,
          pc.connected ? ' ' : null,
          pc.connected ? h('span', { class: 'tag' }, text.connected) : null,
          pc.moved
            ? h(
                'div',
                { class: 'warning', 'data-moved': pc.moved.ip },
                text.moved(pc.moved.name, pc.moved.ip),
                ' ',
                h('button', { type: 'button', onClick: () => void confirm(pc.mac) }, text.confirm),
              )
            : null,
        ),
        h('td', {}, new Date(pc.first_seen).toLocaleString(context.lang)),
      );
      if (!open.has(pc.mac)) return [row];
      const details = h(
        'tr',
        { 'data-details': pc.mac },
        h(
          'td',
          { colSpan: header.length + 1 },
          pc.hardware.length === 0
            ? text.noHardware
            : h(
                'ul',
                {},
                ...pc.hardware.map((c) => h('li', {}, h('span', { class: 'tag' }, text.types[c.type] ?? c.type), ' ', c.description)),
              ),
        ),
      );
      return [row, details];
    });
    list.append(
      h(
        'table',
        { class: 'grid', 'data-enrol': 'discovered' },
        h('caption', {}, text.caption(pcs.length)),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, all), ...header.map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, ...rows),
      ),
    );
  };

  const load = async () => {
    try {
      pcs = (await api<{ discovered: DiscoveredPc[] }>('GET', '/discovered')).discovered;
      for (const mac of [...selected]) if (!pcs.some((pc) => pc.mac === mac)) selected.delete(mac);
      draw();
    } catch (reason) {
      fail(reason);
    }
  };

  // What the form offers: rooms, modes and images, as the server has them.
  const fill = async () => {
    const [scopes, modes, images] = await Promise.all([
      api<{ scope: ScopeNode[] }>('GET', '/scopes').catch(() => ({ scope: [] })),
      api<{ modes: string[] }>('GET', '/mode').catch(() => ({ modes: [] })),
      api<{ images: { id: number; name: string }[] }>('GET', '/images').catch(() => ({ images: [] })),
    ]);
    for (const r of roomsOf(scopes.scope)) room.append(h('option', { value: String(r.id) }, r.label));
    for (const m of modes.modes) mode.append(h('option', { value: m }, m));
    for (const i of images.images) image.append(h('option', { value: String(i.id) }, i.name));
  };

  const form = h(
    'form',
    { class: 'enrol-assign', onSubmit: (event: Event) => event.preventDefault() },
    h('h2', {}, text.assignTitle),
    h('p', { class: 'hint' }, text.patternHint),
    h(
      'div',
      { class: 'form-grid' },
      field(text.room, room),
      field(text.names, names),
      field(text.start, start),
      field(text.order, order),
      h('span', { class: 'field' }, h('label', { htmlFor: addresses.id }, text.addresses), addresses, firstAddress),
      field(text.mode, mode),
      field(text.restore, image),
    ),
    restoreFields,
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'button', onClick: () => void assign(true) }, text.preview),
      h('button', { type: 'button', class: 'primary', onClick: () => void assign(false) }, text.assign),
    ),
  );

  const forgetBar = h(
    'div',
    { class: 'buttons' },
    h('button', { type: 'button', class: 'danger-outline', onClick: () => void forget() }, text.forget),
    h('label', { class: 'checkbox', htmlFor: poweroff.id }, poweroff, text.poweroffFirst),
  );

  element.append(h('p', { class: 'hint' }, text.intro), status, error, list, forgetBar, form, preview);
  void fill();
  void load();
  const poll = async () => {
    if (stopped) return;
    await load();
    if (!stopped) timer = setTimeout(() => void poll(), pollMs);
  };
  let timer = setTimeout(() => void poll(), pollMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
    element.textContent = '';
  };
}
