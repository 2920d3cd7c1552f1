/** What these waits need of a server: its GET /clients. */
interface Lister {
  get(urlPath: string): Promise<{ body: { clients: { state: string; last_cmd: { result: string } }[] } }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until GET /clients lists `count` clients idle after a stored refresh (polled each second, so it costs the server little). */
export async function untilRefreshed(server: Lister, count: number, ms = 180_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const listed = (await server.get('/clients')).body.clients;
    const done = listed.filter((c) => c.state !== 'BSY' && c.last_cmd.result === 'success').length;
    if (done >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${done} of ${count} agents refreshed`);
    await sleep(1000);
  }
}

/** Until GET /clients lists no connected agent. */
export async function untilGone(server: Lister): Promise<void> {
  while ((await server.get('/clients')).body.clients.length > 0) await sleep(500);
}
