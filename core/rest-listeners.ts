import type { Server } from 'node:http';
import type { Server as TlsServer } from 'node:tls';
import type { CoreSettings } from './config-schema';
import { type RestOptions, closeRestServer, createRestServer } from './http/server';
import { readTlsFiles, redirectTarget, type TlsFiles } from './http/transport';
import type { Listening, ListenSpec } from './listen';
import type { Logger } from './log';

type Open = (server: Server, spec: ListenSpec) => Promise<Listening>;

/**
 * The REST interface's ports: plain HTTP (`rest.port`, where the reference's clients talk)
 * and, with `rest.tls`, HTTPS beside it. Both serve the same routes.
 */
export class RestListeners {
  private readonly servers: Server[] = [];
  private plain?: Listening;
  private secure?: { server: Server; listening: Listening };
  /** What HTTPS serves now: the redirect to it goes by its certificate's names. */
  private files?: TlsFiles;

  constructor(
    private readonly rest: CoreSettings['rest'],
    private readonly log: Logger,
  ) {}

  /** HTTPS first, so that the plain port knows where to send browsers. */
  async open(options: Omit<RestOptions, 'tls' | 'transport'>, open: Open): Promise<void> {
    const { tls } = this.rest;
    if (tls) {
      const hsts = tls.redirect ? { hstsMaxAgeS: tls.hsts_max_age_s } : {};
      this.files = readTlsFiles(tls);
      const server = createRestServer({ ...options, tls: this.files, transport: hsts });
      this.servers.push(server);
      const ip = tls.ip ?? this.rest.ip;
      const spec = { name: 'REST interface over HTTPS', ip, port: Number(tls.port), ipKey: 'rest.tls.ip', portKey: 'rest.tls.port' };
      this.secure = { server, listening: await open(server, spec) };
    }
    const redirectTo = tls?.redirect ? redirectTarget(this.rest.public_url, this.tlsPort, () => this.files!.cert) : undefined;
    const server = createRestServer({ ...options, transport: { redirectTo } });
    this.servers.push(server);
    const { ip, port } = this.rest;
    this.plain = await open(server, { name: 'REST interface', ip, port, ipKey: 'rest.ip', portKey: 'rest.port' });
  }

  get port(): number {
    return this.plain?.port ?? 0;
  }

  get tlsPort(): number {
    return this.secure?.listening.port ?? 0;
  }

  /** Read rest.tls's files again (SIGHUP): new connections get them; open ones, and the agents', are kept. */
  reloadTls(): void {
    const { tls } = this.rest;
    if (!tls || !this.secure) return;
    try {
      this.files = readTlsFiles(tls);
      (this.secure.server as unknown as TlsServer).setSecureContext(this.files);
      this.log.info({ cert: tls.cert }, 'TLS certificate and key read again');
    } catch (error) {
      this.log.error({ err: error, cert: tls.cert }, 'TLS certificate and key not reloaded: the ones in use are kept');
    }
  }

  /** Requests in flight get `graceMs` to be answered on every port. */
  async close(graceMs: number): Promise<void> {
    await Promise.all(this.servers.map((server) => closeRestServer(server, graceMs, this.log)));
  }
}
