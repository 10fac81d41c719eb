// export_governance_status_bundle: the status bundle for read-only consumers. One JSON file: the
// governance metadata, the offline checks and (--check-live) a readback of the semantic API through
// the consumer "governance-status-bundle-export", sealed with content_sha256. --verify FILE checks
// a bundle's seal and whether its metadata is still current.

import { defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, writeFileAtomic } from '../src/kernel/index.ts';
import { formatChecks, report } from './_semantic/check-report.ts';
import { deriveGovernanceMetadata } from './_semantic/governance-metadata.ts';
import { Unreachable } from './_semantic/http-client.ts';
import { readInstallRoot } from './_semantic/install-root.ts';
import { readJsonAt } from './_semantic/json-file.ts';
import { LIVE_OPTIONS, liveClient, requiredConsumerToken } from './_semantic/live-target.ts';
import { liveStatus, offlineStatusChecks, sealBundle, verifyStatusBundle } from './_semantic/status-bundle.ts';

const CONSUMER = 'governance-status-bundle-export';

const command = defineCommand({
  name: 'export_governance_status_bundle',
  summary: 'Exports a sealed status bundle (one JSON file with a content hash) for read-only consumers',
  description: [
    'The bundle holds the metadata of export-governance-metadata, the offline checks (ts01_consumer_matrix, materialization',
    `drift) and, with --check-live, a readback of the semantic API's status and context through the consumer "${CONSUMER}".`,
    'content_sha256 is the SHA-256 of the canonical JSON (RFC 8785) of everything else. Offline, the same inputs give the',
    'same bytes. The bundle is written (or printed) even when a check failed; the exit code is then 1.',
    '--verify FILE: exit 0 when the seal matches and the metadata is still what --root derives, 1 otherwise.',
  ].join('\n'),
  options: {
    root: { type: 'string', default: '.', valueName: 'DIR', description: 'Checkout or install prefix' },
    output: { type: 'string', valueName: 'FILE', description: 'Write the bundle to FILE (atomically) instead of stdout' },
    verify: { type: 'string', valueName: 'FILE', description: 'Verify an existing bundle; write nothing' },
    'check-live': { type: 'boolean', description: 'Add a readback of the running semantic API' },
    ...LIVE_OPTIONS,
  },
  async run({ values, json, io, print, printJson }) {
    const root = readInstallRoot(values.root);
    if (values.verify !== undefined) {
      const checks = verifyStatusBundle(readJsonAt(values.verify).doc, root);
      const result = report(checks, { file: values.verify });
      if (json) printJson(result);
      else for (const line of formatChecks(checks)) print(line);
      return result.ok ? EXIT_OK : EXIT_FAILED;
    }
    const checks = offlineStatusChecks(root);
    let live: Record<string, unknown> = { status: 'unavailable', reason: 'not requested (--check-live)' };
    if (values['check-live']) {
      const client = liveClient(root, values);
      const token = requiredConsumerToken(CONSUMER, io.env, values);
      try {
        const read = await liveStatus(client, token);
        live = read.live;
        checks.push(read.check);
      } catch (error) {
        if (!(error instanceof Unreachable)) throw error;
        io.stderr.write(`export_governance_status_bundle: ${error.message}\n`);
        return EXIT_USAGE;
      }
    }
    const bundle = sealBundle(deriveGovernanceMetadata(root).doc, { checks, live });
    const text = `${JSON.stringify(bundle, null, 2)}\n`;
    const ok = checks.every((c) => c.ok);
    if (values.output !== undefined) {
      writeFileAtomic(values.output, text);
      if (json) printJson({ ok, output: values.output, content_sha256: bundle['content_sha256'], checks });
      else {
        for (const line of formatChecks(checks)) print(line);
        print(`wrote ${values.output} (content_sha256 ${String(bundle['content_sha256'])})`);
      }
    } else io.stdout.write(text);
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
