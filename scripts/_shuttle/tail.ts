// jhf-shuttle tail: subscribes to mailbox subjects and prints each message once (repeats of a
// Nats-Msg-Id are dropped), one line per message; --count stops after N messages.

import { defineCommand, EXIT_FAILED, EXIT_OK, isValidSubject, usageError, wholeNumberOption } from '../../src/kernel/index.ts';
import type { BusMessage } from '../../src/messaging/bus.ts';
import { MSG_ID_HEADER } from '../../src/messaging/bus.ts';
import { checkMailboxName } from '../../src/messaging/mailbox-name.ts';
import { busFromEnv } from './bus-from-env.ts';

export const tailCommand = defineCommand({
  name: 'jhf-shuttle tail',
  summary: 'Prints messages of mailbox.<MAILBOX> (or --subject) as they arrive, each Nats-Msg-Id once',
  positionals: '[MAILBOX]',
  description: 'Runs until SIGINT or SIGTERM, or until --count messages arrived. With --json each message is one JSON line: subject, msg_id, headers, payload (UTF-8 text, or base64 with "encoding":"base64"). A "subscribed" line goes to stderr once the subscription is active.',
  options: {
    subject: { type: 'string', description: 'Subscribe to this subject instead (wildcards * and > allowed), e.g. "mailbox.>"', valueName: 'SUBJECT' },
    durable: { type: 'string', description: 'A durable subscription of this name (NATS with JetStream): messages published while the tail, or the server, was away are delivered when it is back', valueName: 'NAME' },
    count: { type: 'string', description: 'Exit 0 after this many messages', valueName: 'N' },
    'timeout-ms': { type: 'string', description: 'With --count: exit 1 if they did not all arrive within MS', valueName: 'MS' },
  },
  async run({ values, positionals, json, io }) {
    const subject = values.subject ?? (positionals[0] === undefined ? undefined : subjectOf(positionals[0]));
    if (subject === undefined) usageError('Name a MAILBOX or give --subject');
    if (!isValidSubject(subject, { wildcards: true })) usageError(`Invalid subject "${subject}"`);
    const count = values.count === undefined ? undefined : wholeNumberOption('--count', values.count);
    const timeoutMs = values['timeout-ms'] === undefined ? undefined : wholeNumberOption('--timeout-ms', values['timeout-ms']);
    const { bus, close } = await busFromEnv(io.env, 'jhf-shuttle-tail');
    let received = 0;
    // false: not taken. A durable subscription then leaves it unacknowledged for the next run;
    // the server pushes a durable's whole backlog at once, more than --count.
    const onMessage = (message: BusMessage): boolean => {
      if (count !== undefined && received >= count) return false;
      received++;
      io.stdout.write(`${json ? JSON.stringify(messageJson(message)) : messageText(message)}\n`);
      if (count !== undefined && received >= count) done?.(EXIT_OK);
      return true;
    };
    let done: ((code: number) => void) | undefined;
    let subscription: { unsubscribe(): void | Promise<void> };
    if (values.durable !== undefined) {
      try {
        subscription = await bus.subscribeDurable(subject, values.durable, onMessage);
      } catch (error) {
        await close();
        throw error;
      }
    } else subscription = bus.subscribe(subject, onMessage);
    return new Promise<number>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let finished = false;
      const finish = (code: number) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        // Unsubscribing first (synchronously) takes no further message; a durable subscription
        // then waits until the server confirmed the acks of the printed ones, so that the next
        // run with the same --durable name does not print them again.
        void Promise.resolve(subscription.unsubscribe()).then(close).then(() => resolve(code));
      };
      const onSignal = () => finish(EXIT_OK);
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      done = finish;
      if (count !== undefined && received >= count) finish(EXIT_OK);
      void bus.ready().then(() => io.stderr.write(`${JSON.stringify({ msg: 'subscribed', subject, bus: bus.kind, durable: values.durable ?? null })}\n`));
      if (count !== undefined && timeoutMs !== undefined) {
        timer = setTimeout(() => {
          io.stderr.write(`jhf-shuttle tail: ${received} of ${count} messages within ${timeoutMs} ms\n`);
          finish(EXIT_FAILED);
        }, timeoutMs);
      }
    });
  },
});

function subjectOf(mailbox: string): string {
  const name = checkMailboxName(mailbox);
  if (!name.ok) usageError(name.reason);
  return name.subject;
}

function messageJson(message: BusMessage): Record<string, unknown> {
  const text = message.payload.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(message.payload);
  return {
    subject: message.subject,
    msg_id: message.headers[MSG_ID_HEADER] ?? null,
    headers: message.headers,
    payload: isText ? text : message.payload.toString('base64'),
    ...(!isText && { encoding: 'base64' }),
  };
}

function messageText(message: BusMessage): string {
  return `${message.subject} ${message.headers[MSG_ID_HEADER] ?? '-'} ${message.payload.length} bytes: ${message.payload.toString('utf8').replace(/[\r\n]+/g, ' ').slice(0, 200)}`;
}
