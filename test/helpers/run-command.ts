// Runs a command spec in-process with captured stdout and stderr, as the executable would run it.

import { runCommand } from '../../src/kernel/index.ts';
import type { CommandSpec, OptionSpecs } from '../../src/kernel/index.ts';

export async function runCaptured<O extends OptionSpecs>(spec: CommandSpec<O>, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ status: number; stdout: string; stderr: string; json: any }> {
  let stdout = '';
  let stderr = '';
  const status = await runCommand(spec, argv, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { status, stdout, stderr, json };
}
