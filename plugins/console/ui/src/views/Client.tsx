import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Checkbox, Field } from '../components/Field';
import { StateBadge } from '../components/StateBadge';
import { fleet, loadTree } from '../fleet/fleet';
import { colonMac, dateTime, humanBytes } from '../format';
import { t } from '../i18n';
import { enabled, useServer } from '../plugins';
import { go, href } from '../router';
import { useStore } from '../store';
import type { ClientListing, JobSummary, Partition, Repository } from '../types';
import { getWholeJob } from './jobPages';
import { kindLabel, outcomeText } from './jobWords';
import { hardwareName } from '../hardwareNames';
import { useAsync } from '../useAsync';
import { ClientHistory } from './History';
import { ClientTimeline } from './Timeline';
import { LastBoot } from './LastBoot';
import { TableScroll } from '../components/TableScroll';

interface ClientInfo {
  id: number;
  name: string;
  serial_number: string;
  ip: string;
  mac: string;
  room: number;
  center: number;
  folder_id: number;
  repo_id: number;
  server_id: number;
  netmask: string;
  netiface: string;
  netdriver: string;
  livedir: string;
  boot: string;
  remote: boolean;
  maintenance: boolean;
}

const textFields = ['name', 'ip', 'mac', 'serial_number', 'netmask', 'netiface', 'netdriver', 'livedir'] as const;

/**
 * Everything about one client: its record (editable), disks, hardware, software, boot files,
 * last results; and, with the history plugin, a History tab (#/client/<ip>/history).
 */
export function Client(props: { ip: string; tab?: string }) {
  const info = useServer();
  const record = useAsync(() => get<ClientInfo>('/client/info', { client: [props.ip] }), [props.ip]);
  const { states } = useStore(fleet);
  const listing = states.get(props.ip);
  return (
    <div class="client-page">
      <p>
        <a href={href('fleet')}>{t('nav.fleet')}</a> /
      </p>
      <h1>
        {record.value?.name ?? props.ip} <StateBadge state={listing?.state} />
      </h1>
      <ErrorNote error={record.error} />
      {enabled(info, 'history') && (
        <nav class="tabs" aria-label={t('client.pages')}>
          <a href={href('client', props.ip)} aria-current={props.tab !== 'history' && props.tab !== 'timeline' ? 'page' : undefined}>
            {t('client.details')}
          </a>
          <a href={href('client', props.ip, 'timeline')} aria-current={props.tab === 'timeline' ? 'page' : undefined}>
            {t('client.timelineTab')}
          </a>
          <a href={href('client', props.ip, 'history')} aria-current={props.tab === 'history' ? 'page' : undefined}>
            {t('history.title')}
          </a>
        </nav>
      )}
      {props.tab === 'history' && enabled(info, 'history') ? (
        <ClientHistory ip={props.ip} />
      ) : props.tab === 'timeline' && enabled(info, 'history') ? (
        <ClientTimeline ip={props.ip} />
      ) : (
        <Details {...props} record={record} />
      )}
    </div>
  );
}

function Details(props: { ip: string; record: ReturnType<typeof useAsync<ClientInfo>> }) {
  const info = useServer();
  const { record } = props;
  const { states } = useStore(fleet);
  const listing = states.get(props.ip);
  return (
    <>
      {record.value && <ClientForm key={record.value.id} record={record.value} onSaved={record.reload} />}
      {enabled(info, 'agents') && (
        <section aria-labelledby="last-results">
          <h2 id="last-results">{t('client.lastResults')}</h2>
          <p>
            {t('client.lastCommand')}: <LastResult listing={listing} />
            {listing?.speed ? ` · ${listing.speed} Mbit/s` : ''}
          </p>
          {enabled(info, 'jobs') && <LastJob ip={props.ip} state={listing?.state} />}
          {enabled(info, 'shell') && <ShellResult ip={props.ip} />}
        </section>
      )}
      <Disks ip={props.ip} />
      {enabled(info, 'pxe-modes') && <BootFiles ip={props.ip} />}
      {enabled(info, 'boot') && <LastBoot ip={props.ip} />}
      {enabled(info, 'agents') && <Hardware ip={props.ip} />}
    </>
  );
}

/** The last command's result as GET /clients says it, in its colour; while a command runs, that it runs. */
function LastResult(props: { listing: ClientListing | undefined }) {
  const { listing } = props;
  if (!listing) return <span>{t('state.off')}</span>;
  if (listing.state === 'BSY') return <span class="job-running">{t('client.running')}</span>;
  const result = listing.last_cmd.result;
  return (
    <span class={`result result-${result}`} data-result={result}>
      {t(`result.${result}` as 'result.success')}
    </span>
  );
}

/** The PC's latest job (the jobs plugin): what it was, how it ended here, with its exit code; a link to its page. */
function LastJob(props: { ip: string; state?: string }) {
  const last = useAsync(async () => {
    const { jobs } = await get<{ jobs: JobSummary[] }>(`/jobs?client=${encodeURIComponent(props.ip)}&limit=1`);
    if (!jobs[0]) return null;
    const job = await getWholeJob(jobs[0].id);
    return { job, line: job.clients.find((c) => c.addr === props.ip) };
  }, [props.ip, props.state]);
  const found = last.value;
  if (!found?.line) return null;
  const { job, line } = found;
  return (
    <p class="last-job" data-job={job.id} data-state={line.state}>
      <a href={href('job', String(job.id))}>{t('job.title', { id: job.id, kind: kindLabel(job.kind) })}</a>:{' '}
      <span class={`job-state job-${line.state}`}>{t(`jobState.${line.state}`)}</span>
      {line.state !== 'sent' && ` · ${outcomeText(line.outcome)}`}
    </p>
  );
}

function ClientForm(props: { record: ClientInfo; onSaved(): void }) {
  const info = useServer();
  const { model } = useStore(fleet);
  const [fields, setFields] = useState<Partial<Record<string, string | boolean>>>({});
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const modes = useAsync(() =>
    enabled(info, 'pxe-modes') ? get<{ modes: string[] }>('/mode') : Promise.resolve({ modes: [] as string[] }),
  );
  const repositories = useAsync(() => get<{ repositories: Repository[] }>('/repositories'));
  const servers = useAsync(() => get<{ servers: { id: number; ip: string; port: number }[] }>('/server'));
  const value = (key: string) =>
    String(fields[key] ?? (key === 'mac' ? colonMac(props.record.mac) : (props.record as unknown as Record<string, unknown>)[key]) ?? '');
  const set = (key: string) => (v: string | boolean) => {
    setSaved(false);
    setFields({ ...fields, [key]: v });
  };
  const labels: Record<string, string> = {
    name: t('field.name'),
    ip: t('client.ip'),
    mac: t('client.mac'),
    serial_number: t('client.serial'),
    netmask: t('field.netmask'),
    netiface: t('client.netiface'),
    netdriver: t('client.netdriver'),
    livedir: t('client.livedir'),
  };
  const rooms = model ? [...model.byKey.values()].filter((n) => n.type === 'room') : [];
  async function save(): Promise<void> {
    setError(null);
    const changed: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(fields)) changed[key] = ['room', 'repo_id', 'server_id'].includes(key) ? Number(v) : v;
    try {
      await post('/client/update', { id: props.record.id, ...changed });
      setFields({});
      setSaved(true);
      await loadTree();
      const ip = (changed.ip as string | undefined) ?? props.record.ip;
      if (ip !== props.record.ip) go('client', ip);
      else props.onSaved();
    } catch (e) {
      setError(e as Error);
    }
  }
  return (
    <form
      class="record"
      aria-labelledby="record-title"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2 id="record-title">{t('client.record')}</h2>
      <div class="form-grid">
        {textFields.map((key) => (
          <Field key={key} label={labels[key]!} name={key} value={value(key)} onInput={set(key)} error={error} />
        ))}
        <Field
          label={t('kind.room')}
          name="room"
          value={value('room')}
          onInput={set('room')}
          options={rooms.map((r) => ({ value: String(r.id), label: `${r.parent?.name ?? ''} / ${r.name}` }))}
          error={error}
        />
        {(modes.value?.modes.length ?? 0) > 0 && (
          <Field
            label={t('boot.mode')}
            name="boot"
            value={value('boot')}
            onInput={set('boot')}
            options={modes.value!.modes}
            error={error}
          />
        )}
        <Field
          label={t('image.repository')}
          name="repo_id"
          value={value('repo_id')}
          onInput={set('repo_id')}
          options={[
            { value: '0', label: t('none') },
            ...(repositories.value?.repositories ?? []).map((r) => ({ value: String(r.id), label: r.name })),
          ]}
          error={error}
        />
        <Field
          label={t('client.server')}
          name="server_id"
          value={value('server_id')}
          onInput={set('server_id')}
          options={[
            { value: '0', label: t('none') },
            ...(servers.value?.servers ?? []).map((s) => ({ value: String(s.id), label: `${s.ip}:${s.port}` })),
          ]}
          error={error}
        />
      </div>
      <Checkbox label={t('field.remote')} name="remote" checked={Boolean(fields.remote ?? props.record.remote)} onChange={set('remote')} />
      <Checkbox
        label={t('client.maintenance')}
        name="maintenance"
        checked={Boolean(fields.maintenance ?? props.record.maintenance)}
        onChange={set('maintenance')}
      />
      <ErrorNote
        error={
          error &&
          !Object.keys(labels)
            .concat(['room', 'boot', 'repo_id', 'server_id'])
            .includes(error.field ?? '')
            ? error
            : null
        }
      />
      <div class="buttons">
        <button type="submit" class="primary" disabled={Object.keys(fields).length === 0}>
          {t('save')}
        </button>
        {saved && (
          <span role="status" class="saved">
            {t('saved')}
          </span>
        )}
      </div>
    </form>
  );
}

function Disks(props: { ip: string }) {
  const setup = useAsync(() => get<{ partitions: Partition[] }>('/client/setup', { client: [props.ip] }), [props.ip]);
  const info = useServer();
  const list = setup.value?.partitions ?? [];
  return (
    <section aria-labelledby="disks-title">
      <h2 id="disks-title">{t('client.disks')}</h2>
      <ErrorNote error={setup.error} />
      {list.length === 0 ? (
        <p class="hint">{t('client.noDisks')}</p>
      ) : (
        <TableScroll>
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">{t('setup.disk')}</th>
                <th scope="col">{t('image.partitionNumber')}</th>
                <th scope="col">{t('setup.size')}</th>
                <th scope="col">{t('setup.used')}</th>
                <th scope="col">{t('setup.filesystem')}</th>
                <th scope="col">{t('client.os')}</th>
                <th scope="col">{t('client.software')}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((p) => (
                <tr key={`${p.disk}:${p.partition}`} class={p.partition === 0 ? 'disk-row' : ''}>
                  <td>{p.disk}</td>
                  <td>{p.partition === 0 ? t('client.wholeDisk', { type: p.disk_type || '' }) : p.partition}</td>
                  <td>{humanBytes(p.size)}</td>
                  <td>{p.partition === 0 ? '' : humanBytes(p.used_size)}</td>
                  <td>{p.filesystem_name}</td>
                  <td>{p.os}</td>
                  <td>
                    {p.partition > 0 && p.os && enabled(info, 'agents') && <Software ip={props.ip} disk={p.disk} partition={p.partition} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

function Software(props: { ip: string; disk: number; partition: number }) {
  const [open, setOpen] = useState(false);
  const list = useAsync(
    () =>
      open
        ? get<{ software: string[] }>('/software', { client: [props.ip], disk: props.disk, partition: props.partition })
        : Promise.resolve(null),
    [open],
  );
  if (!open)
    return (
      <button type="button" class="link" onClick={() => setOpen(true)}>
        {t('client.showSoftware')}
      </button>
    );
  return (
    <div class="software">
      <ErrorNote error={list.error} />
      {list.value &&
        (list.value.software.length ? (
          <ul>
            {list.value.software.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        ) : (
          <p class="hint">{t('client.noSoftware')}</p>
        ))}
    </div>
  );
}

function BootFiles(props: { ip: string }) {
  const files = useAsync(
    () => get<{ clients: { ip: string; efi: boolean; bios?: boolean }[] }>('/efi', { clients: [props.ip] }),
    [props.ip],
  );
  const entry = files.value?.clients[0];
  const word = (present?: boolean) => (present === undefined ? '?' : present ? t('yes') : t('no'));
  return (
    <section aria-labelledby="boot-title">
      <h2 id="boot-title">{t('client.bootFiles')}</h2>
      <ErrorNote error={files.error} />
      {entry && (
        <dl class="facts">
          <dt>UEFI</dt>
          <dd data-boot="uefi">{word(entry.efi)}</dd>
          <dt>BIOS</dt>
          <dd data-boot="bios">{word(entry.bios)}</dd>
        </dl>
      )}
    </section>
  );
}

function Hardware(props: { ip: string }) {
  const hardware = useAsync(
    () => get<{ hardware: { description: string; type: string }[] }>('/hardware', { client: [props.ip] }),
    [props.ip],
  );
  const list = hardware.value?.hardware ?? [];
  return (
    <section aria-labelledby="hardware-title">
      <h2 id="hardware-title">{t('client.hardware')}</h2>
      <ErrorNote error={hardware.error} />
      {list.length === 0 ? (
        <p class="hint">{t('client.noHardware')}</p>
      ) : (
        <dl class="facts">
          {list.map((h, i) => [
            <dt key={`t${i}`} data-type={h.type}>
              {hardwareName(h.type)}
            </dt>,
            <dd key={`d${i}`}>{h.description}</dd>,
          ])}
        </dl>
      )}
    </section>
  );
}

function ShellResult(props: { ip: string }) {
  const output = useAsync(
    () =>
      post<{ clients: { addr: string; retcode: number; cmd: string; timestamp: number; output: string }[] }>('/shell/output', {
        clients: [props.ip],
      }),
    [props.ip],
  );
  const last = output.value?.clients[0];
  if (!last) return null;
  return (
    <div class="shell-result">
      <p>{t('client.lastShell', { cmd: last.cmd, code: last.retcode, time: dateTime(last.timestamp * 1000) })}</p>
      <pre class="output">{last.output}</pre>
    </div>
  );
}
