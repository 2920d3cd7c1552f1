import { Duplex } from 'node:stream';

/**
 * Two ends of an in-memory connection: what one writes, the other reads. The server's end
 * has what Node's HTTP server asks of a socket (its peer's address, timeouts), so that a
 * request sent on the client's end is parsed and answered as one from 127.0.0.1 would be.
 */
export function connectionPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk, _encoding, done) {
        other().push(chunk);
        done();
      },
      final(done) {
        other().push(null);
        done();
      },
      destroy(error, done) {
        other().push(null);
        done(error);
      },
    });
  ends.push(
    end(() => ends[1]!),
    end(() => ends[0]!),
  );
  const [server, client] = ends as [Duplex, Duplex];
  Object.assign(server, {
    remoteAddress: '127.0.0.1',
    remotePort: 0,
    encrypted: false,
    setTimeout: () => server,
    setNoDelay: () => server,
    setKeepAlive: () => server,
    // What net.Socket does: end, then close once the end is written.
    destroySoon: () => {
      server.once('finish', () => server.destroy());
      server.end();
    },
  });
  return [server, client];
}
