import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { fleet } from '../fleet/fleet';
import { lang, localized } from '../i18n';
import type { ConsoleViewInfo } from '../types';

/**
 * A third-party plugin's view: its module (served by the server under /console/plugins/<name>/)
 * is imported and its default export mounted into a section, with the signed-in API and the
 * selection; the function it returns, if any, unmounts it.
 */
export function PluginView(props: { name: string; view: ConsoleViewInfo }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let cleanup: unknown;
    let live = true;
    import(/* @vite-ignore */ props.view.entry).then(
      (module: { default: (element: HTMLElement, context: object) => unknown }) => {
        if (!live) return;
        cleanup = module.default(host.current!, {
          api: (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => api(method, path, body),
          lang: lang.value,
          selection: [...fleet.value.selection],
        });
      },
      (e: unknown) => setError(e),
    );
    return () => {
      live = false;
      if (typeof cleanup === 'function') cleanup();
      if (host.current) host.current.textContent = '';
    };
  }, [props.view.entry]);
  return (
    <section class="plugin-view" aria-labelledby="plugin-title">
      <h1 id="plugin-title">{localized(props.view.title)}</h1>
      <ErrorNote error={error} />
      <div ref={host} data-plugin={props.name} />
    </section>
  );
}
