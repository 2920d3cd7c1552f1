import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { StartupError } from '../errors';

/** `rest.tls`: the REST interface and the console over HTTPS as well, on a port of their own. */
export interface TlsSettings {
  cert: string;
  key: string;
  ip?: string;
  port: number;
  /** Send browsers that come over plain HTTP to HTTPS (and HSTS on HTTPS answers). */
  redirect: boolean;
  hsts_max_age_s: number;
}

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** The certificate and key of `rest.tls`; a file that cannot be read stops the start naming its key. */
export function readTlsFiles(settings: Pick<TlsSettings, 'cert' | 'key'>): TlsFiles {
  const read = (key: 'cert' | 'key'): Buffer => {
    try {
      return readFileSync(settings[key]);
    } catch (error) {
      throw new StartupError(`rest.tls.${key}: ${settings[key]} cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
  };
  return { cert: read('cert'), key: read('key') };
}

/**
 * What the transport asks of every answer: on the HTTPS port, Strict-Transport-Security;
 * on the plain port, a browser's page request (GET or HEAD accepting text/html) sent on to
 * the HTTPS port. Nothing else moves: the reference's clients POST their bodies to the plain
 * port (a redirect would drop them) and boot loaders ask for files without text/html.
 */
export function withTransportRules(listener: RequestListener, rules: { hstsMaxAgeS?: number; redirectToPort?: number }): RequestListener {
  const { hstsMaxAgeS, redirectToPort } = rules;
  if (hstsMaxAgeS !== undefined) {
    const hsts = `max-age=${hstsMaxAgeS}`;
    return (req, res) => {
      res.setHeader('Strict-Transport-Security', hsts);
      listener(req, res);
    };
  }
  if (redirectToPort === undefined) return listener;
  return (req, res) => (isPageRequest(req) ? redirect(req, res, redirectToPort) : listener(req, res));
}

function isPageRequest(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && /\btext\/html\b/.test(req.headers.accept ?? '');
}

function redirect(req: IncomingMessage, res: ServerResponse, port: number): void {
  // The host the browser used, without its port; an IPv6 literal keeps its brackets.
  const host = (req.headers.host ?? '').replace(/:\d+$/, '') || 'localhost';
  const location = `https://${host}:${port}${req.url ?? '/'}`;
  res.writeHead(301, { Location: location, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '0' });
  res.end();
}
