// RFC 3986 URI references: split, resolve against a base (§5.2) and drop fragments. Written by
// hand because WHATWG URL cannot resolve relative references against URNs and other
// non-special schemes, which JSON Schema `$id`s use.

interface UriParts {
  scheme: string | undefined;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

// RFC 3986 appendix B.
const URI_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function parseUri(uri: string): UriParts {
  const m = URI_PARTS.exec(uri);
  // The expression matches every string; this guards the type, not the input.
  if (m === null) throw new TypeError(`Unparseable URI "${uri}"`);
  return { scheme: m[1], authority: m[2], path: m[3] ?? '', query: m[4], fragment: m[5] };
}

function formatUri(p: UriParts): string {
  let out = '';
  if (p.scheme !== undefined) out += `${p.scheme}:`;
  if (p.authority !== undefined) out += `//${p.authority}`;
  out += p.path;
  if (p.query !== undefined) out += `?${p.query}`;
  if (p.fragment !== undefined) out += `#${p.fragment}`;
  return out;
}

/** RFC 3986 §5.2.4. */
function removeDotSegments(path: string): string {
  let input = path;
  const output: string[] = [];
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output.pop();
    } else if (input === '/..') {
      input = '/';
      output.pop();
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const segment = next === -1 ? input : input.slice(0, next);
      output.push(segment);
      input = input.slice(segment.length);
    }
  }
  return output.join('');
}

/** RFC 3986 §5.2.3. */
function mergePaths(base: UriParts, ref: string): string {
  if (base.authority !== undefined && base.path === '') return `/${ref}`;
  const slash = base.path.lastIndexOf('/');
  return slash === -1 ? ref : base.path.slice(0, slash + 1) + ref;
}

/** Resolves `ref` against `base` (RFC 3986 §5.2.2, strict: a scheme in `ref` makes it absolute). */
export function resolveUri(base: string, ref: string): string {
  const r = parseUri(ref);
  const b = parseUri(base);
  const t: UriParts = { scheme: undefined, authority: undefined, path: '', query: undefined, fragment: r.fragment };
  if (r.scheme !== undefined) {
    t.scheme = r.scheme;
    t.authority = r.authority;
    t.path = removeDotSegments(r.path);
    t.query = r.query;
  } else {
    t.scheme = b.scheme;
    if (r.authority !== undefined) {
      t.authority = r.authority;
      t.path = removeDotSegments(r.path);
      t.query = r.query;
    } else {
      t.authority = b.authority;
      if (r.path === '') {
        t.path = b.path;
        t.query = r.query ?? b.query;
      } else {
        t.path = removeDotSegments(r.path.startsWith('/') ? r.path : mergePaths(b, r.path));
        t.query = r.query;
      }
    }
  }
  return formatUri(t);
}

/** Splits a URI at its first `#`: the URI without fragment, and the fragment ('' when absent). */
export function splitFragment(uri: string): { uri: string; fragment: string } {
  const hash = uri.indexOf('#');
  return hash === -1 ? { uri, fragment: '' } : { uri: uri.slice(0, hash), fragment: uri.slice(hash + 1) };
}
