/**
 * What udp-sender (Debian's udpcast 20120424) says as it runs, one fact per line. Started
 * without --log, it writes all of it to stderr, in order, as it happens (with --log and a
 * regular file it writes part of it there instead, with the time of day first, and the rest
 * to stderr). Progress lines end in a carriage return, not a newline. The lines read:
 *
 * ```
 * Udp-sender 20120424
 * Using mcast address 232.168.77.1
 * UDP sender for /var/lib/ogserve/images/win11.img at 192.168.77.1 on eth0
 * New connection from 192.168.77.13  (#0) 00000009
 * Starting transfer: 00000009
 * bytes=  3 098 368  re-xmits=0000000 (  0.0%) slice=0112 -   2
 * Timeout notAnswered=[0] notReady=[0] nrAns=2 nrRead=2 nrPart=3 avg=10000
 * Dropping client #0 because of timeout
 * Disconnecting #0 (192.168.77.13)
 * Transfer complete.
 * ```
 *
 * Anything else (an error before it exits: `No suitable network interface found`, `bind
 * socket to 192.168.77.1:9001 (Address already in use)`) is `other`, kept as the last words.
 */
export type SenderFact =
  | { kind: 'version'; version: string }
  | { kind: 'address'; address: string }
  | { kind: 'interface'; address: string; device: string }
  | { kind: 'joined'; ip: string; participant: number }
  | { kind: 'started' }
  | { kind: 'progress'; bytes: number; retransmits: number }
  | { kind: 'slow'; participants: number[] }
  | { kind: 'dropping'; participant: number; reason: string }
  | { kind: 'disconnected'; participant: number; ip: string }
  | { kind: 'complete' }
  | { kind: 'other'; text: string };

const stamp = /^\d{2}:\d{2}:\d{2}\.\d+ /;

const patterns: [RegExp, (m: RegExpExecArray) => SenderFact][] = [
  [/^Udp-sender (\S+)$/, (m) => ({ kind: 'version', version: m[1]! })],
  [/^Using mcast address (\S+)$/, (m) => ({ kind: 'address', address: m[1]! })],
  [/^UDP sender for .* at (\S+) on (\S+)$/, (m) => ({ kind: 'interface', address: m[1]!, device: m[2]! })],
  [/^New connection from (\S+)\s+\(#(\d+)\)/, (m) => ({ kind: 'joined', ip: m[1]!, participant: Number(m[2]) })],
  [/^Starting transfer:/, () => ({ kind: 'started' })],
  [
    /^bytes=\s*([\d ]+?)\s+re-xmits=(\d+)/,
    (m) => ({ kind: 'progress', bytes: Number(m[1]!.replace(/ /g, '')), retransmits: Number(m[2]) }),
  ],
  [
    /^Timeout notAnswered=\[([^\]]*)\] notReady=\[([^\]]*)\]/,
    (m) => ({ kind: 'slow', participants: [...new Set(`${m[1]},${m[2]}`.match(/\d+/g)?.map(Number) ?? [])] }),
  ],
  [/^Dropping client #(\d+) because of (\w+)/, (m) => ({ kind: 'dropping', participant: Number(m[1]), reason: m[2]! })],
  [/^Disconnecting #(\d+) \((\S+)\)/, (m) => ({ kind: 'disconnected', participant: Number(m[1]), ip: m[2]! })],
  [/^Transfer complete\./, () => ({ kind: 'complete' })],
];

/** Lines said for the operator only: no fact in them. */
const said =
  /^(Using full duplex mode|Using half duplex mode|Broadcasting control to|max wait\[|min receivers\[|first connection:|Ready\. Press)/;

/** A fact, with the time of day udp-sender wrote on its line (seconds since midnight) when it wrote one (its --log file's lines). */
export type StampedFact = SenderFact & { stamp?: number };

/** The fact one line says; undefined for an empty line or one that says nothing to follow. */
export function readLine(raw: string): StampedFact | undefined {
  const text = raw.replace(/\x07/g, '').trim();
  const time = stamp.exec(text);
  const line = text.replace(stamp, '').trim();
  if (line === '' || said.test(line)) return undefined;
  const at = time ? { stamp: secondsOfDay(time[0]) } : {};
  for (const [pattern, fact] of patterns) {
    const m = pattern.exec(line);
    if (m) return { ...fact(m), ...at };
  }
  return { kind: 'other', text: line.slice(0, 300), ...at };
}

/** `09:05:10.430981 ` -> 32710.430981 */
function secondsOfDay(text: string): number {
  const [h, m, s] = text.trim().split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
}

/**
 * Cuts a byte stream into lines at newlines and carriage returns (progress lines end in
 * `\r`). Lines longer than `max` characters are cut there: udp-sender writes none, and a
 * runaway program must not grow the buffer.
 */
export class LineSplitter {
  private pending = '';

  constructor(
    private readonly line: (text: string) => void,
    private readonly max = 4096,
  ) {}

  push(chunk: string): void {
    const parts = (this.pending + chunk).split(/[\r\n]/);
    this.pending = parts.pop() ?? '';
    if (this.pending.length > this.max) {
      parts.push(this.pending.slice(0, this.max));
      this.pending = '';
    }
    for (const part of parts) if (part !== '') this.line(part);
  }

  end(): void {
    if (this.pending !== '') this.line(this.pending);
    this.pending = '';
  }
}
