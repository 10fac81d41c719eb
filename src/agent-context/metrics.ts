// A small Prometheus registry: counters that the service increments where the counted thing
// happens, gauges read when scraped, rendered as text exposition format 0.0.4 with HELP and TYPE
// for every family. Label sets are bounded by the caller (route patterns, fixed reasons).

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Readonly<Record<string, string>>;

export interface Counter {
  inc(labels?: Labels, by?: number): void;
}

/** A gauge's samples, computed at scrape time; an empty list emits no sample (unknown is not zero). */
export type GaugeRead = () => readonly { labels?: Labels; value: number }[];

interface Family {
  name: string;
  /** The HELP and TYPE lines, made once. */
  header: string;
  /** Sample lines at scrape time. */
  lines(): string[];
}

export interface MetricsRegistry {
  /** A counter; `name` must end in `_total`. `initial` label sets are exported at 0 before the first increment. */
  counter(name: string, help: string, initial?: readonly Labels[]): Counter;
  gauge(name: string, help: string, read: GaugeRead): void;
  render(): string;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

export function createMetricsRegistry(): MetricsRegistry {
  const families: Family[] = [];
  const add = (name: string, help: string, type: 'counter' | 'gauge', lines: () => string[]) => {
    if (!NAME.test(name)) throw new TypeError(`Metric name "${name}" is not a valid Prometheus name`);
    if (families.some((f) => f.name === name)) throw new TypeError(`Metric "${name}" is registered twice`);
    families.push({ name, header: `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}`, lines });
  };
  return {
    counter(name, help, initial = []) {
      if (!name.endsWith('_total')) throw new TypeError(`Counter "${name}" must end in "_total"`);
      // Keyed by the rendered label text, so a scrape formats nothing but the numbers.
      const values = new Map<string, number>();
      const inc = (labels: Labels = {}, by = 1) => {
        const key = labelText(labels);
        values.set(key, (values.get(key) ?? 0) + by);
      };
      for (const labels of initial) inc(labels, 0);
      add(name, help, 'counter', () => [...values].map(([key, value]) => `${name}${key} ${formatValue(value)}`));
      return { inc };
    },
    gauge(name, help, read) {
      add(name, help, 'gauge', () => read().map((sample) => `${name}${labelText(sample.labels ?? {})} ${formatValue(sample.value)}`));
    },
    render() {
      const lines: string[] = [];
      for (const family of families) lines.push(family.header, ...family.lines());
      return `${lines.join('\n')}\n`;
    },
  };
}

function labelText(labels: Labels): string {
  const entries = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
