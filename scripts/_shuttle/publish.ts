// jhf-shuttle publish MAILBOX: publishes one message on the bus, as the mailbox adapter does
// (subject mailbox.<mailbox>, a Nats-Msg-Id, the same payload limit), and exits once the bus holds it.

import { randomUUID } from 'node:crypto';
import { AirlockError, defineCommand, EXIT_OK, readConfig, readFileBounded, usageError } from '../../src/kernel/index.ts';
import { MSG_ID_HEADER } from '../../src/messaging/bus.ts';
import { MAILBOX_SPEC } from '../../src/messaging/config.ts';
import { checkMailboxName, MESSAGE_ID } from '../../src/messaging/mailbox-name.ts';
import { busFromEnv } from './bus-from-env.ts';

export const publishCommand = defineCommand({
  name: 'jhf-shuttle publish',
  summary: 'Publishes one message to mailbox.<MAILBOX> on the bus (NATS_URL, or the embedded bus) and waits until the bus holds it',
  positionals: 'MAILBOX',
  description: 'The body comes from --data, --file, or stdin. Its size limit is MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES (default 131072), as on the adapter.',
  options: {
    data: { type: 'string', description: 'The message body as text', valueName: 'TEXT' },
    file: { type: 'string', description: 'Read the message body from FILE ("-" for stdin)', valueName: 'FILE' },
    'msg-id': { type: 'string', description: 'The Nats-Msg-Id (default: a new UUID); the same id again is delivered once', valueName: 'ID' },
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
    const { bus, close } = await busFromEnv(io.env, 'jhf-shuttle');
    try {
      await bus.publish(name.subject, body, { headers: { [MSG_ID_HEADER]: msgId, 'Content-Type': values['content-type'] } });
    } finally {
      await close();
    }
    const result = { ok: true, mailbox: positionals[0], subject: name.subject, msg_id: msgId, bytes: body.length, bus: bus.kind };
    if (json) printJson(result);
    else print(`published ${result.bytes} bytes to ${result.subject} (${MSG_ID_HEADER} ${msgId}) on the ${bus.kind} bus`);
    return EXIT_OK;
  },
});

