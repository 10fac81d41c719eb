// The formats asserted with `formats: "assert"`, by name. Every check takes a string; the
// format keyword lets other types through untouched.

import { isDate, isDateTime, isDuration, isTime } from './_format-date.ts';
import { isHostname } from './_format-hostname.ts';
import { isIpv4, isIpv6 } from './_format-ip.ts';
import { isUri, isUriReference } from './_format-uri.ts';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/u;
// RFC 5322 atext, in dot-atom form, and quoted strings of printable ASCII with escapes.
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const QUOTED_STRING = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;

/** RFC 5321 Mailbox: a dot-atom or quoted local part, then a hostname or an address literal. */
function isEmail(text: string): boolean {
  const at = text.lastIndexOf('@');
  if (at <= 0) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (!DOT_ATOM.test(local) && !QUOTED_STRING.test(local)) return false;
  if (domain.startsWith('[') && domain.endsWith(']')) {
    const literal = domain.slice(1, -1);
    return literal.startsWith('IPv6:') ? isIpv6(literal.slice(5)) : isIpv4(literal);
  }
  return isHostname(domain);
}

function isRegex(text: string): boolean {
  try {
    new RegExp(text, 'u');
    return true;
  } catch (error) {
    // A SyntaxError is the answer "not a regex"; anything else is a bug to surface.
    if (error instanceof SyntaxError) return false;
    throw error;
  }
}

/** Checks by format name; formats outside this table cannot be asserted. */
export const FORMATS: ReadonlyMap<string, (text: string) => boolean> = new Map([
  ['date-time', isDateTime],
  ['date', isDate],
  ['time', isTime],
  ['duration', isDuration],
  ['email', isEmail],
  ['hostname', isHostname],
  ['ipv4', isIpv4],
  ['ipv6', isIpv6],
  ['uri', isUri],
  ['uri-reference', isUriReference],
  ['uuid', (text: string) => UUID.test(text)],
  ['regex', isRegex],
  ['json-pointer', (text: string) => JSON_POINTER.test(text)],
]);
