import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n';

/** A modal dialog (the browser's own <dialog>: focus kept inside, Escape closes it). */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    return () => dialog.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class={props.wide ? 'wide' : ''}
      aria-labelledby="dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <header>
        <h2 id="dialog-title">{props.title}</h2>
        <button type="button" class="icon" aria-label={t('close')} onClick={props.onClose}>
          ×
        </button>
      </header>
      <div class="dialog-body">{props.children}</div>
    </dialog>
  );
}
