import { useState } from 'preact/hooks';
import { ApiError, post } from '../../api';
import { Field } from '../../components/Field';
import { t } from '../../i18n';
import { problemSentence } from '../../sentences';

interface Planned {
  name: string;
  netmask: string;
}

/** The rooms a pattern makes: "Lab {n}" from 1, 40 of them ("Lab 01" when written {nn}). */
export function roomsFromPattern(pattern: string, from: number, count: number, netmask: string): Planned[] {
  const width = /\{(n+)\}/.exec(pattern)?.[1]?.length ?? 1;
  return Array.from({ length: count }, (_, i) => ({
    name: pattern.replace(/\{n+\}/, String(from + i).padStart(width, '0')),
    netmask,
  }));
}

/** Rooms from pasted lines "name" or "name,netmask" (a semicolon or a tab works too); a header line "name" is skipped. */
export function roomsFromLines(text: string, netmask: string): Planned[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !/^name([,;\t]|$)/i.test(line))
    .map((line) => {
      const [name = '', mask] = line.split(/[,;\t]/).map((part) => part.trim());
      return { name, netmask: mask || netmask };
    });
}

/**
 * Many rooms at once in a center (or a room folder): from a name pattern and a count
 * ("Lab {n}", 40 of them), or from pasted lines. Each is added in turn (POST /room/add), with
 * a bar of how many are done, and a result line: how many were added, and each refused one
 * with why.
 */
export function BulkRooms(props: { center: number; folder?: number; done(added: number): void }) {
  const [how, setHow] = useState<'pattern' | 'lines'>('pattern');
  const [pattern, setPattern] = useState('Lab {n}');
  const [from, setFrom] = useState('1');
  const [count, setCount] = useState('10');
  const [lines, setLines] = useState('');
  const [netmask, setNetmask] = useState('255.255.255.0');
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [refused, setRefused] = useState<{ name: string; why: string }[]>([]);
  const [added, setAdded] = useState<number | null>(null);
  const planned =
    how === 'pattern'
      ? roomsFromPattern(pattern, Number(from) || 1, Math.min(500, Math.max(0, Math.floor(Number(count) || 0))), netmask)
      : roomsFromLines(lines, netmask);
  const run = async () => {
    setRefused([]);
    setAdded(null);
    let made = 0;
    const failures: { name: string; why: string }[] = [];
    for (const [i, room] of planned.entries()) {
      setProgress({ done: i, total: planned.length });
      try {
        await post('/room/add', { center: props.center, name: room.name, netmask: room.netmask, folder_id: props.folder ?? 0 });
        made++;
      } catch (e) {
        failures.push({ name: room.name, why: e instanceof ApiError ? problemSentence(e) : (e as Error).message });
      }
    }
    setProgress(null);
    setAdded(made);
    setRefused(failures);
    if (failures.length === 0) props.done(made);
  };
  return (
    <form
      class="bulk-rooms"
      onSubmit={(e) => {
        e.preventDefault();
        void run();
      }}
    >
      <fieldset class="bare" disabled={progress !== null}>
        <Field
          label={t('bulkRooms.how')}
          name="how"
          value={how}
          onInput={(v) => setHow(v as 'pattern' | 'lines')}
          options={[
            { value: 'pattern', label: t('bulkRooms.byPattern') },
            { value: 'lines', label: t('bulkRooms.byLines') },
          ]}
        />
        {how === 'pattern' ? (
          <div class="form-grid">
            <Field label={t('bulkRooms.pattern')} name="pattern" value={pattern} onInput={setPattern} hint={t('bulkRooms.patternHint')} />
            <Field label={t('bulkRooms.from')} name="from" type="number" value={from} onInput={setFrom} />
            <Field label={t('bulkRooms.count')} name="count" type="number" value={count} onInput={setCount} />
          </div>
        ) : (
          <Field label={t('bulkRooms.lines')} name="lines" value={lines} onInput={setLines} multiline hint={t('bulkRooms.linesHint')} />
        )}
        <Field label={t('field.netmask')} name="netmask" value={netmask} onInput={setNetmask} />
        {planned.length > 0 && (
          <p class="hint" data-planned={planned.length}>
            {t('bulkRooms.planned', { count: planned.length, first: planned[0]!.name, last: planned[planned.length - 1]!.name })}
          </p>
        )}
      </fieldset>
      {progress && (
        <p>
          <progress max={progress.total} value={progress.done} aria-label={t('bulkRooms.adding')} />{' '}
          {t('bulkRooms.progress', { done: progress.done, total: progress.total })}
        </p>
      )}
      {added !== null && (
        <p role="status" class={refused.length > 0 ? 'warning' : 'saved'}>
          {t('bulkRooms.result', { count: added, refused: refused.length })}
        </p>
      )}
      {refused.length > 0 && (
        <ul class="refused-rooms">
          {refused.map((r) => (
            <li key={r.name}>
              <strong>{r.name}</strong>: {r.why}
            </li>
          ))}
        </ul>
      )}
      <div class="buttons">
        <button type="submit" class="primary" disabled={progress !== null || planned.length === 0}>
          {t('bulkRooms.add', { count: planned.length })}
        </button>
      </div>
    </form>
  );
}
