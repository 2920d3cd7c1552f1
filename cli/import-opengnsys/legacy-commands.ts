/**
 * The reference's stored command text (procedure steps, queued actions): `nfn=<function>`
 * and `key=value` fields separated by carriage returns, as its src/legacy.c writes them and
 * the old web console wrote before it. Read back here into the scheduler's command names
 * and params, the shape of a REST step; checking the params is the scheduler's job.
 */
export type Decoded = { ok: true; command: string; params: Record<string, unknown> } | { ok: false; reason: string };

type Fields = Record<string, string>;

/** The reference stores `broadcast` as mar=1 and anything else as 2. */
const wakeTypes: Record<string, string> = { '1': 'broadcast', '2': 'unicast' };

const decoders: Record<string, (f: Fields) => Decoded | { command: string; params: Record<string, unknown> }> = {
  Arrancar: (f) => ({ command: 'wol', params: { type: wakeTypes[f.mar ?? '1'] ?? f.mar } }),
  Apagar: () => ({ command: 'poweroff', params: {} }),
  Reiniciar: () => ({ command: 'reboot', params: {} }),
  Actualizar: () => ({ command: 'refresh', params: {} }),
  Purgar: () => ({ command: 'stop', params: {} }),
  InventarioHardware: () => ({ command: 'hardware', params: {} }),
  InventarioSoftware: (f) => ({ command: 'software', params: defined({ disk: f.dsk, partition: f.par }) }),
  IniciarSesion: (f) => ({ command: 'session', params: defined({ disk: f.dsk, part: f.par }) }),
  EjecutarScript: (f) => ({ command: 'run', params: defined({ run: f.scp }) }),
  CrearImagen: (f) => ({
    command: 'image_create',
    params: defined({ disk: f.dsk, partition: f.par, code: f.cpt, id: f.idi, name: f.nci, repository: f.ipr }),
  }),
  RestaurarImagen: (f) => ({
    command: 'image_restore',
    params: defined({ disk: f.dsk, partition: f.par, id: f.idi, name: f.nci, repository: f.ipr, profile: f.ifs || undefined, type: f.ptc }),
  }),
  Configurar: setup,
};

/**
 * Decode one stored command. `catalogueFunction` is the function the row's `idcomando`
 * names in the `comandos` table, used when the text carries no `nfn`.
 */
export function decodeLegacyCommand(text: string, catalogueFunction: string | null = null): Decoded {
  const fields = readFields(text);
  const name = fields.nfn ?? catalogueFunction ?? '';
  const decoder = Object.hasOwn(decoders, name) ? decoders[name] : undefined;
  if (!decoder) {
    return {
      ok: false,
      reason: name === '' ? 'the step names no command (no nfn= in its text)' : `'${name}' is a command ogserve does not run`,
    };
  }
  const decoded = decoder(fields);
  return 'ok' in decoded ? decoded : { ok: true, ...decoded };
}

/** `key=value` fields; a script (`scp=`) runs to the end of the text, carriage returns and all. */
function readFields(text: string): Fields {
  const fields: Fields = {};
  const parts = text.split('\r');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq);
    if (key === 'scp') {
      fields.scp = [part.slice(eq + 1), ...parts.slice(i + 1)].join('\r');
      break;
    }
    fields[key] = part.slice(eq + 1);
  }
  return fields;
}

/**
 * `ttp=<table type> dsk=<disk> cfg=dis=<disk>*che=<cache>*tch=<cache size>!` then per partition
 * `par=<n>*cpt=<code>*sfi=<filesystem>*tam=<size>*ope=<format>%`.
 */
function setup(f: Fields): Decoded {
  const cfg = f.cfg ?? '';
  const bang = cfg.indexOf('!');
  if (bang < 0) return { ok: false, reason: "the setup step's cfg= has no '!' after its disk part" };
  const head = starFields(cfg.slice(0, bang));
  const partitions = cfg
    .slice(bang + 1)
    .split('%')
    .filter((p) => p !== '')
    .map(starFields)
    .map((p) => defined({ partition: p.par, code: p.cpt, filesystem: p.sfi, size: p.tam, format: p.ope }));
  return {
    ok: true,
    command: 'setup',
    params: defined({ type: f.ttp, disk: f.dsk ?? head.dis, cache: head.che, cache_size: head.tch, partition_setup: partitions }),
  };
}

function starFields(text: string): Fields {
  const fields: Fields = {};
  for (const pair of text.split('*')) {
    const eq = pair.indexOf('=');
    if (eq > 0) fields[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return fields;
}

/** Params without the keys the text did not carry: a missing one is the scheduler's to name. */
function defined(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
}
