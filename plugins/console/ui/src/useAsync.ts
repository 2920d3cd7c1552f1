import { useEffect, useState } from 'preact/hooks';

/** The result of an API read started when the component appears (and again when `deps` change). */
export function useAsync<T>(
  load: () => Promise<T>,
  deps: unknown[] = [],
): { value?: T; error?: unknown; loading: boolean; reload(): void } {
  const [state, setState] = useState<{ value?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => live && setState({ value, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return { ...state, reload: () => setRound((r) => r + 1) };
}
