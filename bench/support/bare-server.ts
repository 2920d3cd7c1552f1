import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The ceiling: a bare Node HTTP server in a process of its own answering one constant JSON
 * body (argv[2]) to every request. It prints its port, then serves until killed.
 */
const body = process.argv[2] ?? '{}';
const length = String(Buffer.byteLength(body));
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': length });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
