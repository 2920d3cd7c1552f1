import type { RequestListener } from 'node:http';

/**
 * Browsers cannot put a body on a GET (fetch refuses), yet the per-client reads take their
 * arguments as a JSON body, as the existing clients send them. A browser sends such a read
 * as `POST` with `X-HTTP-Method-Override: GET`, and it is routed, validated and logged as
 * the GET it stands for. Only POST may become GET: an override never turns a read into a change.
 */
export function withMethodOverride(next: RequestListener): RequestListener {
  return (req, res) => {
    if (req.method === 'POST' && req.headers['x-http-method-override']?.toString().toUpperCase() === 'GET') req.method = 'GET';
    next(req, res);
  };
}
