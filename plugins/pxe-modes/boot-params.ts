import type { ClientView } from '../inventory';

/** What the boot parameters need beyond the client record. */
export interface ParamContext {
  serverIp: string;
  /** The server's language, passed on as LANG (the reference passes its own LANG). */
  lang: string;
  /** First address of the client's repository, '' when it has none. */
  repoIp: string;
  /** Site screen setting: digits give `vga=`, anything else `video=`; '' means the default. */
  vga: string;
}

/** The kernel's video mode when nothing else is set, as the reference appends it. */
export const DEFAULT_VGA = '788';

/**
 * One kernel-parameter value: accented letters transliterated (á -> a, ñ -> n), control
 * characters (tabs, newlines) dropped, spaces turned into `_`. A newline in a client name
 * must not add a line to a boot menu, and a space would split the parameter.
 */
export function paramValue(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .replace(/\s+/g, '_');
}

/**
 * The reference's DATA string: the parameters the live image reads from its kernel command
 * line, each piece starting with a space. `vga=788` is added when no video mode is set.
 */
export function bootParameters(client: ClientView, ctx: ParamContext): string {
  const v = paramValue;
  const { room } = client;
  const ip = [client.ip, ctx.serverIp, room.gateway, room.netmask, client.name, client.netiface].map(v).join(':');
  const pieces = [
    `LANG=${v(ctx.lang)}`,
    `ip=${ip}:none`,
    `group=${v(room.name)}`,
    `ogrepo=${v(ctx.repoIp)}`,
    `oglive=${ctx.serverIp}`,
    `oglog=${ctx.serverIp}`,
    `ogshare=${ctx.serverIp}`,
    `oglivedir=${v(client.livedir)}`,
    'ogprof=false',
  ];
  if (v(room.ntp)) pieces.push(`ogntp=${v(room.ntp)}`);
  if (v(room.dns)) pieces.push(`ogdns=${v(room.dns)}`);
  const vga = v(ctx.vga);
  pieces.push(vga === '' || /^[0-9]+$/.test(vga) ? `vga=${vga || DEFAULT_VGA}` : `video=${vga}`);
  return pieces.map((p) => ` ${p}`).join('');
}

/** DATA without its `oglivedir=` token, for plain templates that set oglivedir themselves. */
export function withoutLivedir(data: string): string {
  return data.replace(/ oglivedir=\S*/g, '');
}
