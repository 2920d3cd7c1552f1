import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener } from 'node:http';
import { isIP, isIPv6 } from 'node:net';
import { createSecureContext } from 'node:tls';
import { StartupError } from '../errors';

/** What the HTTPS server is made with: the files `rest.tls` names, read, and its ciphers. */
export type TlsFiles = ReturnType<typeof readTlsFiles>;
/** Where a page request to the plain port is sent. */
export type RedirectTo = (req: IncomingMessage) => string;

/**
 * The HTTPS server's settings from `rest.tls` (the ciphers too: a reload that left them out
 * would go back to Node's). A file that cannot be read, or files and ciphers OpenSSL cannot
 * serve with (no cipher it knows, a key that is not the certificate's), stop the start in
 * one line; a reload keeps what it serves.
 */
export function readTlsFiles(settings: { cert: string; key: string; ciphers: string }) {
  const read = (key: 'cert' | 'key'): Buffer => {
    try {
      return readFileSync(settings[key]);
    } catch (error) {
      throw new StartupError(`rest.tls.${key}: ${settings[key]} cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
  };
  const files = { cert: read('cert'), key: read('key'), ciphers: settings.ciphers };
  try {
    createSecureContext(files);
  } catch (error) {
    throw new StartupError(`rest.tls: OpenSSL refuses cert ${settings.cert}, key ${settings.key} or ciphers: ${(error as Error).message}`);
  }
  return files;
}

/**
 * What the transport asks of every answer: on the HTTPS port, Strict-Transport-Security;
 * on the plain port, a browser's page request (GET or HEAD accepting text/html) sent on to
 * HTTPS, at the address `redirectTo` gives. Nothing else moves: the reference's clients POST
 * their bodies to the plain port (a redirect would drop them) and boot loaders ask for files
 * without text/html.
 */
export function withTransportRules(listener: RequestListener, rules: { hstsMaxAgeS?: number; redirectTo?: RedirectTo }): RequestListener {
  const { hstsMaxAgeS, redirectTo } = rules;
  // setHeader answers the response it set the header on.
  if (hstsMaxAgeS !== undefined) return (req, res) => listener(req, res.setHeader('Strict-Transport-Security', `max-age=${hstsMaxAgeS}`));
  if (redirectTo === undefined) return listener;
  return (req, res) => {
    if (!isPageRequest(req)) return listener(req, res);
    res.writeHead(301, { Location: redirectTo(req), 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '0' }).end();
  };
}

/**
 * Where the plain port sends a browser: under `rest.public_url` when set; else to the HTTPS
 * port by the name the browser used when the certificate holds it, or by the certificate's
 * first name (the address the request came to when it names none). A Host header the
 * certificate does not name is never used: anyone may write one, and the answer would send
 * the browser to another site.
 */
export function redirectTarget(publicUrl: string, port: number, certificate: () => Buffer): RedirectTo {
  if (publicUrl) return (req) => `${publicUrl.replace(/\/$/, '')}${req.url ?? '/'}`;
  return (req) => {
    const cert = new X509Certificate(certificate());
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const ip = host.replace(/^\[(.*)\]$/, '$1');
    const named = isIP(ip) ? cert.checkIP(ip) !== undefined : cert.checkHost(host) !== undefined;
    const [, first] = /(?:^|, )(?:DNS:(?!\*)|IP Address:)([^,]+)/.exec(cert.subjectAltName ?? '') ?? [];
    const name = named ? host : (first ?? req.socket.localAddress ?? 'localhost');
    return `https://${isIPv6(name) ? `[${name}]` : name}:${port}${req.url ?? '/'}`;
  };
}

function isPageRequest(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && /\btext\/html\b/.test(req.headers.accept ?? '');
}
