// verify_ts05_retrieval_gates: verifies the retrieval-gate receipt. Only at activation stage
// S1_read_only is a runtime-owner receipt evaluated, and it promotes runtime evidence only when it
// is complete; anything less is "not promoted" with each missing item listed (exit 1). The
// deprecated --metrics-file is still parsed, and never promotes.

import { defineCommand, EXIT_FAILED, EXIT_OK, main, usageError } from '../src/kernel/index.ts';
import { ACTIVATION_STAGES } from '../src/semantic/index.ts';
import { readJsonAt } from './_semantic/json-file.ts';
import { EVALUATED_STAGE, RECEIPT_KIND, RECEIPT_VERSION, REDACTION_POSTURES, RUNTIME_METRICS, evaluateRetrievalGate } from './_semantic/retrieval-gates.ts';

const DEPRECATION = '--metrics-file is deprecated: its metrics are reported but never promote evidence; give --runtime-owner-receipt-file';

const command = defineCommand({
  name: 'verify_ts05_retrieval_gates',
  summary: 'Verifies the retrieval-gate receipt: runtime evidence is promoted only from a complete runtime-owner receipt at S1_read_only',
  description: [
    `The receipt is evaluated only when the stage is ${EVALUATED_STAGE}. Its identity is checked first: "receipt": "${RECEIPT_KIND}",`,
    `"version": ${RECEIPT_VERSION} and "stage": "${EVALUATED_STAGE}"; anything else is read no further. It promotes evidence when it names runtime_owner and`,
    `environment, source_id, run_id and receipt_id, a redaction_posture (${REDACTION_POSTURES.join(', ')}), composed_result`,
    `{"executed": true, "reference": ...}, and every metric of metrics: ${RUNTIME_METRICS.join(', ')}.`,
    'Anything less is not promoted (exit 1) and each missing item is listed. S0 fixture fields (synthetic, fixture,',
    'composed_result_executed) never promote. A missing metric is reported unavailable, never zero. No quality threshold is',
    'judged: the seed sets none. --metrics-file is deprecated: parsed and reported, never promoted.',
  ].join('\n'),
  options: {
    stage: { type: 'string', valueName: 'STAGE', description: 'Activation stage of the runtime (default: $SEMANTIC_ACTIVATION_STAGE, else S0)' },
    'runtime-owner-receipt-file': { type: 'string', valueName: 'FILE', description: 'The runtime-owner receipt (JSON) to evaluate' },
    'metrics-file': { type: 'string', valueName: 'FILE', description: 'Deprecated: a JSON object of metrics; parsed, never promotes' },
  },
  run({ values, json, io, print, printJson }) {
    const stage = values.stage ?? io.env['SEMANTIC_ACTIVATION_STAGE'] ?? 'S0';
    if (!(ACTIVATION_STAGES as readonly string[]).includes(stage)) usageError(`Unknown stage "${stage}": use ${ACTIVATION_STAGES.join(', ')}`);
    const receiptPath = values['runtime-owner-receipt-file'];
    const metricsPath = values['metrics-file'];
    const receipt = receiptPath === undefined ? undefined : readJsonAt(receiptPath, 'runtime-owner receipt');
    const metricsFile = metricsPath === undefined ? undefined : readJsonAt(metricsPath, 'metrics file');
    if (metricsFile !== undefined) io.stderr.write(`verify_ts05_retrieval_gates: ${DEPRECATION}\n`);
    const verdict = evaluateRetrievalGate({ stage, ...(receipt && { receipt: receipt.doc }), ...(metricsFile && { metricsFile: metricsFile.doc }) });
    if (json) {
      printJson({
        ok: verdict.promoted,
        ...verdict,
        receipt_file: receipt ? { path: receiptPath, sha256: receipt.sha256 } : null,
        deprecations: metricsFile ? [DEPRECATION] : [],
      });
    } else {
      print(`stage ${stage}: ${verdict.evaluated ? 'runtime-owner receipt evaluated' : 'no runtime-owner receipt evaluated'}`);
      for (const [name, value] of Object.entries(verdict.metrics)) print(`  ${name}: ${value.status === 'available' ? value.value : `unavailable (${value.reason})`}`);
      if (verdict.deprecated_metrics_file) print('  --metrics-file parsed (deprecated): never promotes');
      if (verdict.promoted) print('PROMOTED: runtime evidence from the runtime-owner receipt');
      else {
        print(`NOT PROMOTED: ${verdict.missing.length} missing`);
        for (const item of verdict.missing) print(`  - ${item}`);
      }
    }
    return verdict.promoted ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
