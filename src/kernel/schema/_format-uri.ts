// The uri and uri-reference formats: RFC 3986 syntax, checked part by part (scheme, authority,
// path, query, fragment) after the appendix B split. ASCII only: IRIs are other formats.

import { isIpv6 } from './_format-ip.ts';

const UNRESERVED = 'A-Za-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = '%[0-9A-Fa-f]{2}';
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const SEGMENT = `${PCHAR}*`;

const URI_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;
const SCHEME = /^[A-Za-z][A-Za-z0-9+\-.]*$/;
const USERINFO = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*$`);
const HOST_PORT = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*(?::[0-9]*)?$`);
const IP_LITERAL_PORT = /^\[([^\]]*)\](?::[0-9]*)?$/;
const IP_FUTURE = new RegExp(`^v[0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);
const PATH_ABEMPTY = new RegExp(`^(?:/${SEGMENT})*$`);
const PATH_ABSOLUTE = new RegExp(`^/(?:${PCHAR}+(?:/${SEGMENT})*)?$`);
const PATH_ROOTLESS = new RegExp(`^${PCHAR}+(?:/${SEGMENT})*$`);
// A relative path's first segment may not hold a colon, or it would read as a scheme.
const PATH_NOSCHEME = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}@]|${PCT})+(?:/${SEGMENT})*$`);
const QUERY_OR_FRAGMENT = new RegExp(`^(?:${PCHAR}|[/?])*$`);

function isAuthority(authority: string): boolean {
  const at = authority.indexOf('@');
  if (at !== -1 && !USERINFO.test(authority.slice(0, at))) return false;
  const hostPort = authority.slice(at + 1);
  if (!hostPort.startsWith('[')) return HOST_PORT.test(hostPort);
  const literal = IP_LITERAL_PORT.exec(hostPort)?.[1];
  return literal !== undefined && (isIpv6(literal) || IP_FUTURE.test(literal));
}

function isPath(path: string, hasScheme: boolean, hasAuthority: boolean): boolean {
  if (hasAuthority) return PATH_ABEMPTY.test(path);
  if (path === '') return true;
  if (path.startsWith('/')) return PATH_ABSOLUTE.test(path);
  return hasScheme ? PATH_ROOTLESS.test(path) : PATH_NOSCHEME.test(path);
}

function isUriLike(text: string, requireScheme: boolean): boolean {
  const m = URI_PARTS.exec(text);
  if (m === null) return false;
  const [, scheme, authority, path = '', query, fragment] = m;
  if (scheme === undefined ? requireScheme : !SCHEME.test(scheme)) return false;
  if (authority !== undefined && !isAuthority(authority)) return false;
  if (!isPath(path, scheme !== undefined, authority !== undefined)) return false;
  if (query !== undefined && !QUERY_OR_FRAGMENT.test(query)) return false;
  return fragment === undefined || QUERY_OR_FRAGMENT.test(fragment);
}

/** RFC 3986 URI: a scheme and the rest. */
export function isUri(text: string): boolean {
  return isUriLike(text, true);
}

/** RFC 3986 URI-reference: a URI or a relative reference. */
export function isUriReference(text: string): boolean {
  return isUriLike(text, false);
}
