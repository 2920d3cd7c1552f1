import { humanBytes } from '../../format';
import { useState } from 'preact/hooks';
import { get, post } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { Checkbox, Field } from '../../components/Field';
import { fleet, loadTree, setSelection } from '../../fleet/fleet';
import { addRun, type Watch } from '../../fleet/runs';
import { t } from '../../i18n';
import { enabled, useServer } from '../../plugins';
import type { Image, LiveImage, Outcome, Partition, Repository } from '../../types';
import { useAsync } from '../../useAsync';
import { useAtRisk } from './AtRisk';

export interface FormProps {
  clients: string[];
  /** Called once the request was answered: the dialog closes and the report shows. */
  done(): void;
}

/** The submit half every form shares: sends, records the per-client outcomes, shows a refusal next to its field. */
export function useSubmit(props: FormProps) {
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(title: string, watch: Watch, send: () => Promise<Outcome[] | Relayed>): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      const sent = await send();
      if (Array.isArray(sent)) addRun(title, sent, watch);
      else addRun(title, sent.clients, watch, sent.job, sent.wakeRun);
      props.done();
    } catch (e) {
      setError(e as Error & { field?: string });
    } finally {
      setBusy(false);
    }
  }
  return { error, busy, submit };
}

/** A command relayed to agents: each client's outcome, and the job that follows it (with the jobs plugin). */
interface Relayed {
  clients: Outcome[];
  job?: number;
  /** A wake's run (POST /wol): its job is found afterwards. */
  wakeRun?: number | null;
}

const relayed = (path: string, body: Record<string, unknown>) => post<Relayed>(path, body);

/** Endpoints that answer `{unknown: [ip]}`: every other client is done. */
export const withUnknown = (clients: string[], unknown: string[] = []) =>
  clients.map((addr) => ({ addr, outcome: unknown.includes(addr) ? 'unknown' : 'done' }));

export function Buttons(props: { busy: boolean; label: string; danger?: boolean; disabled?: boolean }) {
  return (
    <div class="buttons">
      <button type="submit" class={props.danger ? 'danger' : 'primary'} disabled={props.busy || props.disabled}>
        {props.label}
      </button>
    </div>
  );
}

/** Power off, reboot, refresh, hardware inventory: nothing to ask but a confirmation for the first two. */
export function SimpleForm(props: FormProps & { path: string; title: string; watch: Watch; confirm?: string }) {
  const { error, busy, submit } = useSubmit(props);
  const risk = useAtRisk(props.confirm ? props.clients : []);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(props.title, props.watch, () => relayed(props.path, { clients: props.clients }));
      }}
    >
      {props.confirm && <p>{props.confirm}</p>}
      {risk.note}
      <ErrorNote error={error} />
      <Buttons busy={busy} label={props.title} danger={!!props.confirm} disabled={!risk.ready} />
    </form>
  );
}

export function WakeForm(props: FormProps) {
  const [type, setType] = useState('broadcast');
  const { error, busy, submit } = useSubmit(props);
  const send = async () => {
    const answer = await post<{ sent: string[]; skipped: Record<string, string[]>; run?: number | null }>('/wol', {
      clients: props.clients,
      type,
    });
    const outcome: Record<string, string> = Object.fromEntries(answer.sent.map((ip) => [ip, 'sent']));
    const words: Record<string, string> = { not_found: 'unknown', connected: 'already_on' };
    for (const [reason, ips] of Object.entries(answer.skipped)) for (const ip of ips) outcome[ip] = words[reason] ?? reason;
    return { clients: props.clients.map((addr) => ({ addr, outcome: outcome[addr] ?? 'unknown' })), wakeRun: answer.run };
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('action.wake'), 'wake', send);
      }}
    >
      <Field
        label={t('wake.type')}
        name="type"
        value={type}
        onInput={setType}
        options={[
          { value: 'broadcast', label: t('wake.broadcast') },
          { value: 'unicast', label: t('wake.unicast') },
        ]}
        error={error}
      />
      <ErrorNote error={error && !error.field ? error : null} />
      <Buttons busy={busy} label={t('action.wake')} />
    </form>
  );
}

export function BootModeForm(props: FormProps) {
  const modes = useAsync(() => get<{ modes: string[] }>('/mode'));
  const [mode, setMode] = useState('');
  const { error, busy, submit } = useSubmit(props);
  const list = modes.value?.modes ?? [];
  const chosen = mode || list[0] || '';
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('action.boot'), 'none', async () =>
          withUnknown(props.clients, (await post<{ unknown: string[] }>('/mode', { clients: props.clients, mode: chosen })).unknown),
        );
      }}
    >
      <ErrorNote error={modes.error} />
      <Field label={t('boot.mode')} name="mode" value={chosen} onInput={setMode} options={list} error={error} />
      <ErrorNote error={error && error.field !== 'mode' ? error : null} />
      <Buttons busy={busy} label={t('action.boot')} disabled={!chosen} />
    </form>
  );
}

export function LiveForm(props: FormProps) {
  const live = useAsync(() => get<{ live: LiveImage[]; default: number }>('/live/list'));
  const [name, setName] = useState('default');
  const { error, busy, submit } = useSubmit(props);
  const options = [{ value: 'default', label: t('live.default') }, ...(live.value?.live ?? []).map((l) => l.directory)];
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('action.live'), 'none', async () =>
          withUnknown(props.clients, (await post<{ unknown: string[] }>('/live/set', { clients: props.clients, name })).unknown),
        );
      }}
    >
      <ErrorNote error={live.error} />
      <Field label={t('live.image')} name="name" value={name} onInput={setName} options={options} error={error} />
      <ErrorNote error={error && error.field !== 'name' ? error : null} />
      <Buttons busy={busy} label={t('action.live')} />
    </form>
  );
}

const partitionTypes = ['LINUX', 'NTFS', 'WINDOWS', 'FAT32', 'EFI', 'CACHE', 'DATA', 'LINUX-SWAP', 'EXTENDED', 'EMPTY'];
const filesystems = ['EXT4', 'NTFS', 'FAT32', 'EXFAT', 'CACHE', 'LINUX-SWAP', 'EMPTY'];

interface SetupRow {
  code: string;
  filesystem: string;
  /** GiB, as people think of partitions; the API takes KiB. */
  size: string;
  format: boolean;
}

export function SetupForm(props: FormProps) {
  const [type, setType] = useState('GPT');
  const [disk, setDisk] = useState('1');
  const [rows, setRows] = useState<SetupRow[]>([
    { code: 'EFI', filesystem: 'FAT32', size: '0.5', format: true },
    { code: 'LINUX', filesystem: 'EXT4', size: '40', format: true },
    { code: 'CACHE', filesystem: 'CACHE', size: '20', format: true },
  ]);
  const [understood, setUnderstood] = useState(false);
  const { error, busy, submit } = useSubmit(props);
  const risk = useAtRisk(props.clients);
  const change = (i: number, patch: Partial<SetupRow>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const kib = (gib: string) => String(Math.round(Number(gib) * 1024 * 1024) || 0);
  const send = () => {
    const cache = rows.find((r) => r.code === 'CACHE');
    return relayed('/setup', {
      clients: props.clients,
      type,
      disk,
      cache: cache ? '1' : '0',
      cache_size: cache ? kib(cache.size) : '0',
      partition_setup: rows.map((r, i) => ({
        partition: String(i + 1),
        code: r.code,
        filesystem: r.filesystem,
        size: kib(r.size),
        format: r.format ? '1' : '0',
      })),
    });
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('action.setup'), 'command', send);
      }}
    >
      <div class="row-fields">
        <Field label={t('setup.disk')} name="disk" value={disk} onInput={setDisk} error={error} />
        <Field label={t('setup.table')} name="type" value={type} onInput={setType} options={['GPT', 'MSDOS']} error={error} />
      </div>
      <table class="grid">
        <caption>{t('setup.partitions')}</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{t('setup.code')}</th>
            <th scope="col">{t('setup.filesystem')}</th>
            <th scope="col">{t('setup.sizeGiB')}</th>
            <th scope="col">{t('setup.format')}</th>
            <th scope="col">
              <span class="sr-only">{t('remove')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              <td>{i + 1}</td>
              <td>
                <select
                  aria-label={t('setup.codeOf', { n: i + 1 })}
                  value={row.code}
                  onChange={(e) => change(i, { code: e.currentTarget.value })}
                >
                  {partitionTypes.map((p) => (
                    <option key={p}>{p}</option>
                  ))}
                </select>
              </td>
              <td>
                <select
                  aria-label={t('setup.filesystemOf', { n: i + 1 })}
                  value={row.filesystem}
                  onChange={(e) => change(i, { filesystem: e.currentTarget.value })}
                >
                  {filesystems.map((f) => (
                    <option key={f}>{f}</option>
                  ))}
                </select>
              </td>
              <td>
                <input
                  aria-label={t('setup.sizeOf', { n: i + 1 })}
                  inputMode="decimal"
                  value={row.size}
                  onInput={(e) => change(i, { size: e.currentTarget.value })}
                />
              </td>
              <td>
                <input
                  type="checkbox"
                  aria-label={t('setup.formatOf', { n: i + 1 })}
                  checked={row.format}
                  onChange={(e) => change(i, { format: e.currentTarget.checked })}
                />
              </td>
              <td>
                <button type="button" class="link" onClick={() => setRows(rows.filter((_, j) => j !== i))}>
                  {t('remove')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={() => setRows([...rows, { code: 'DATA', filesystem: 'EXT4', size: '10', format: true }])}>
        {t('setup.add')}
      </button>
      <Checkbox
        label={t('setup.understood', { count: props.clients.length })}
        name="understood"
        checked={understood}
        onChange={setUnderstood}
      />
      <ErrorNote error={error} />
      {risk.note}
      <Buttons busy={busy} label={t('action.setup')} danger disabled={!understood || rows.length === 0 || !risk.ready} />
    </form>
  );
}

/** Partitions of one client that hold something to image or to start. */
function usePartitions(ip: string) {
  return useAsync(
    async () => (await get<{ partitions: Partition[] }>('/client/setup', { client: [ip] })).partitions.filter((p) => p.partition > 0),
    [ip],
  );
}

export function CreateImageForm(props: FormProps) {
  const ip = props.clients[0]!;
  const partitions = usePartitions(ip);
  const repositories = useAsync(() => get<{ repositories: Repository[] }>('/repositories'));
  // The image goes to the PC's own repository unless another is chosen.
  const own = useAsync(() => get<{ repo_id: number }>('/client/info', { client: [ip] }), [ip]);
  const [choice, setChoice] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [repository, setRepository] = useState('');
  const { error, busy, submit } = useSubmit(props);
  const list = partitions.value ?? [];
  const selected = list.find((p) => `${p.disk}:${p.partition}` === choice) ?? list[0];
  const repos = repositories.value?.repositories ?? [];
  const ownRepo = repos.find((r) => r.id === own.value?.repo_id);
  const repo = repository || String((ownRepo ?? repos[0])?.id ?? '');
  const send = () =>
    relayed('/image/create', {
      clients: [ip],
      disk: String(selected!.disk),
      partition: String(selected!.partition),
      code: String(selected!.code),
      id: '0',
      name,
      description,
      ...(repo ? { repository_id: Number(repo) } : {}),
    });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('image.createOf', { name }), 'command', send);
      }}
    >
      <p>{t('image.from', { ip })}</p>
      <ErrorNote error={partitions.error} />
      <Field
        label={t('image.partition')}
        name="partition"
        value={selected ? `${selected.disk}:${selected.partition}` : ''}
        onInput={setChoice}
        options={list.map((p) => ({
          value: `${p.disk}:${p.partition}`,
          label: `${t('image.diskPartition', { disk: p.disk, partition: p.partition })} ${p.filesystem_name} ${p.os}`,
        }))}
        error={error}
      />
      <Field label={t('image.name')} name="name" value={name} onInput={setName} error={error} required />
      <Field label={t('image.description')} name="description" value={description} onInput={setDescription} error={error} />
      <Field
        label={t('image.repository')}
        name="repository_id"
        value={repo}
        onInput={setRepository}
        options={repos.map((r) => ({ value: String(r.id), label: `${r.name} (${r.ip})` }))}
        error={error}
      />
      <ErrorNote error={error && !['name', 'description', 'repository_id', 'partition'].includes(error.field ?? '') ? error : null} />
      <Buttons busy={busy} label={t('action.createImage')} disabled={!selected || !name} />
    </form>
  );
}

export function RestoreImageForm(props: FormProps) {
  const info = useServer();
  const images = useAsync(() => get<{ images: Image[] }>('/images'));
  // HTTP is offered where the site put the ogLive's hook in place (repository.http_restore).
  const repository = useAsync(() => get<{ http_restore?: boolean }>('/images/repository').catch(() => ({ http_restore: false })));
  const [image, setImage] = useState('');
  const [disk, setDisk] = useState('1');
  const [partition, setPartition] = useState('1');
  const [place, setPlace] = useState('');
  const [type, setType] = useState('UNICAST');
  const [understood, setUnderstood] = useState(false);
  const { error, busy, submit } = useSubmit(props);
  const risk = useAtRisk(props.clients);
  const list = images.value?.images ?? [];
  const chosen = list.find((i) => String(i.id) === image) ?? list[0];
  // Disk and partition by name, from the first PC's own setup; typed only when it reported none.
  const partitions = usePartitions(props.clients[0]!);
  const known = partitions.value ?? [];
  const picked = known.find((p) => `${p.disk}:${p.partition}` === place) ?? known[0];
  const target = picked ? { disk: String(picked.disk), partition: String(picked.partition) } : { disk, partition };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('image.restoreOf', { name: chosen!.name }), 'command', () =>
          relayed('/image/restore', { clients: props.clients, id: String(chosen!.id), name: chosen!.name, ...target, type }),
        );
      }}
    >
      <ErrorNote error={images.error} />
      <Field
        label={t('image.image')}
        name="id"
        value={chosen ? String(chosen.id) : ''}
        onInput={setImage}
        options={list.map((i) => ({ value: String(i.id), label: i.name }))}
        error={error}
      />
      <div class="row-fields">
        {known.length > 0 ? (
          <Field
            label={t('image.partition')}
            name="partition"
            value={picked ? `${picked.disk}:${picked.partition}` : ''}
            onInput={setPlace}
            options={known.map((p) => ({
              value: `${p.disk}:${p.partition}`,
              label: `${t('image.diskPartition', { disk: p.disk, partition: p.partition })}: ${[p.filesystem_name, humanBytes(p.size), p.os].filter(Boolean).join(', ')}`,
            }))}
            error={error?.field === 'disk' ? { ...error, field: 'partition' } : error}
            hint={t('restore.fromFirst', { ip: props.clients[0]! })}
          />
        ) : (
          <>
            <Field label={t('setup.disk')} name="disk" value={disk} onInput={setDisk} error={error} />
            <Field
              label={t('image.partitionNumber')}
              name="partition"
              value={partition}
              onInput={setPartition}
              error={error}
              hint={partitions.value ? t('restore.noSetup', { ip: props.clients[0]! }) : undefined}
            />
          </>
        )}
        <Field
          label={t('image.method')}
          name="type"
          value={type}
          onInput={setType}
          options={[
            'UNICAST',
            'UNICAST-DIRECT',
            'TIPTORRENT',
            ...(repository.value?.http_restore ? ['HTTP'] : []),
            ...(enabled(info, 'multicast') ? ['MULTICAST'] : []),
          ]}
          error={error}
        />
      </div>
      <Checkbox
        label={t('image.understood', { count: props.clients.length })}
        name="understood"
        checked={understood}
        onChange={setUnderstood}
      />
      {risk.note}
      <ErrorNote error={error && !['id', 'disk', 'partition', 'type'].includes(error.field ?? '') ? error : null} />
      <Buttons busy={busy} label={t('action.restoreImage')} danger disabled={!chosen || !understood || !risk.ready} />
    </form>
  );
}

export function ShellForm(props: FormProps) {
  const scripts = useAsync(() => get<{ scripts: string[] }>('/shell/list'));
  const [command, setCommand] = useState('');
  const { error, busy, submit } = useSubmit(props);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('shell.runOf', { command: command.split('\n')[0]!.slice(0, 60) }), 'shell', () =>
          relayed('/shell/run', { clients: props.clients, run: command }),
        );
      }}
    >
      <Field label={t('shell.command')} name="run" value={command} onInput={setCommand} multiline error={error} required />
      {(scripts.value?.scripts.length ?? 0) > 0 && (
        <Field
          label={t('shell.script')}
          name="script"
          value=""
          onInput={(script) => script && setCommand(script)}
          options={[{ value: '', label: t('shell.pickScript') }, ...scripts.value!.scripts]}
        />
      )}
      <ErrorNote error={error && error.field !== 'run' ? error : null} />
      <Buttons busy={busy} label={t('action.shell')} disabled={!command.trim()} />
    </form>
  );
}

/** Disk and partition of a started session or a software inventory, from the first client's partitions. */
function PartitionPicker(props: { ip: string; value: string; onInput(v: string): void }) {
  const partitions = usePartitions(props.ip);
  const list = partitions.value ?? [];
  return (
    <>
      <ErrorNote error={partitions.error} />
      <Field
        label={t('image.partition')}
        name="partition"
        value={props.value || (list[0] ? `${list[0].disk}:${list[0].partition}` : '')}
        onInput={props.onInput}
        options={list.map((p) => ({
          value: `${p.disk}:${p.partition}`,
          label: `${t('image.diskPartition', { disk: p.disk, partition: p.partition })} ${p.os || p.filesystem_name}`,
        }))}
      />
    </>
  );
}

export function DiskPartitionForm(props: FormProps & { path: string; title: string }) {
  const [choice, setChoice] = useState('');
  const { error, busy, submit } = useSubmit(props);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const value = choice || (e.currentTarget.elements.namedItem('partition') as HTMLSelectElement).value;
        const [disk, partition] = value.split(':');
        void submit(props.title, 'command', () => relayed(props.path, { clients: props.clients, disk, partition }));
      }}
    >
      <p class="hint">{t('session.firstClient', { ip: props.clients[0]! })}</p>
      <PartitionPicker ip={props.clients[0]!} value={choice} onInput={setChoice} />
      <ErrorNote error={error} />
      <Buttons busy={busy} label={props.title} />
    </form>
  );
}

export function MoveForm(props: FormProps) {
  const model = fleet.value.model;
  const rooms = model ? [...model.byKey.values()].filter((n) => n.type === 'room') : [];
  const [room, setRoom] = useState(String(rooms[0]?.id ?? ''));
  const [folder, setFolder] = useState('0');
  const { error, busy, submit } = useSubmit(props);
  const folders = model?.byKey.get(`room:${room}`)?.children.filter((n) => n.type === 'folder') ?? [];
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('action.move'), 'none', async () => {
          await post('/client/move', { clients: props.clients, room: Number(room), folder_id: Number(folder) });
          await loadTree();
          return withUnknown(props.clients);
        });
      }}
    >
      <Field
        label={t('kind.room')}
        name="room"
        value={room}
        onInput={(v) => {
          setRoom(v);
          setFolder('0');
        }}
        options={rooms.map((r) => ({ value: String(r.id), label: `${r.parent?.name ?? ''} / ${r.name}` }))}
        error={error}
      />
      <Field
        label={t('kind.folder')}
        name="folder_id"
        value={folder}
        onInput={setFolder}
        options={[{ value: '0', label: t('move.noFolder') }, ...folders.map((f) => ({ value: String(f.id), label: f.name }))]}
        error={error}
      />
      <ErrorNote error={error && !['room', 'folder_id'].includes(error.field ?? '') ? error : null} />
      <Buttons busy={busy} label={t('action.move')} />
    </form>
  );
}

export function DeleteClientsForm(props: FormProps) {
  const { error, busy, submit } = useSubmit(props);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('action.delete'), 'none', async () => {
          await post('/client/delete', { clients: props.clients });
          setSelection(new Set());
          await loadTree();
          return withUnknown(props.clients);
        });
      }}
    >
      <p>{t('delete.clients', { count: props.clients.length })}</p>
      <ErrorNote error={error} />
      <Buttons busy={busy} label={t('action.delete')} danger />
    </form>
  );
}

/** The repository of many clients at once (POST /client/repo): where their images are made and restored from. */
export function RepositoryForm(props: FormProps) {
  const repositories = useAsync(() => get<{ repositories: Repository[] }>('/repositories'));
  const repos = repositories.value?.repositories ?? [];
  const [repository, setRepository] = useState('');
  const { error, busy, submit } = useSubmit(props);
  const chosen = repository || String(repos[0]?.id ?? '');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit(t('action.repository'), 'none', async () => {
          await post('/client/repo', { clients: props.clients, id: Number(chosen) });
          return withUnknown(props.clients);
        });
      }}
    >
      <ErrorNote error={repositories.error} />
      <Field
        label={t('image.repository')}
        name="id"
        value={chosen}
        onInput={setRepository}
        options={repos.map((r) => ({ value: String(r.id), label: `${r.name} (${r.ip})` }))}
        error={error}
      />
      <ErrorNote error={error && error.field !== 'id' ? error : null} />
      <Buttons busy={busy} label={t('action.repository')} disabled={!chosen} />
    </form>
  );
}
