import { useEffect, useState } from 'preact/hooks';

/** The page is chosen by the URL's hash (#/fleet, #/client/10.0.0.1): links work, reloads keep the page. */
export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function go(...parts: string[]): void {
  location.hash = `#/${parts.map(encodeURIComponent).join('/')}`;
}

export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;
