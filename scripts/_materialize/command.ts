// The materialize_mail_admission command: reads the mail-admission source at a commit of main,
// validates it, and shows (preview, the default) or writes (--apply) the materialized file.

import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, usageError, writeFileAtomic } from '../../src/kernel/index.ts';
import type { CommandContext, OptionSpecs } from '../../src/kernel/index.ts';
import { checkAdmissionSource, renderMaterialized } from './admission-source.ts';
import { runGit } from './git.ts';
import { lineDiff } from './line-diff.ts';
import { verifyTarget } from './verify-target.ts';

export const DEFAULT_SOURCE = 'configs/mail-admission.json';
export const OUTPUT_FILE_NAME = 'mail-admission.json';

const DESCRIPTION = `Reads the mail-admission source (JSON: admitted sender domains and mailboxes with their scopes)
at commit --target of repository --repo, validates it and materializes it into --output.

Preview is the default: it prints the diff between the current output and what would be written,
and changes nothing. --apply writes the file atomically. Either way the target must be an exact
40-character commit id that git finds in the repository and that branch main (refs/heads/main)
contains.

Exit codes: 0 previewed or applied; 1 the target is not admissible (unknown commit, not on main,
source missing or invalid at that commit); 2 usage or environment error (missing or abbreviated
--target, not a git repository, no main branch, bad --source, output not writable).`;

/** Builds the command; the script passes nothing. */
export function createMaterializeCommand() {
  return defineCommand({
    name: 'materialize_mail_admission',
    summary: 'Previews or applies the mail-admission file materialized from a commit of main',
    description: DESCRIPTION,
    options: {
      repo: { type: 'string', valueName: 'DIR', default: '.', description: 'The git repository holding the source' },
      target: { type: 'string', valueName: 'SHA', description: 'The exact 40-character commit of main to materialize (required)' },
      source: { type: 'string', valueName: 'PATH', default: DEFAULT_SOURCE, description: 'Path of the source file inside the repository' },
      output: { type: 'string', valueName: 'FILE', description: `Materialized file (default: $AIRLOCK_DATA_DIR/${OUTPUT_FILE_NAME}, AIRLOCK_DATA_DIR defaulting to ./var)` },
      apply: { type: 'boolean', description: 'Write the file; without it nothing is changed' },
    },
    run(context) {
      const { values, io } = context;
      const apply = values.apply === true;
      const mode = apply ? 'apply' : 'preview';
      if (values.target === undefined) usageError('Missing --target: name the exact 40-character commit of main to materialize');
      const sourcePath = checkSourcePath(values.source);
      const repo = resolve(values.repo);
      const output = resolve(values.output ?? join(io.env['AIRLOCK_DATA_DIR'] ?? './var', OUTPUT_FILE_NAME));
      const refuse = (exitCode: number, reasons: string[]) => report(context, exitCode, { ok: false, mode, repo, target: values.target, source: sourcePath, output, reasons });

      const verdict = verifyTarget(repo, values.target);
      if (!verdict.ok) return refuse(verdict.exitCode, verdict.reasons);
      const blob = runGit(repo, ['cat-file', 'blob', `${verdict.commit}:${sourcePath}`]);
      if (blob.status !== 0) return refuse(EXIT_FAILED, [`Source "${sourcePath}" does not exist as a file at commit "${verdict.commit}"`]);
      const checked = checkAdmissionSource(blob.stdout.toString('utf8'));
      if (!checked.ok) return refuse(EXIT_FAILED, checked.reasons.map((r) => `Source "${sourcePath}" at "${verdict.commit}" is invalid: ${r}`));

      const next = renderMaterialized(checked.admissions, { commit: verdict.commit, path: sourcePath, sha256: createHash('sha256').update(blob.stdout).digest('hex') });
      const exists = existsSync(output);
      const current = exists ? readCurrent(output) : '';
      const diff = lineDiff(current, next);
      const changed = diff.length > 0;
      if (apply && changed) {
        try {
          writeFileAtomic(output, next);
        } catch (error) {
          throw new AirlockError('environment', `Cannot write "${output}": ${(error as Error).message}`, { cause: error });
        }
      }
      const result = { ok: true, mode, repo, target: verdict.commit, source: sourcePath, output, admissions: checked.admissions.length, changed, written: apply && changed, diff };
      if (context.json) {
        context.printJson(result);
        return EXIT_OK;
      }
      context.print(`target ${verdict.commit} is on main of ${repo}; ${sourcePath} admits ${checked.admissions.length} sender${checked.admissions.length === 1 ? '' : 's'}`);
      if (!changed) context.print(`${output} is up to date: nothing to ${apply ? 'write' : 'change'}`);
      else if (apply) context.print(`wrote ${output}${exists ? '' : ' (new file)'}`);
      else {
        context.print(`preview: ${output} would ${exists ? 'change' : 'be created'}:`);
        for (const line of diff) context.print(line);
        context.print('nothing written: run again with --apply to write it');
      }
      return EXIT_OK;
    },
  });
}

function checkSourcePath(path: string): string {
  const segments = path.split('/');
  if (path === '' || path.startsWith('/') || path.includes('\\') || segments.some((s) => s === '..' || s === '' || s === '.')) {
    usageError(`Invalid --source "${path}": a relative path inside the repository, like "${DEFAULT_SOURCE}"`);
  }
  return path;
}

function readCurrent(output: string): string {
  try {
    return readFileSync(output, 'utf8');
  } catch (error) {
    throw new AirlockError('environment', `Cannot read "${output}": ${(error as Error).message}`, { cause: error });
  }
}

function report(context: CommandContext<OptionSpecs>, exitCode: number, result: { reasons: string[] } & Record<string, unknown>): number {
  if (context.json) context.printJson(result);
  for (const reason of result.reasons) context.io.stderr.write(`materialize_mail_admission: ${reason}\n`);
  return exitCode === EXIT_USAGE ? EXIT_USAGE : EXIT_FAILED;
}
