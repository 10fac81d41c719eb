// IP address formats: ipv4 (RFC 2673 dotted-quad, no leading zeros) and ipv6 (RFC 4291 text
// forms, with an optional dotted-quad tail, without zone or prefix length).

const IPV4 = /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

export function isIpv4(text: string): boolean {
  return IPV4.test(text);
}

/** The number of 16-bit groups `part` spells ("a:b:1.2.3.4" is 4), or -1 when it is malformed. */
function countGroups(part: string, mayEndInIpv4: boolean): number {
  if (part === '') return 0;
  const groups = part.split(':');
  let count = 0;
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i] ?? '';
    if (HEX_GROUP.test(group)) count++;
    else if (mayEndInIpv4 && i === groups.length - 1 && isIpv4(group)) count += 2;
    else return -1;
  }
  return count;
}

export function isIpv6(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  if (halves.length === 1) return countGroups(text, true) === 8;
  const head = countGroups(halves[0] ?? '', false);
  const tail = countGroups(halves[1] ?? '', true);
  return head >= 0 && tail >= 0 && head + tail <= 7;
}
