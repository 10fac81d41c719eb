// n8n_expert (the seed's `python -m n8n_expert`): checks workflow automation exports that call
// our services. Exit 0 when every check passes, 1 on a finding, 2 when a file cannot be read or
// is not a workflow export.

import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK, readFileBounded, usageError } from '../../src/kernel/index.ts';
import { CHECKS, checkWorkflows, DEFAULT_CALLBACK_MARKERS, readWorkflowExports } from '../../src/messaging/n8n-checks.ts';
import type { WorkflowExport } from '../../src/messaging/n8n-checks.ts';

/** n8n workflow exports are kilobytes to a few megabytes; a bigger file is not one (and /dev/zero must not hang). */
const MAX_EXPORT_BYTES = 16 * 1024 * 1024;

export const n8nExpertCommand = defineCommand({
  name: 'n8n_expert',
  summary: 'Checks n8n workflow exports: node names unique, connections point at existing nodes, no credentials inline, webhook paths unique, our callback URLs signed',
  positionals: '[check] FILE...',
  description: [
    `Checks: ${CHECKS.join(', ')}. Webhook paths must be unique across all FILEs given.`,
    'A FILE is one workflow (the editor\'s download, n8n export:workflow --separate or --backup) or the JSON array n8n export:workflow --all writes.',
    'Credentials: a password-, token-, secret- or key-named parameter or header (key-value lists, JSON headers such as jsonHeaders) holding a literal; an "=" value without {{ }} is a literal too.',
    `A callback to our service is an HTTP Request node whose URL contains ${DEFAULT_CALLBACK_MARKERS.join(' or ')} (or a --callback-marker); it must send X-Signature (computed by an expression) and X-Signature-Timestamp.`,
  ].join('\n'),
  options: {
    'callback-marker': { type: 'string', multiple: true, description: 'Another URL fragment that marks a callback to our services', valueName: 'TEXT' },
  },
  async run({ values, positionals, json, print, printJson }) {
    const files = positionals[0] === 'check' ? positionals.slice(1) : positionals;
    if (files.length === 0) usageError('Name at least one workflow export FILE');
    const workflows: WorkflowExport[] = [];
    for (const file of files) {
      const loaded = readFileBounded(file, MAX_EXPORT_BYTES);
      if (!loaded.ok && loaded.reason === 'unreadable') throw new AirlockError('environment', `Cannot read "${file}": ${loaded.code}`);
      if (!loaded.ok) throw new AirlockError('environment', `"${file}" is larger than ${MAX_EXPORT_BYTES} bytes: not a workflow export`);
      const text = loaded.bytes.toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new AirlockError('environment', `"${file}" is not JSON: ${(error as Error).message}`);
      }
      const read = readWorkflowExports(file, parsed);
      if (!read.workflows) throw new AirlockError('environment', `"${file}": ${read.problem}`);
      workflows.push(...read.workflows);
    }
    const findings = checkWorkflows(workflows, { callbackMarkers: [...DEFAULT_CALLBACK_MARKERS, ...(values['callback-marker'] ?? [])] });
    if (json) printJson({ ok: findings.length === 0, checks: CHECKS, files: workflows.map((w) => ({ file: w.file, workflow: w.name, nodes: w.nodes.length })), findings });
    else {
      for (const f of findings) print(`FAIL ${f.check} ${f.file}${f.node ? ` node "${f.node}"` : ''}: ${f.message}`);
      print(findings.length === 0 ? `ok: ${workflows.length} export(s), ${CHECKS.length} checks passed` : `${findings.length} finding(s)`);
    }
    return findings.length === 0 ? EXIT_OK : EXIT_FAILED;
  },
});

