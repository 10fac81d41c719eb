// A URL given to a jhf-shuttle command may carry credentials (http://user:pw@host), as curl takes
// them. fetch() refuses such a URL and its error repeats the URL whole, so they are taken out:
// sent as HTTP Basic, and never part of what is shown.

export interface SplitUrl {
  /** The URL without its credentials: safe to show. */
  url: string;
  /** Headers carrying them (`authorization: Basic ...`), or none. */
  headers: Record<string, string>;
}

export function splitCredentials(raw: string): SplitUrl {
  if (!URL.canParse(raw)) return { url: raw, headers: {} };
  const url = new URL(raw);
  if (url.username === '' && url.password === '') return { url: raw, headers: {} };
  const basic = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64');
  url.username = '';
  url.password = '';
  return { url: url.href, headers: { authorization: `Basic ${basic}` } };
}
