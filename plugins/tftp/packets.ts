/**
 * TFTP packets (RFC 1350) and the options iPXE, GRUB and PC firmware send (RFC 2347 option
 * extension, 2348 blksize, 2349 timeout and tsize, 7440 windowsize).
 */
export const Op = { rrq: 1, wrq: 2, data: 3, ack: 4, error: 5, oack: 6 } as const;

/** RFC 1350's error codes, and RFC 2347's 8 for refused options. */
export const TftpError = {
  undefined: 0,
  notFound: 1,
  accessViolation: 2,
  diskFull: 3,
  illegalOperation: 4,
  unknownTid: 5,
  fileExists: 6,
  noSuchUser: 7,
  badOption: 8,
} as const;

/** A read or write request: file name, mode and options (names lower-cased, values as sent). */
export interface Request {
  op: typeof Op.rrq | typeof Op.wrq;
  file: string;
  mode: string;
  options: Map<string, string>;
}

/**
 * A request packet read, or why it cannot be: fields are NUL-terminated netascii strings;
 * a packet cut short or with an odd number of option strings is malformed.
 */
export function parseRequest(packet: Buffer): Request | string {
  const op = packet.readUInt16BE(0);
  if (op !== Op.rrq && op !== Op.wrq) return 'not a request';
  const fields: string[] = [];
  let at = 2;
  while (at < packet.length) {
    const end = packet.indexOf(0, at);
    if (end < 0) return 'a field without its terminating NUL';
    fields.push(packet.toString('latin1', at, end));
    at = end + 1;
    if (fields.length > 34) return 'too many options';
  }
  if (fields.length < 2 || fields.length % 2 !== 0) return 'no file name and mode';
  const [file, mode, ...rest] = fields as [string, string, ...string[]];
  const options = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) options.set(rest[i]!.toLowerCase(), rest[i + 1]!);
  return { op, file, mode: mode.toLowerCase(), options };
}

/** An ERROR packet. */
export function errorPacket(code: number, message: string): Buffer {
  const text = Buffer.from(message.slice(0, 200), 'latin1');
  const packet = Buffer.alloc(5 + text.length);
  packet.writeUInt16BE(Op.error, 0);
  packet.writeUInt16BE(code, 2);
  text.copy(packet, 4);
  return packet;
}

/** An OACK packet naming the options taken, with their values. */
export function oackPacket(options: Map<string, string>): Buffer {
  const parts: Buffer[] = [Buffer.from([0, Op.oack])];
  for (const [name, value] of options) parts.push(Buffer.from(`${name}\0${value}\0`, 'latin1'));
  return Buffer.concat(parts);
}

/** The 4-byte head of a DATA packet (its block number wraps at 65536, as clients expect). */
export function dataHead(block: number): Buffer {
  const head = Buffer.allocUnsafe(4);
  head.writeUInt16BE(Op.data, 0);
  head.writeUInt16BE(block & 0xffff, 2);
  return head;
}

/** What an incoming packet on a transfer's port says: an ACK of a block, an ERROR, or anything else. */
export type Reply = { ack: number } | { error: number; message: string } | { other: number };

export function parseReply(packet: Buffer): Reply {
  if (packet.length < 4) return { other: -1 };
  const op = packet.readUInt16BE(0);
  if (op === Op.ack) return { ack: packet.readUInt16BE(2) };
  if (op === Op.error) {
    const end = packet.indexOf(0, 4);
    return { error: packet.readUInt16BE(2), message: packet.toString('latin1', 4, end < 0 ? packet.length : end) };
  }
  return { other: op };
}
