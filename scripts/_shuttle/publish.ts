// jhf-shuttle publish MAILBOX: publishes one message on the bus, as the mailbox adapter does
// (subject mailbox.<mailbox>, a Nats-Msg-Id, the same payload limit, the same publication record
// that answers a repeated id), and exits once the bus holds it.

import { randomUUID } from 'node:crypto';
import { AirlockError, defineCommand, EXIT_OK, readConfig, readFileBounded, usageError } from '../../src/kernel/index.ts';
import { MSG_ID_HEADER } from '../../src/messaging/bus.ts';
import { createMailboxPublisher } from '../../src/messaging/mailbox-publisher.ts';
import type { PublicationOutcome } from '../../src/messaging/mailbox-publisher.ts';
import { MAILBOX_SPEC } from '../../src/messaging/config.ts';
import { checkMailboxName, MESSAGE_ID } from '../../src/messaging/mailbox-name.ts';
import { busFromEnv } from './bus-from-env.ts';

export const publishCommand = defineCommand({
  name: 'jhf-shuttle publish',
  summary: 'Publishes one message to mailbox.<MAILBOX> on the bus (NATS_URL, or the embedded bus) and waits until the bus holds it',
  positionals: 'MAILBOX',
  description: 'The body comes from --data, --file, or stdin. Its size limit is MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES (default 131072), as on the adapter. Each publication is recorded in $AIRLOCK_DATA_DIR/messaging.sqlite, as the adapter records its own: an --msg-id already recorded for the mailbox is not published again (the same body: exit 0, "already published"; another body: exit 2, nothing published).',
  options: {
    data: { type: 'string', description: 'The message body as text', valueName: 'TEXT' },
    file: { type: 'string', description: 'Read the message body from FILE ("-" for stdin)', valueName: 'FILE' },
    'msg-id': { type: 'string', description: 'The Nats-Msg-Id (default: a new UUID); a retry with the same id and body is answered from the record, not published again', valueName: 'ID' },
    'content-type': { type: 'string', description: 'Content-Type header of the message', default: 'application/json', valueName: 'TYPE' },
  },
  async run({ values, positionals, json, print, printJson, io }) {
    if (positionals.length !== 1) usageError('Name exactly one MAILBOX');
    const name = checkMailboxName(positionals[0]!);
    if (!name.ok) usageError(name.reason);
    if (values.data !== undefined && values.file !== undefined) usageError('Give --data or --file, not both');
    const msgId = values['msg-id'] ?? randomUUID();
    if (!MESSAGE_ID.test(msgId)) usageError(`--msg-id must match ${MESSAGE_ID}`);
    const limit = readConfig({ MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: MAILBOX_SPEC.MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES }, io.env).MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES;
    const file = values.file === undefined || values.file === '-' ? undefined : values.file;
    const read = values.data !== undefined ? { ok: true as const, bytes: Buffer.from(values.data) } : readFileBounded(file, limit);
    if (!read.ok && read.reason === 'unreadable') throw new AirlockError('usage', `Cannot read --file ${file === undefined ? 'stdin' : `"${file}"`}: ${read.code}`);
    if (!read.ok || read.bytes.length > limit) throw new AirlockError('usage', `Message is larger than MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES ${limit} bytes: nothing published`);
    const body = read.bytes;
    const { bus, store, close } = await busFromEnv(io.env, 'jhf-shuttle');
    let outcome: PublicationOutcome;
    try {
      outcome = await createMailboxPublisher({ bus, store })({ mailbox: positionals[0]!, subject: name.subject, msgId, idFromClient: values['msg-id'] !== undefined, body, contentType: values['content-type'], requestId: randomUUID() });
    } finally {
      await close();
    }
    const { record } = outcome;
    if (outcome.kind === 'conflict') {
      throw new AirlockError('usage', `--msg-id "${msgId}" was already published to ${name.subject} with another body (SHA-256 ${record.sha256}, evidence_seq ${record.seq}): nothing published; use a new --msg-id for a new message`);
    }
    const repeat = outcome.kind === 'repeat';
    const result = { ok: true, mailbox: positionals[0], subject: name.subject, msg_id: msgId, bytes: record.bytes, sha256: record.sha256, bus: record.bus, evidence_seq: record.seq, ...(repeat && { repeat_of_seq: record.seq }) };
    if (json) printJson(result);
    else if (repeat) print(`already published to ${result.subject} (${MSG_ID_HEADER} ${msgId}, evidence_seq ${record.seq}): not published again`);
    else print(`published ${result.bytes} bytes to ${result.subject} (${MSG_ID_HEADER} ${msgId}) on the ${bus.kind} bus`);
    return EXIT_OK;
  },
});

