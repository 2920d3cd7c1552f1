/** The client lists of a request body: `clients`, or the `client` list of per-client reads. */
export function clientLists(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const record = body as { clients?: unknown; client?: unknown };
  const list = Array.isArray(record.clients) ? record.clients : Array.isArray(record.client) ? record.client : [];
  return list.filter((c): c is string => typeof c === 'string');
}

/**
 * Every client a request body names, in any of the fields routes read addresses from: the
 * `ip` of a single client's record, `clients` and `client`.
 */
export function clientsNamed(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const { ip, clients, client } = body as { ip?: unknown; clients?: unknown; client?: unknown };
  const named = [ip, ...(Array.isArray(clients) ? clients : []), ...(Array.isArray(client) ? client : [])];
  return [...new Set(named.filter((c): c is string => typeof c === 'string'))];
}
