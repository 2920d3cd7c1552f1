import { BulkRooms } from './BulkRooms';
import { useState } from 'preact/hooks';
import { get, post } from '../../api';
import { Dialog } from '../../components/Dialog';
import { ErrorNote } from '../../components/ErrorNote';
import { Checkbox, Field } from '../../components/Field';
import { loadTree } from '../../fleet/fleet';
import type { TreeNode } from '../../fleet/tree';
import { t } from '../../i18n';
import { enabled, may, useServer } from '../../plugins';
import type { VersionInfo } from '../../types';
import { useAsync } from '../../useAsync';
import { RoomDhcpdImport } from './RoomDhcpdImport';

/** Folder ids with the 0x10000 marker are computer folders (they hold clients); the others hold rooms. */
export const isComputerFolder = (node: TreeNode) => node.type === 'folder' && node.id >= 0x10000;
const roomOf = (node: TreeNode): TreeNode | undefined => (node.type === 'room' ? node : node.parent && roomOf(node.parent));
const centerOf = (node: TreeNode): TreeNode | undefined => (node.type === 'center' ? node : node.parent && centerOf(node.parent));

type Panel = 'menu' | 'edit' | 'add-room' | 'add-rooms' | 'add-folder' | 'add-client' | 'import' | 'delete';

/** What can be done to a center, room or folder of the tree: edit, add beneath, import, delete. */
export function NodeDialog(props: { node: TreeNode; onClose(): void }) {
  const { node } = props;
  const [panel, setPanel] = useState<Panel>('menu');
  const holdsClients = node.type === 'room' || isComputerFolder(node);
  const holdsRooms = node.type === 'center' || (node.type === 'folder' && !isComputerFolder(node));
  const done = async () => {
    await loadTree();
    props.onClose();
  };
  const title = `${t(`kind.${node.type}`)} ${node.name}`;
  const info = useServer();
  const choices = (
    [
      ['edit', node.type === 'folder' ? t('node.rename') : t('node.edit')],
      ...(holdsRooms
        ? ([
            ['add-room', t('node.addRoom')],
            ['add-rooms', t('bulkRooms.menu')],
          ] as [Panel, string][])
        : []),
      ['add-folder', t('node.addFolder')],
      ...(holdsClients
        ? ([
            ['add-client', t('node.addClient')],
            ['import', t('node.import')],
          ] as [Panel, string][])
        : []),
      ['delete', t('node.delete')],
    ] as [Panel, string][]
  ).filter(([key]) => may(info, nodeRoute(node, key)));
  return (
    <Dialog title={title} onClose={props.onClose} wide={panel === 'import' || panel === 'add-rooms'}>
      {panel === 'menu' ? (
        <ul class="menu-list">
          {choices.map(([key, label]) => (
            <li key={key}>
              <button type="button" class={key === 'delete' ? 'danger-outline' : ''} onClick={() => setPanel(key)}>
                {label}
              </button>
            </li>
          ))}
        </ul>
      ) : panel === 'edit' ? (
        node.type === 'center' ? (
          <CenterForm id={node.id} done={done} />
        ) : node.type === 'room' ? (
          <RoomForm center={centerOf(node)!} id={node.id} done={done} />
        ) : (
          <RenameFolder node={node} done={done} />
        )
      ) : panel === 'add-room' ? (
        <RoomForm center={centerOf(node)!} folder={node.type === 'folder' ? node.id : 0} done={done} />
      ) : panel === 'add-rooms' ? (
        <BulkRooms
          center={centerOf(node)!.id}
          folder={node.type === 'folder' ? node.id : 0}
          done={() => {
            void loadTree();
          }}
        />
      ) : panel === 'add-folder' ? (
        <AddFolder parent={node} done={done} />
      ) : panel === 'add-client' ? (
        <ClientAddForm room={roomOf(node)!.id} folder={node.type === 'folder' ? node.id : 0} done={done} />
      ) : panel === 'import' ? (
        <RoomDhcpdImport room={roomOf(node)!.id} folder={node.type === 'folder' ? node.id : 0} done={done} />
      ) : (
        <DeleteNode node={node} done={done} />
      )}
    </Dialog>
  );
}

/** The route a choice of the node menu sends, which the caller must be allowed. */
export function nodeRoute(node: TreeNode, panel: Panel): string {
  const kind = node.type === 'center' ? 'center' : node.type === 'room' ? 'room' : 'folder';
  switch (panel) {
    case 'add-room':
    case 'add-rooms':
      return 'POST /room/add';
    case 'add-folder':
      return 'POST /folder/add';
    case 'add-client':
      return 'POST /client/add';
    case 'import':
      return 'POST /client/import-dhcpd';
    case 'delete':
      return `POST /${kind}/delete`;
    default:
      return `POST /${kind}/update`;
  }
}

/** Whether the caller may do anything from a node's menu: otherwise the tree offers no menu. */
export function offersNodeMenu(info: VersionInfo | null, node: TreeNode): boolean {
  return (['edit', 'add-room', 'add-folder', 'add-client', 'delete'] as Panel[]).some((panel) => may(info, nodeRoute(node, panel)));
}

/** The submit half of the inventory forms: sends, then reloads the tree; a refusal shows next to its field. */
function useSave(done: () => Promise<void> | void) {
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (send: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await send();
      await done();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, save };
}

const unnamed = (error: { field?: string } | null, fields: string[]) => (error && !fields.includes(error.field ?? '') ? error : null);

export function CenterForm(props: { id?: number; done(): Promise<void> | void }) {
  const info = useAsync(
    () =>
      props.id ? get<{ name: string; comment: string }>('/center/info', { id: props.id }) : Promise.resolve({ name: '', comment: '' }),
    [props.id],
  );
  const [fields, setFields] = useState<{ name?: string; comment?: string }>({});
  const { error, busy, save } = useSave(props.done);
  const name = fields.name ?? info.value?.name ?? '';
  const comment = fields.comment ?? info.value?.comment ?? '';
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => post(props.id ? '/center/update' : '/center/add', { ...(props.id ? { id: props.id } : {}), name, comment }));
      }}
    >
      {/* The fields wait for the record: what is typed before it arrives would be mixed with it. */}
      <fieldset class="bare" disabled={info.loading}>
        <Field label={t('field.name')} name="name" value={name} onInput={(v) => setFields({ ...fields, name: v })} error={error} required />
        <Field
          label={t('field.comment')}
          name="comment"
          value={comment}
          onInput={(v) => setFields({ ...fields, comment: v })}
          error={error}
        />
      </fieldset>
      <ErrorNote error={info.error ?? unnamed(error, ['name', 'comment'])} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {t('save')}
        </button>
      </div>
    </form>
  );
}

const roomKeys = ['name', 'netmask', 'gateway', 'location', 'ntp', 'dns'] as const;
type RoomFields = Record<(typeof roomKeys)[number], string> & { remote: boolean; folder_id: string };

function RoomForm(props: { center: TreeNode; id?: number; folder?: number; done(): Promise<void> }) {
  const info = useAsync(
    () => (props.id ? get<Partial<RoomFields> & { folder_id?: number }>('/room/info', { id: props.id }) : Promise.resolve({})),
    [props.id],
  );
  const [fields, setFields] = useState<Partial<RoomFields>>({});
  const { error, busy, save } = useSave(props.done);
  const loaded = (info.value ?? {}) as Partial<RoomFields> & { folder_id?: number };
  const value = (key: (typeof roomKeys)[number]) =>
    fields[key] ?? String(loaded[key] ?? (key === 'netmask' && !props.id ? '255.255.255.0' : ''));
  const folder = fields.folder_id ?? String(loaded.folder_id ?? props.folder ?? 0);
  const remote = fields.remote ?? !!loaded.remote;
  const roomFolders = [...props.center.children].filter((n) => n.type === 'folder');
  const labels: Record<(typeof roomKeys)[number], string> = {
    name: t('field.name'),
    netmask: t('field.netmask'),
    gateway: t('field.gateway'),
    location: t('field.location'),
    ntp: t('field.ntp'),
    dns: t('field.dns'),
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const body = { ...Object.fromEntries(roomKeys.map((k) => [k, value(k)])), remote, folder_id: Number(folder) };
        void save(() =>
          post(props.id ? '/room/update' : '/room/add', props.id ? { id: props.id, ...body } : { center: props.center.id, ...body }),
        );
      }}
    >
      {/* The fields wait for the record: what is typed before it arrives would be mixed with it. */}
      <fieldset class="bare" disabled={info.loading}>
        {roomKeys.map((key) => (
          <Field
            key={key}
            label={labels[key]}
            name={key}
            value={value(key)}
            onInput={(v) => setFields({ ...fields, [key]: v })}
            error={error}
            required={key === 'name' || key === 'netmask'}
          />
        ))}
        <Field
          label={t('kind.folder')}
          name="folder_id"
          value={folder}
          onInput={(v) => setFields({ ...fields, folder_id: v })}
          options={[{ value: '0', label: t('move.noFolder') }, ...roomFolders.map((f) => ({ value: String(f.id), label: f.name }))]}
          error={error}
        />
        <Checkbox label={t('field.remote')} name="remote" checked={remote} onChange={(v) => setFields({ ...fields, remote: v })} />
      </fieldset>
      <ErrorNote error={info.error ?? unnamed(error, [...roomKeys, 'folder_id'])} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {t('save')}
        </button>
      </div>
    </form>
  );
}

function RenameFolder(props: { node: TreeNode; done(): Promise<void> }) {
  const [name, setName] = useState(props.node.name);
  const { error, busy, save } = useSave(props.done);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => post('/folder/update', { id: props.node.id, name }));
      }}
    >
      <Field label={t('field.name')} name="name" value={name} onInput={setName} error={error} required />
      <ErrorNote error={unnamed(error, ['name'])} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {t('save')}
        </button>
      </div>
    </form>
  );
}

function AddFolder(props: { parent: TreeNode; done(): Promise<void> }) {
  const [name, setName] = useState('');
  const { error, busy, save } = useSave(props.done);
  const { parent } = props;
  const body =
    parent.type === 'center'
      ? { center: parent.id }
      : parent.type === 'room'
        ? { room: parent.id }
        : isComputerFolder(parent)
          ? { room: roomOf(parent)!.id, folder_id: parent.id }
          : { center: centerOf(parent)!.id, folder_id: parent.id };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => post('/folder/add', { name, ...body }));
      }}
    >
      <Field label={t('field.name')} name="name" value={name} onInput={setName} error={error} required />
      <ErrorNote error={unnamed(error, ['name'])} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {t('node.addFolder')}
        </button>
      </div>
    </form>
  );
}

export function ClientAddForm(props: { room: number; folder: number; done(): Promise<void> }) {
  const info = useServer();
  const modes = useAsync(() =>
    enabled(info, 'pxe-modes') ? get<{ modes: string[] }>('/mode') : Promise.resolve({ modes: [] as string[] }),
  );
  const [fields, setFields] = useState({ name: '', ip: '', mac: '', boot: '', serial_number: '' });
  const { error, busy, save } = useSave(props.done);
  const set = (key: keyof typeof fields) => (v: string) => setFields({ ...fields, [key]: v });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const { boot, ...rest } = fields;
        void save(() => post('/client/add', { ...rest, ...(boot ? { boot } : {}), room: props.room, folder_id: props.folder }));
      }}
    >
      <Field label={t('field.name')} name="name" value={fields.name} onInput={set('name')} error={error} required />
      <Field label={t('client.ip')} name="ip" value={fields.ip} onInput={set('ip')} error={error} required placeholder="10.0.0.10" />
      <Field
        label={t('client.mac')}
        name="mac"
        value={fields.mac}
        onInput={set('mac')}
        error={error}
        required
        placeholder="00:11:22:33:44:55"
      />
      <Field label={t('client.serial')} name="serial_number" value={fields.serial_number} onInput={set('serial_number')} error={error} />
      {(modes.value?.modes.length ?? 0) > 0 && (
        <Field
          label={t('boot.mode')}
          name="boot"
          value={fields.boot}
          onInput={set('boot')}
          options={[{ value: '', label: t('client.defaultBoot') }, ...modes.value!.modes]}
          error={error}
        />
      )}
      <ErrorNote error={unnamed(error, ['name', 'ip', 'mac', 'serial_number', 'boot'])} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {t('node.addClient')}
        </button>
      </div>
    </form>
  );
}

/** A cascading delete says what goes with it before it runs. */
function DeleteNode(props: { node: TreeNode; done(): Promise<void> }) {
  const { node } = props;
  const { error, busy, save } = useSave(props.done);
  let rooms = 0;
  let folders = 0;
  const walk = (n: TreeNode) => {
    for (const child of n.children) {
      if (child.type === 'room') rooms++;
      if (child.type === 'folder') folders++;
      walk(child);
    }
  };
  walk(node);
  const path = node.type === 'center' ? '/center/delete' : node.type === 'room' ? '/room/delete' : '/folder/delete';
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => post(path, { id: String(node.id) }));
      }}
    >
      <p class="warning">{t('delete.cascade', { name: node.name, rooms, folders, clients: node.clients.length })}</p>
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit" class="danger" disabled={busy}>
          {t('node.delete')}
        </button>
      </div>
    </form>
  );
}
