import { useState } from 'preact/hooks';
import { post } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';

export type FieldError = { field?: string; message: string };

/** Results of one form of the Scheduler page, each said under its form. */
export function useRequest() {
  const [error, setError] = useState<FieldError | null>(null);
  const [message, setMessage] = useState('');
  /** Run the form's requests; what `work` answers is shown as success, an error under its field (or the form). */
  const run = async (work: () => Promise<string>) => {
    setError(null);
    setMessage('');
    try {
      setMessage(await work());
      return true;
    } catch (e) {
      setError(e as Error);
      return false;
    }
  };
  const send = (path: string, body: unknown, success: (answer: Record<string, unknown>) => string) =>
    run(async () => success(await post(path, body)));
  /** Refuse before asking the server, naming the field as the server would. */
  const refuse = (field: string, message: string) => {
    setMessage('');
    setError({ field, message });
    return false;
  };
  const note = (fields: string[]) => (
    <>
      <ErrorNote error={error && !fields.includes(error.field ?? '') ? error : null} />
      {message && (
        <p role="status" class="saved">
          {message}
        </p>
      )}
    </>
  );
  return { error, run, send, refuse, note };
}
