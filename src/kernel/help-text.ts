// The --help text of a service executable, generated from its configuration spec so that
// every variable is listed with its description and default.

import type { ConfigSpec } from './config.ts';

/** "Environment:" and one aligned line per variable of `spec`. */
export function environmentHelp(spec: ConfigSpec): string {
  const rows = Object.entries(spec).map(([name, varSpec]) => {
    const fallback = 'default' in varSpec && varSpec.default !== undefined ? ` (default: ${Array.isArray(varSpec.default) ? varSpec.default.join(',') : String(varSpec.default)})` : '';
    const required = 'required' in varSpec && varSpec.required ? ' (required)' : '';
    const file = varSpec.type === 'secret' ? `; or ${name}_FILE` : '';
    return [name, `${varSpec.description}${file}${fallback}${required}`] as const;
  });
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return ['Environment:', ...rows.map(([name, text]) => `  ${name.padEnd(width)}${text}`)].join('\n');
}

/** Usage, summary, the environment block and closing notes. */
export function helpText(options: { usage: string; summary: string; spec: ConfigSpec; notes?: readonly string[] }): string {
  return [`Usage: ${options.usage}`, '', options.summary, '', environmentHelp(options.spec), ...(options.notes ? ['', ...options.notes] : []), ''].join('\n');
}
