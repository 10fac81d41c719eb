// Mailbox names and message ids as the adapter admits them. A mailbox becomes one subject token
// of `mailbox.<mailbox>`, so dots, wildcards and spaces, which would change the subject, are refused.

export const MAILBOX_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Client-chosen de-duplication ids: the characters NATS clients use for Nats-Msg-Id. */
export const MESSAGE_ID = /^[A-Za-z0-9._:+=-]{1,128}$/;
export const SUBJECT_PREFIX = 'mailbox';

export type NameCheck = { ok: true; subject: string } | { ok: false; reason: string };

export function checkMailboxName(name: string): NameCheck {
  if (MAILBOX_NAME.test(name)) return { ok: true, subject: `${SUBJECT_PREFIX}.${name}` };
  const shown = JSON.stringify(name.slice(0, 80));
  if (name === '') return { ok: false, reason: 'Mailbox name is empty: use 1 to 64 letters, digits, "-" or "_"' };
  if (name.length > 64) return { ok: false, reason: `Mailbox name ${shown} is longer than 64 characters` };
  if (/[.*>]/.test(name)) return { ok: false, reason: `Mailbox name ${shown} contains ".", "*" or ">", which would change the subject: use letters, digits, "-" or "_"` };
  return { ok: false, reason: `Mailbox name ${shown} is invalid: use letters, digits, "-" or "_"` };
}
