/**
 * Which of the encodings static files are kept in (brotli, gzip) a request's
 * `Accept-Encoding` accepts (RFC 9110, 12.5.3): a coding listed with q=0 is refused, `*`
 * stands for every coding not listed, `x-gzip` is gzip. The header's bare substring is not
 * enough: `gzip;q=0` says no, and `abr` is no coding at all.
 */
export function acceptedEncodings(header: string | undefined): { br: boolean; gzip: boolean } {
  const weights = new Map<string, number>();
  for (const item of (header ?? '').split(',')) {
    const [coding = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!coding) continue;
    const q = params.find((p) => p.startsWith('q='));
    weights.set(coding === 'x-gzip' ? 'gzip' : coding, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const accepts = (coding: string) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
  return { br: accepts('br'), gzip: accepts('gzip') };
}
