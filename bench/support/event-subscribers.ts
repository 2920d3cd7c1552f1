import http from 'node:http';

/**
 * A child process holding many GET /events readers, so that parsing them costs the server
 * nothing. argv: <REST port> <API key> <streams>. Sends {open} once every stream answered,
 * and on any message {events, ended}: frames received over all streams, streams the server
 * closed (dropped as stalled).
 */
function main(): void {
  const [port, key, count] = process.argv.slice(2);
  let open = 0;
  let events = 0;
  let ended = 0;
  const streams: http.ClientRequest[] = [];
  for (let i = 0; i < Number(count); i++) {
    const req = http.get(
      { host: '127.0.0.1', port: Number(port), path: '/events', headers: { Authorization: key }, agent: false },
      (res) => {
        if (++open === Number(count)) process.send!({ open });
        let tail = '';
        res.setEncoding('latin1');
        res.on('data', (chunk: string) => {
          // Each frame starts with its id line; the tail keeps one split across chunks.
          const text = tail + chunk;
          for (let at = text.indexOf('id: '); at >= 0; at = text.indexOf('id: ', at + 4)) events++;
          tail = text.slice(-3);
        });
        res.on('close', () => ended++);
      },
    );
    req.on('error', () => undefined);
    streams.push(req);
  }
  process.on('message', (message) => {
    if (message === 'stop') {
      for (const req of streams) req.destroy();
      process.exit(0);
    }
    process.send!({ events, ended });
  });
}

main();
