// systemd-analyze for the unit tests: verify and security --offline of generated units.

import { spawnSync } from 'node:child_process';

export const INSTALL_HINT = 'systemd-analyze is not on PATH: run bash scripts/install_systemd_analyze.sh (apt-get install systemd)';

export function hasSystemdAnalyze(): boolean {
  return spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' }).status === 0;
}

/** `systemd-analyze verify` of the files: exit code and what it printed. */
export function verifyUnits(files: readonly string[]): { code: number | null; output: string } {
  const result = spawnSync('systemd-analyze', ['verify', ...files], { encoding: 'utf8' });
  return { code: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/** The overall exposure `systemd-analyze security --offline=true` gives a unit file. */
export function exposure(file: string): { score: number; output: string } {
  const result = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', file], { encoding: 'utf8' });
  const output = `${result.stdout}${result.stderr}`;
  const match = /Overall exposure level for \S+: (\d+\.\d+)/.exec(output);
  return { score: match ? Number(match[1]) : Number.NaN, output };
}
