/**
 * ISC dhcpd.conf, read for what a site moving to ogserve takes from it: its `host` blocks
 * (a PC's MAC, address and name) and its `subnet` declarations (networks and routers).
 * Everything else (options, pools, classes, failover, conditionals) is read over and left.
 * Pure: no Node module, so the console and the server can share it.
 */

/** A `host` block: what it says, by the line it begins on; `refusal` when it cannot become a client. */
export interface DhcpdHost {
  line: number;
  /** The block's own name (`host pc-12 {`). */
  block: string;
  /** `option host-name`, else the block's name. */
  name: string;
  /** `hardware ethernet`, as 12 lower-case hex digits in pairs with colons; '' when there is none. */
  mac: string;
  /** `fixed-address`; '' when there is none. */
  ip: string;
  refusal?: DhcpdRefusal;
}

/** Why a host (or a statement) is not taken: the client field at fault, and a sentence. */
export interface DhcpdRefusal {
  error: 'missing_field' | 'invalid_field';
  field: 'mac' | 'ip' | 'name' | 'conf';
  message: string;
}

export interface DhcpdSubnet {
  line: number;
  network: string;
  netmask: string;
  /** `option routers`, first address; '' when the subnet names none. */
  router: string;
}

/** A statement refused on its own (an `include`): its line and why. */
export interface DhcpdStatement {
  line: number;
  refusal: DhcpdRefusal;
}

export interface DhcpdConf {
  hosts: DhcpdHost[];
  subnets: DhcpdSubnet[];
  refused: DhcpdStatement[];
}

/** A text that is not dhcpd.conf at all (an unclosed brace or quote): the line it was noticed on. */
export class DhcpdSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'DhcpdSyntaxError';
  }
}

/** A text that holds a `host NAME {` block: the console's paste tells dhcpd.conf from CSV by it. */
export const looksLikeDhcpdConf = (text: string): boolean => /(^|[\s{;])host\s+[^\s{;]+\s*\{/m.test(text);

/**
 * How deep blocks may nest. A real file nests a few (shared-network, subnet, pool, group,
 * host, a conditional); the parser reads blocks recursively, so a file nesting thousands
 * would overflow the stack: it is refused at the line of the block past this.
 */
const MAX_BLOCK_DEPTH = 64;

interface Token {
  text: string;
  line: number;
  quoted: boolean;
}

/** A statement: its words up to `;`, or up to `{` with the statements of its block. */
interface Statement {
  line: number;
  words: Token[];
  block?: Statement[];
}

export function parseDhcpdConf(text: string): DhcpdConf {
  const conf: DhcpdConf = { hosts: [], subnets: [], refused: [] };
  walk(statements(tokens(text)), conf);
  return conf;
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '"') {
      const start = line;
      let value = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        if (text[i] === '\n') line++;
        value += text[i];
        i++;
      }
      if (i >= text.length) throw new DhcpdSyntaxError(start, 'a quoted string is not closed');
      i++;
      out.push({ text: value, line: start, quoted: true });
    } else if ('{};,'.includes(c)) {
      out.push({ text: c, line, quoted: false });
      i++;
    } else {
      const start = i;
      while (i < text.length && !/[\s{};,"#]/.test(text[i]!)) i++;
      out.push({ text: text.slice(start, i), line, quoted: false });
    }
  }
  return out;
}

function statements(list: Token[]): Statement[] {
  let at = 0;
  const read = (depth: number, opening?: Token): Statement[] => {
    if (depth > MAX_BLOCK_DEPTH)
      throw new DhcpdSyntaxError(opening!.line, `blocks nest more than ${MAX_BLOCK_DEPTH} deep here (a real dhcpd.conf nests a few)`);
    const block: Statement[] = [];
    let words: Token[] = [];
    while (at < list.length) {
      const token = list[at++]!;
      const punct = !token.quoted && token.text;
      if (punct === ';') {
        if (words.length > 0) block.push({ line: words[0]!.line, words });
        words = [];
      } else if (punct === '{') {
        const line = words[0]?.line ?? token.line;
        block.push({ line, words, block: read(depth + 1, token) });
        words = [];
      } else if (punct === '}') {
        if (!opening) throw new DhcpdSyntaxError(token.line, "a '}' closes no block");
        if (words.length > 0) throw new DhcpdSyntaxError(words[0]!.line, `'${words.map((w) => w.text).join(' ')}' lacks its ';'`);
        return block;
      } else {
        words.push(token);
      }
    }
    if (opening) throw new DhcpdSyntaxError(opening.line, "the block opened here is not closed: a '}' is missing");
    if (words.length > 0) throw new DhcpdSyntaxError(words[0]!.line, `'${words.map((w) => w.text).join(' ')}' lacks its ';'`);
    return block;
  };
  return read(0);
}

function walk(block: Statement[], conf: DhcpdConf): void {
  for (const statement of block) {
    const [keyword, ...rest] = statement.words.map((w) => (w.quoted ? w.text : w.text.toLowerCase()));
    if (keyword === 'include') {
      const file = statement.words[1]?.text ?? '';
      conf.refused.push({
        line: statement.line,
        refusal: {
          error: 'invalid_field',
          field: 'conf',
          message: `include "${file}" is not followed: import that file too (its hosts are not in this one)`,
        },
      });
    } else if (keyword === 'host' && statement.block) {
      conf.hosts.push(host(statement));
    } else if (keyword === 'subnet' && rest[1] === 'netmask') {
      conf.subnets.push({
        line: statement.line,
        network: statement.words[1]!.text,
        netmask: statement.words[3]?.text ?? '',
        router: firstOption(statement.block ?? [], 'routers'),
      });
    }
    if (statement.block && keyword !== 'host') walk(statement.block, conf);
  }
}

function host(statement: Statement): DhcpdHost {
  const block = statement.words[1]?.text ?? '';
  const found: DhcpdHost = { line: statement.line, block, name: block, mac: '', ip: '' };
  const refusals: DhcpdRefusal[] = [];
  for (const inner of statement.block ?? []) {
    const words = inner.words.map((w) => w.text);
    const keyword = words[0]?.toLowerCase();
    if (keyword === 'hardware') {
      if (words[1]?.toLowerCase() !== 'ethernet')
        refusals.push(invalid('mac', `hardware ${words[1] ?? ''} (line ${inner.line}): only 'hardware ethernet' names a PC's card`));
      else {
        const mac = macOf(words[2] ?? '');
        if (mac) found.mac = mac;
        else refusals.push(invalid('mac', `hardware ethernet '${words[2] ?? ''}' (line ${inner.line}) is not a MAC address`));
      }
    } else if (keyword === 'fixed-address') {
      const addresses = words.slice(1).filter((w) => w !== ',');
      if (addresses.length !== 1)
        refusals.push(invalid('ip', `fixed-address names ${addresses.length} addresses (line ${inner.line}); a client has one`));
      else if (!isDottedQuad(addresses[0]!))
        refusals.push(
          invalid('ip', `fixed-address '${addresses[0]}' (line ${inner.line}) is a host name: ogserve needs the PC's IPv4 address`),
        );
      else found.ip = addresses[0]!;
    } else if (keyword === 'option' && words[1]?.toLowerCase() === 'host-name' && words[2]) {
      found.name = words[2];
    }
  }
  if (!found.mac && refusals.every((r) => r.field !== 'mac'))
    refusals.push({ error: 'missing_field', field: 'mac', message: `host ${block} has no 'hardware ethernet'` });
  if (!found.ip && refusals.every((r) => r.field !== 'ip'))
    refusals.push({ error: 'missing_field', field: 'ip', message: `host ${block} has no 'fixed-address'` });
  if (refusals.length > 0) found.refusal = refusals[0];
  return found;
}

const invalid = (field: DhcpdRefusal['field'], message: string): DhcpdRefusal => ({ error: 'invalid_field', field, message });

/** The first address of `option NAME a, b;` among a block's own statements. */
function firstOption(block: Statement[], name: string): string {
  for (const s of block)
    if (s.words[0]?.text.toLowerCase() === 'option' && s.words[1]?.text.toLowerCase() === name) return s.words[2]?.text ?? '';
  return '';
}

/** 6 octets of 1 or 2 hex digits, separated by colons or dashes (dhcpd prints 0:1a:2:...), as aa:bb:cc:dd:ee:ff. */
function macOf(text: string): string | undefined {
  const octets = text.split(/[:-]/);
  if (octets.length !== 6 || !octets.every((o) => /^[0-9a-fA-F]{1,2}$/.test(o))) return undefined;
  return octets.map((o) => o.toLowerCase().padStart(2, '0')).join(':');
}

function isDottedQuad(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}
