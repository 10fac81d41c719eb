// IP address formats: ipv4 (RFC 2673 dotted-quad, no leading zeros) and ipv6 (RFC 4291 text
// forms, with an optional dotted-quad tail, without zone or prefix length), by node:net.

import { isIPv4, isIPv6 } from 'node:net';

export function isIpv4(text: string): boolean {
  return isIPv4(text);
}

/**
 * net.isIPv6 also admits a scoped address (`fe80::1%eth0`, RFC 4007), which the JSON Schema
 * `ipv6` format (RFC 4291 text only) does not: a zone is refused here before Node is asked.
 */
export function isIpv6(text: string): boolean {
  return !text.includes('%') && isIPv6(text);
}
