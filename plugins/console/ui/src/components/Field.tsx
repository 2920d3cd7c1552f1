import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { problemSentence } from '../sentences';

let nextId = 0;

type Option = { value: string; label: string };

const option = (o: string | Option) =>
  typeof o === 'string' ? (
    <option key={o} value={o}>
      {o}
    </option>
  ) : (
    <option key={o.value} value={o.value}>
      {o.label}
    </option>
  );

export interface FieldProps {
  label: string;
  /** The API's name of the field: its error (field === name) is shown under the input. */
  name: string;
  value: string;
  onInput?: (value: string) => void;
  error?: { field?: string; message: string } | null;
  type?: string;
  required?: boolean;
  /** What a password manager may fill in (username, current-password, new-password). */
  autocomplete?: string;
  placeholder?: string;
  /** Options for a select; the value of each is also its label unless given; a group is an optgroup. */
  options?: (string | Option | { group: string; options: Option[] })[];
  multiline?: boolean;
  hint?: ComponentChildren;
}

/** A labelled input whose error, when the API names this field, is shown right under it. */
export function Field(props: FieldProps) {
  const id = useMemo(() => `f-${props.name}-${++nextId}`, [props.name]);
  const problem = props.error && props.error.field === props.name ? problemSentence(props.error, props.label) : '';
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    autocomplete: props.autocomplete,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': problem ? `${id}-error` : undefined,
    onInput: (e: Event) => props.onInput?.((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class={`field${problem ? ' invalid' : ''}`}>
      <label for={id}>{props.label}</label>
      {props.options ? (
        <select {...common}>
          {props.options.map((o) =>
            typeof o === 'object' && 'group' in o ? (
              <optgroup key={o.group} label={o.group}>
                {o.options.map(option)}
              </optgroup>
            ) : (
              option(o)
            ),
          )}
        </select>
      ) : props.multiline ? (
        <textarea {...common} rows={6} placeholder={props.placeholder} />
      ) : (
        <input {...common} type={props.type ?? 'text'} placeholder={props.placeholder} />
      )}
      {props.hint && <small class="hint">{props.hint}</small>}
      {problem && (
        <small class="error" id={`${id}-error`} role="alert">
          {problem}
        </small>
      )}
    </div>
  );
}

export function Checkbox(props: { label: string; name: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="checkbox">
      <input type="checkbox" name={props.name} checked={props.checked} onChange={(e) => props.onChange(e.currentTarget.checked)} />
      {props.label}
    </label>
  );
}
