import { useState } from 'preact/hooks';
import { get, post } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { Field } from '../../components/Field';
import { t } from '../../i18n';
import { useAsync } from '../../useAsync';
import { Buttons, type FormProps, useSubmit, withUnknown } from './actionForms';

/**
 * Boot the selection into a mode once (the boot plugin's POST /boot/next): its previous mode
 * comes back when its agent connects or its script has been served, or at the time-out.
 */
export function BootOnceForm(props: FormProps) {
  const modes = useAsync(() => get<{ modes: string[] }>('/mode'));
  const [mode, setMode] = useState('');
  const [revert, setRevert] = useState<'agent' | 'served'>('agent');
  const [minutes, setMinutes] = useState('');
  const { error, busy, submit } = useSubmit(props);
  const list = modes.value?.modes ?? [];
  const chosen = mode || list.find((m) => m.startsWith('ogLive')) || list[0] || '';
  // The field a refusal names is the API's: minutes are sent as seconds.
  const shown = error?.field === 'timeout_s' ? { ...error, field: 'minutes' } : error;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const timeout = minutes.trim() === '' ? {} : { timeout_s: Math.round(Number(minutes) * 60) };
        void submit(t('action.bootOnce'), 'none', async () =>
          withUnknown(
            props.clients,
            (await post<{ unknown: string[] }>('/boot/next', { clients: props.clients, mode: chosen, revert, ...timeout })).unknown,
          ),
        );
      }}
    >
      <ErrorNote error={modes.error} />
      <Field label={t('boot.mode')} name="mode" value={chosen} onInput={setMode} options={list} error={shown} />
      <Field
        label={t('bootOnce.revert')}
        name="revert"
        value={revert}
        onInput={(v) => setRevert(v as 'agent' | 'served')}
        options={[
          { value: 'agent', label: t('bootOnce.revertAgent') },
          { value: 'served', label: t('bootOnce.revertServed') },
        ]}
        error={shown}
      />
      <Field
        label={t('bootOnce.minutes')}
        name="minutes"
        type="number"
        value={minutes}
        onInput={setMinutes}
        hint={t('bootOnce.minutesHint')}
        error={shown}
      />
      <ErrorNote error={shown && !['mode', 'revert', 'minutes'].includes(shown.field ?? '') ? shown : null} />
      <Buttons busy={busy} label={t('action.bootOnce')} disabled={!chosen} />
    </form>
  );
}
