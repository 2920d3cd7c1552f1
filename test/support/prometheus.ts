/**
 * A strict reader of the Prometheus text format (0.0.4): every line must be a HELP or TYPE
 * comment, blank, or a sample `name{label="value",...} value`; anything else throws, so a
 * malformed exposition fails the test that reads it.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
  /** The value of the one sample with this name and these labels (others may exist), or undefined. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Sum over every sample with this name whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?[0-9.eE+-]+|[Nn][Aa][Nn]|[+-]?[Ii]nf)( -?[0-9]+)?$/;
const labelPair = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/;

export function parsePrometheus(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (!name || !['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type ?? ''))
        throw new Error(`line ${i + 1}: bad TYPE: ${line}`);
      types.set(name, type!);
      continue;
    }
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`line ${i + 1}: not a sample: ${line}`);
    const labels: Record<string, string> = {};
    let rest = match[3] ?? '';
    while (rest.length > 0) {
      const pair = labelPair.exec(rest);
      if (!pair) throw new Error(`line ${i + 1}: bad labels: ${match[3]}`);
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(pair[0].length);
    }
    const raw = match[4]!;
    // Prometheus reads NaN and Inf in any case (Go's ParseFloat), as prom-client writes them.
    const special = raw.toLowerCase();
    const value = special === 'nan' ? Number.NaN : special.endsWith('inf') ? (special.startsWith('-') ? -Infinity : Infinity) : Number(raw);
    samples.push({ name: match[1]!, labels, value });
  }
  const includes = (sample: Sample, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => sample.labels[k] === v);
  return {
    samples,
    types,
    value: (name, labels = {}) => samples.find((s) => s.name === name && includes(s, labels))?.value,
    sum: (name, labels = {}) => samples.filter((s) => s.name === name && includes(s, labels)).reduce((total, s) => total + s.value, 0),
  };
}
