// Typed configuration from environment variables. A spec names every variable once; reading it
// reports every missing or invalid variable together, so an operator fixes them in one pass.
// Secrets come from NAME or from the file named by NAME_FILE, never both.

import { readFileSync } from 'node:fs';
import { AirlockError } from './errors.ts';

export interface ListenAddress {
  host: string;
  port: number;
}

interface Common {
  description: string;
}

export type VarSpec =
  | (Common & { type: 'string'; default?: string; required?: boolean })
  | (Common & { type: 'secret'; required?: boolean })
  | (Common & { type: 'int'; default?: number; min?: number; max?: number })
  | (Common & { type: 'boolean'; default?: boolean })
  | (Common & { type: 'enum'; values: readonly string[]; default?: string })
  | (Common & { type: 'listen'; default: string })
  | (Common & { type: 'url'; default?: string; required?: boolean })
  | (Common & { type: 'list'; default?: readonly string[] });

export type ConfigSpec = Record<string, VarSpec>;

type Present<S> = S extends { default: unknown } ? true : S extends { required: true } ? true : false;

type Base<S extends VarSpec> = S extends { type: 'int' }
  ? number
  : S extends { type: 'boolean' }
    ? boolean
    : S extends { type: 'listen' }
      ? ListenAddress
      : S extends { type: 'list' }
        ? string[]
        : S extends { type: 'enum'; values: readonly (infer V)[] }
          ? V
          : string;

/** The values read for a spec: a variable with a default or `required` is always present. */
export type ConfigValues<S extends ConfigSpec> = {
  [K in keyof S]: Present<S[K]> extends true ? Base<S[K]> : Base<S[K]> | undefined;
};

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/**
 * Reads every variable of `spec` from `env`; throws one AirlockError('config_invalid') whose
 * `details` list each problem.
 *
 * @example
 * const config = readConfig({ SEMANTIC_LISTEN: { type: 'listen', default: '127.0.0.1:18020', description: '...' } });
 * config.SEMANTIC_LISTEN.port; // 18020
 */
export function readConfig<S extends ConfigSpec>(spec: S, env: NodeJS.ProcessEnv = process.env): ConfigValues<S> {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, varSpec] of Object.entries(spec)) {
    const result = readOne(name, varSpec, env);
    if (typeof result === 'object' && result !== null && 'problem' in result) problems.push(`${name}: ${result.problem}`);
    else values[name] = result;
  }
  if (problems.length > 0) {
    const noun = problems.length === 1 ? 'problem' : 'problems';
    throw new AirlockError('config_invalid', `Invalid configuration: ${problems.length} ${noun}`, { details: problems });
  }
  return values as ConfigValues<S>;
}

/** The values of every `secret` variable of `spec` that was set, for log redaction. */
export function secretValues(spec: ConfigSpec, values: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [name, varSpec] of Object.entries(spec)) {
    const value = values[name];
    if (varSpec.type === 'secret' && typeof value === 'string') out.push(value, ...value.split(',').map((v) => v.trim()));
  }
  return out;
}

type Problem = { problem: string };

function readOne(name: string, spec: VarSpec, env: NodeJS.ProcessEnv): unknown | Problem {
  if (spec.type === 'secret') return readSecret(name, spec.required === true, env);
  const raw = env[name];
  if (raw === undefined || raw === '') {
    if ('default' in spec && spec.default !== undefined) return parseValue(spec, String(spec.default), true);
    if ('required' in spec && spec.required) return { problem: `missing; ${spec.description}` };
    return undefined;
  }
  return parseValue(spec, raw, false);
}

function readSecret(name: string, required: boolean, env: NodeJS.ProcessEnv): string | undefined | Problem {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (direct && file) return { problem: `set both directly and as ${name}_FILE; keep one` };
  if (file) {
    try {
      const text = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      return text === '' ? { problem: `file "${file}" named by ${name}_FILE is empty` } : text;
    } catch (error) {
      return { problem: `cannot read file "${file}" named by ${name}_FILE: ${(error as NodeJS.ErrnoException).code ?? 'error'}` };
    }
  }
  if (direct) return direct;
  return required ? { problem: `missing; set ${name} or ${name}_FILE` } : undefined;
}

function parseValue(spec: Exclude<VarSpec, { type: 'secret' }>, raw: string, isDefault: boolean): unknown | Problem {
  const shown = isDefault ? `default "${raw}"` : `"${raw}"`;
  switch (spec.type) {
    case 'string':
      return raw;
    case 'int': {
      if (!/^-?\d+$/.test(raw)) return { problem: `${shown} is not a whole number` };
      const n = Number(raw);
      if (spec.min !== undefined && n < spec.min) return { problem: `${shown} is below the minimum ${spec.min}` };
      if (spec.max !== undefined && n > spec.max) return { problem: `${shown} is above the maximum ${spec.max}` };
      return n;
    }
    case 'boolean': {
      const word = raw.toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return { problem: `${shown} is not a boolean: use 1/0, true/false, yes/no or on/off` };
    }
    case 'enum':
      return spec.values.includes(raw) ? raw : { problem: `${shown} is not one of ${spec.values.join(', ')}` };
    case 'listen': {
      const address = parseListenAddress(raw);
      return address ?? { problem: `${shown} is not host:port with a port from 0 to 65535` };
    }
    case 'url':
      return URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol) ? raw.replace(/\/+$/, '') : { problem: `${shown} is not an http(s) URL` };
    case 'list':
      return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  }
}

/** Parses "host:port", "[v6]:port" or ":port" (meaning 127.0.0.1); undefined when malformed. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]*)):(\d{1,5})$/.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  const host = match[1] ?? (match[2] === '' ? '127.0.0.1' : match[2]!);
  return { host, port };
}
