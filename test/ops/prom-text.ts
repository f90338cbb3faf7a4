// A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be a
// HELP, a TYPE or a sample of a declared metric, or the parse fails. Values as Prometheus reads
// them (Go's ParseFloat: NaN and Inf in any case, as prom-client writes `Nan`).
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? ([+-]?(?:\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?|inf|nan))(?: -?\\d+)?$`, 'i');
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);

export function parsePrometheusText(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    let m: RegExpExecArray | null;
    if ((m = HELP.exec(line))) return;
    if ((m = TYPE.exec(line))) {
      if (types.has(m[1])) throw new Error(`line ${i + 1}: second TYPE for ${m[1]}`);
      types.set(m[1], m[2]);
      return;
    }
    if (!(m = SAMPLE.exec(line))) throw new Error(`line ${i + 1} is not valid exposition text: ${line}`);
    const name = m[1];
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count|total|created)$/, '');
    if (!types.has(family) && !types.has(name)) throw new Error(`line ${i + 1}: sample of undeclared metric ${name}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]] = l[2].replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    const v = m[3];
    const lower = v.toLowerCase();
    samples.push({ name, labels, value: lower === 'nan' ? NaN : /inf$/.test(lower) ? (v.startsWith('-') ? -Infinity : Infinity) : Number(v) });
  });
  return { types, samples };
}

/** The value of the one sample with this name and (at least) these labels; 0 when absent. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const hits = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return hits[0]?.value ?? 0;
}
