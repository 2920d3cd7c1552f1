import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

/** What the source says of its file before any byte: size, version and sha256 (hex, from Repr-Digest). */
export interface SourceHead {
  size: number;
  etag: string;
  sha256: string;
}

/** The source refused, or said something a pull cannot use: not worth asking again as is. */
export class SourceRefused extends Error {
  override name = 'SourceRefused';
}

const timeoutMs = 30_000;

/** Send one request to the source; the answer's head (its body to read or drop). */
export function ask(url: URL, method: 'GET', headers: Record<string, string> = {}): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method, headers: { 'User-Agent': 'ogserve image pull', ...headers }, timeout: timeoutMs }, resolve);
    req.once('timeout', () => req.destroy(new Error(`no answer from ${url.host} within ${timeoutMs / 1000} s`)));
    req.once('error', reject);
    req.end();
  });
}

/** The sha256 a `Repr-Digest` header (RFC 9530) names, in hex; undefined when it names none. */
export function digestSha256(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  const match = text && /(?:^|,)\s*sha-256=:([A-Za-z0-9+/]{43}=):/.exec(text);
  return match ? Buffer.from(match[1]!, 'base64').toString('hex') : undefined;
}

/** A refusal's words: the source's JSON message when it sent one. */
export async function refusalOf(res: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of res) {
    if (text.length < 2000) text += String(chunk);
  }
  try {
    const body = JSON.parse(text) as { message?: string };
    if (body.message) return `${res.statusCode}: ${body.message}`;
  } catch {}
  return `${res.statusCode} ${res.statusMessage ?? ''}`.trim();
}

/** Size, version and digest of a 200 or 206 answer (the whole file's size: Content-Range's on a 206). */
export function headFields(res: IncomingMessage): SourceHead {
  const etag = res.headers.etag;
  const sha256 = digestSha256(res.headers['repr-digest']);
  const range = /\/(\d+)$/.exec(String(res.headers['content-range'] ?? ''));
  const size = Number(range ? range[1] : res.headers['content-length']);
  if (!sha256)
    throw new SourceRefused(
      'the source names no sha256 of the file (no Repr-Digest: not an ogserve /images/files URL, or the image is not hashed there)',
    );
  if (!etag || etag.startsWith('W/'))
    throw new SourceRefused('the source gives the file no strong ETag: a pull could not resume it safely');
  if (!Number.isSafeInteger(size) || size < 0) throw new SourceRefused('the source does not say how big the file is');
  return { size, etag, sha256 };
}
