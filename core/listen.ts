import type dgram from 'node:dgram';
import type net from 'node:net';
import { StartupError } from './errors';

/** What a listener is and which config keys place it, so that a failure can name them. */
export interface ListenSpec {
  /** How the log names it: `REST interface`, `agent interface`. */
  name: string;
  ip: string;
  port: number;
  /** The config keys of the address and the port (`agents.ip`, `agents.port`). */
  ipKey: string;
  portKey: string;
  /** TCP only: the accept queue length. */
  backlog?: number;
  /** Said after the address in the start log (`at most 65280 agents`). */
  note?: string;
}

/** Where a listener ended up (port 0 asks the system for a free one). */
export interface Listening {
  address: string;
  port: number;
}

/** The key at fault and what to tell the administrator, by the system's error code. */
function reason(error: NodeJS.ErrnoException, spec: ListenSpec): { key: string; text: string } {
  switch (error.code) {
    case 'EADDRINUSE':
      return { key: spec.portKey, text: 'the port is already in use by another process' };
    case 'EACCES':
    case 'EPERM':
      return { key: spec.portKey, text: 'permission denied (ports below 1024 need CAP_NET_BIND_SERVICE)' };
    case 'EADDRNOTAVAIL':
      return { key: spec.ipKey, text: 'the address is not one of this machine' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return { key: spec.ipKey, text: 'the address cannot be resolved' };
    default:
      return { key: spec.portKey, text: error.message };
  }
}

function isDatagram(server: net.Server | dgram.Socket): server is dgram.Socket {
  return typeof (server as dgram.Socket).bind === 'function';
}

/**
 * Open a TCP server or bind a UDP socket where the config says. A failure becomes one
 * startup line naming the key, the address and the port (`agents.port: cannot listen on
 * 0.0.0.0:8889: the port is already in use by another process`), never a stack trace; a
 * UDP socket that could not bind is closed.
 */
export function listen(server: net.Server | dgram.Socket, spec: ListenSpec): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void => {
      if (isDatagram(server)) server.close();
      const { key, text } = reason(error, spec);
      reject(new StartupError(`${key}: cannot listen on ${spec.ip}:${spec.port}: ${text}`));
    };
    const opened = (): void => {
      server.off('error', failed);
      const bound = server.address() as net.AddressInfo;
      resolve({ address: bound.address, port: bound.port });
    };
    server.once('error', failed);
    if (isDatagram(server)) server.bind({ address: spec.ip, port: spec.port }, opened);
    else server.listen({ host: spec.ip, port: spec.port, backlog: spec.backlog }, opened);
  });
}
