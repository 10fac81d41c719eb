// A small HTTP client for the live checks: one base URL, a timeout per request, and a budget of
// requests. A connection that cannot be made is `Unreachable` (the commands exit 2); a budget
// that runs out is `BudgetExhausted` (a failed check, exit 1).

export class Unreachable extends Error {}
export class BudgetExhausted extends Error {}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface HttpClient {
  readonly baseUrl: string;
  send(method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<HttpAnswer>;
  /** Requests sent so far. */
  count(): number;
}

/** Checks and normalizes a --base-url value; undefined when it is not an http(s) URL. */
export function parseBaseUrl(raw: string): string | undefined {
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  if (!/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') return undefined;
  return raw.replace(/\/+$/, '');
}

export function createHttpClient(baseUrl: string, options: { timeoutMs: number; maxRequests?: number }): HttpClient {
  let sent = 0;
  return {
    baseUrl,
    count: () => sent,
    async send(method, path, init = {}) {
      if (options.maxRequests !== undefined && sent >= options.maxRequests) {
        throw new BudgetExhausted(`Request budget of ${options.maxRequests} spent before ${method} ${path}`);
      }
      sent++;
      let response: Response;
      try {
        response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: init.headers ?? {},
          ...(init.body !== undefined && { body: init.body }),
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
        throw new Unreachable(`Cannot reach "${baseUrl}${path}": ${reason}`);
      }
      const text = await response.text();
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        // Not JSON: the caller sees json === undefined and judges the answer by that.
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    },
  };
}
