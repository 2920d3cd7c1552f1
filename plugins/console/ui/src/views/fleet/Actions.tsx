import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog';
import { type MessageKey, t } from '../../i18n';
import { enabled, may, useServer } from '../../plugins';
import { BootOnceForm } from './BootOnceForm';
import { CacheForm } from './CacheForm';
import {
  BootModeForm,
  CreateImageForm,
  DeleteClientsForm,
  DiskPartitionForm,
  type FormProps,
  LiveForm,
  MoveForm,
  RepositoryForm,
  RestoreImageForm,
  SetupForm,
  ShellForm,
  SimpleForm,
  WakeForm,
} from './actionForms';

interface ActionSpec {
  key: string;
  label: MessageKey;
  /** Plugins that serve it: the button shows only when they are enabled. */
  plugins: string[];
  /** The route its form sends (`POST /wol`): the button shows only to a caller who may call it. */
  route: string;
  /** Needs exactly one client (image creation). */
  single?: boolean;
  danger?: boolean;
  wide?: boolean;
  form(props: FormProps): JSX.Element;
}

const actions: ActionSpec[] = [
  { key: 'wake', route: 'POST /wol', label: 'action.wake', plugins: ['wol'], form: (p) => <WakeForm {...p} /> },
  {
    key: 'poweroff',
    route: 'POST /poweroff',
    label: 'action.poweroff',
    plugins: ['agents'],
    danger: true,
    form: (p) => (
      <SimpleForm
        {...p}
        path="/poweroff"
        title={t('action.poweroff')}
        watch="power"
        confirm={t('confirm.poweroff', { count: p.clients.length })}
      />
    ),
  },
  {
    key: 'reboot',
    route: 'POST /reboot',
    label: 'action.reboot',
    plugins: ['agents'],
    danger: true,
    form: (p) => (
      <SimpleForm
        {...p}
        path="/reboot"
        title={t('action.reboot')}
        watch="power"
        confirm={t('confirm.reboot', { count: p.clients.length })}
      />
    ),
  },
  {
    key: 'refresh',
    route: 'POST /refresh',
    label: 'action.refresh',
    plugins: ['agents'],
    form: (p) => <SimpleForm {...p} path="/refresh" title={t('action.refresh')} watch="command" />,
  },
  { key: 'boot', route: 'POST /mode', label: 'action.boot', plugins: ['pxe-modes'], form: (p) => <BootModeForm {...p} /> },
  { key: 'boot-once', route: 'POST /boot/next', label: 'action.bootOnce', plugins: ['boot'], form: (p) => <BootOnceForm {...p} /> },
  { key: 'live', route: 'POST /live/set', label: 'action.live', plugins: ['live'], form: (p) => <LiveForm {...p} /> },
  {
    key: 'setup',
    route: 'POST /setup',
    label: 'action.setup',
    plugins: ['agents'],
    danger: true,
    wide: true,
    form: (p) => <SetupForm {...p} />,
  },
  {
    key: 'create-image',
    route: 'POST /image/create',
    label: 'action.createImage',
    plugins: ['images'],
    single: true,
    form: (p) => <CreateImageForm {...p} />,
  },
  {
    key: 'restore-image',
    route: 'POST /image/restore',
    label: 'action.restoreImage',
    plugins: ['images'],
    danger: true,
    form: (p) => <RestoreImageForm {...p} />,
  },
  { key: 'shell', route: 'POST /shell/run', label: 'action.shell', plugins: ['shell'], form: (p) => <ShellForm {...p} /> },
  { key: 'cache', route: 'POST /cache/delete', label: 'action.cache', plugins: ['cache'], wide: true, form: (p) => <CacheForm {...p} /> },
  {
    key: 'session',
    route: 'POST /session',
    label: 'action.session',
    plugins: ['agents'],
    form: (p) => <DiskPartitionForm {...p} path="/session" title={t('action.session')} />,
  },
  {
    key: 'hardware',
    route: 'POST /hardware',
    label: 'action.hardware',
    plugins: ['agents'],
    form: (p) => <SimpleForm {...p} path="/hardware" title={t('action.hardware')} watch="command" />,
  },
  {
    key: 'software',
    route: 'POST /software',
    label: 'action.software',
    plugins: ['agents'],
    form: (p) => <DiskPartitionForm {...p} path="/software" title={t('action.software')} />,
  },
  {
    key: 'repository',
    route: 'POST /client/repo',
    label: 'action.repository',
    plugins: ['inventory'],
    form: (p) => <RepositoryForm {...p} />,
  },
  { key: 'move', route: 'POST /client/move', label: 'action.move', plugins: ['inventory'], form: (p) => <MoveForm {...p} /> },
  {
    key: 'delete',
    route: 'POST /client/delete',
    label: 'action.delete',
    plugins: ['inventory'],
    danger: true,
    form: (p) => <DeleteClientsForm {...p} />,
  },
];

/** The buttons for what can be done to the selected clients, each opening its form. */
export function ActionBar(props: { clients: string[] }) {
  const info = useServer();
  const [open, setOpen] = useState<ActionSpec | null>(null);
  const count = props.clients.length;
  const offered = actions.filter((a) => enabled(info, ...a.plugins) && may(info, a.route));
  return (
    <div class="actions" role="toolbar" aria-label={t('actions.toolbar')}>
      {offered.map((action) => (
        <button
          type="button"
          key={action.key}
          class={action.danger ? 'danger-outline' : ''}
          data-action={action.key}
          disabled={count === 0 || (action.single && count !== 1)}
          title={action.single && count !== 1 ? t('actions.single') : undefined}
          onClick={() => setOpen(action)}
        >
          {t(action.label)}
        </button>
      ))}
      {open && (
        <Dialog title={`${t(open.label)} · ${t('actions.clients', { count })}`} onClose={() => setOpen(null)} wide={open.wide}>
          {open.form({ clients: props.clients, done: () => setOpen(null) })}
        </Dialog>
      )}
    </div>
  );
}
