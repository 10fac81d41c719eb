// semantic-ingest: puts the records of a JSONL file into the ingest inbox of the control
// database, for the reconciliation worker to decide. All records go in one transaction, or none
// when any line is not a JSON object. Admission (isolation domain, shape) is the worker's call.

import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AirlockError, defineCommand, environmentHelp, EXIT_FAILED, EXIT_OK, main, readConfig, usageError } from '../kernel/index.ts';
import { DATA_SPEC, DATABASE_FILE } from './config.ts';
import { openControlDatabase } from './control-schema.ts';
import { parseJsonLines, putRecords } from './ingest-inbox.ts';

/** Largest file read at once. */
export const MAX_INGEST_FILE_BYTES = 64 * 1024 * 1024;

const command = defineCommand({
  name: 'semantic-ingest',
  summary: `Puts the records of a JSONL file into the ingest inbox of $AIRLOCK_DATA_DIR/${DATABASE_FILE}`,
  positionals: 'FILE.jsonl',
  description: [
    'One JSON object per line (contracts/semantic_ingest_record_v1.json). The reconciliation worker later merges each record into its',
    'declared isolation domain, or QUARANTINES it when isolation_domain_ref is missing or unknown. Exit 1 and nothing enqueued when a',
    'line is not a JSON object; exit 2 when the file cannot be read. A record already in the inbox with the same tenant_id,',
    'record_id and content is not enqueued again (ingesting a file twice changes nothing); the same tenant\'s record_id with other',
    'content is enqueued and QUARANTINED as record_id_conflict (record_id is scoped by tenant: another tenant may use the same',
    'id). Once decided, a record keeps no raw tenant_id in the inbox (its tenant hash instead).',
    '',
    environmentHelp(DATA_SPEC),
  ].join('\n'),
  options: {
    source: { type: 'string', valueName: 'NAME', description: 'Source label stored with each record (default: the file name)' },
  },
  async run({ values, positionals, json, print, printJson, io }) {
    if (positionals.length !== 1) usageError('Give exactly one FILE.jsonl');
    const file = positionals[0]!;
    let text: string;
    try {
      const bytes = readFileSync(file);
      if (bytes.length > MAX_INGEST_FILE_BYTES) usageError(`File "${file}" is larger than ${MAX_INGEST_FILE_BYTES} bytes: split it`);
      // Invalid UTF-8 must not be replaced silently: two different ids would become one.
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (error) {
      if (error instanceof AirlockError) throw error;
      if (error instanceof TypeError) {
        if (json) printJson({ ok: false, enqueued: 0, reasons: [`"${file}" is not valid UTF-8`] });
        else io.stderr.write(`semantic-ingest: nothing enqueued, "${file}" is not valid UTF-8\n`);
        return EXIT_FAILED;
      }
      throw new AirlockError('environment', `Cannot read "${file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const { records, reasons } = parseJsonLines(text);
    if (reasons.length > 0) {
      if (json) printJson({ ok: false, enqueued: 0, reasons });
      else io.stderr.write(`semantic-ingest: nothing enqueued, ${reasons.length} bad lines in "${file}":\n  ${reasons.slice(0, 20).join('\n  ')}\n`);
      return EXIT_FAILED;
    }
    const { AIRLOCK_DATA_DIR } = readConfig(DATA_SPEC, io.env);
    const store = openControlDatabase(join(AIRLOCK_DATA_DIR, DATABASE_FILE));
    try {
      const { seqs, duplicates } = await putRecords(store, records, { source: values.source ?? basename(file) });
      if (json) printJson({ ok: true, enqueued: seqs.length, duplicates, first_seq: seqs[0] ?? null, last_seq: seqs.at(-1) ?? null });
      else print(`enqueued ${seqs.length} records${seqs.length > 0 ? ` (inbox seq ${seqs[0]} to ${seqs.at(-1)})` : ''}${duplicates > 0 ? `; ${duplicates} already in the inbox with the same content, not enqueued again` : ''}`);
      return EXIT_OK;
    } finally {
      await store.close();
    }
  },
});

await main(command);
