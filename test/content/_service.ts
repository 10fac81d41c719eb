// Starts the content service on port 0 in a temporary data directory against the OIDC test
// double, with a captured log, and a cookie-keeping client that logs in the way a browser does.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createLogger } from '../../src/kernel/index.ts';
import { loadContentConfig } from '../../src/content/config.ts';
import { createContentService } from '../../src/content/service.ts';
import type { ContentService } from '../../src/content/service.ts';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { startOidcDouble } from './_oidc-double.ts';
import type { OidcDouble } from './_oidc-double.ts';

export const API = '/repository/api/-default-/public/repository/versions/1';
export const SEARCH = '/repository/api/-default-/public/search/versions/1/search';

export interface Harness {
  service: ContentService;
  base: string;
  op: OidcDouble;
  dataDir: string;
  logs: Record<string, unknown>[];
  /** Stops the service and starts a new one on the same data directory and port (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startContent(env: Record<string, string> = {}, options: { reads?: { threads?: number; budgetMs?: number; maxQueue?: number } } = {}): Promise<Harness> {
  // The redirect URI names the public URL, so the port is chosen before the service listens; on
  // a busy machine another process may take it in between: then another port, a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startContentOn(await freePort(), env, options);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw error;
    }
  }
}

async function startContentOn(port: number, env: Record<string, string>, options: { reads?: { threads?: number; budgetMs?: number; maxQueue?: number } }): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-content-'));
  const base = `http://127.0.0.1:${port}`;
  const op = await startOidcDouble({ redirectUri: () => `${base}/auth/oidc/callback` });
  const logs: Record<string, unknown>[] = [];
  const log = createLogger({ name: 'content', service: 'content', write: (line) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const config = loadContentConfig({
    AIRLOCK_DATA_DIR: dataDir,
    CONTENT_LISTEN: base.slice('http://'.length),
    CONTENT_PUBLIC_URL: base,
    CONTENT_OIDC_ISSUER: op.issuer,
    CONTENT_OIDC_CLIENT_ID: op.clientId,
    CONTENT_OIDC_CLIENT_SECRET: op.clientSecret,
    CONTENT_OWNER_ISSUE_REF: 'issue:19',
    CONTENT_BLOCKED_PROGRAM_REF: 'program:none',
    // The double's user is in group "writers" (its groups claim): Company Home is theirs to write.
    CONTENT_COMPANY_HOME_WRITERS: 'writers',
    ...env,
  });
  const harness: Harness = {
    service: await createContentService(config, { log, ...options }),
    base,
    op,
    dataDir,
    logs,
    async restart() {
      await harness.service.close();
      harness.service = await createContentService(config, { log, ...options });
      await harness.service.listen();
    },
    async close() {
      await harness.service.close();
      await op.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await harness.service.listen();
  } catch (error) {
    await harness.service.close();
    await op.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return harness;
}

/** A client with a cookie jar that follows redirects itself (so tests can look at each hop). */
export class Browser {
  readonly cookies = new Map<string, string>();

  async get(url: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    return this.request(url, { headers });
  }

  async request(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<TestResponse> {
    const target = new URL(url);
    const sameOrigin = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await send(url, { ...init, headers: { ...(sameOrigin && target.hostname === '127.0.0.1' ? { cookie: sameOrigin } : {}), ...init.headers } });
    const setCookies = response.headers['set-cookie'] ?? [];
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows redirects from `url` until a non-redirect; returns every hop. */
  async follow(url: string, limit = 10): Promise<{ hops: string[]; last: TestResponse }> {
    const hops = [url];
    let response = await this.get(url);
    while (response.status >= 300 && response.status < 400 && hops.length < limit) {
      const next = new URL(String(response.headers.location), hops.at(-1)).href;
      hops.push(next);
      response = await this.get(next);
    }
    return { hops, last: response };
  }
}

/** Logs a fresh browser in through the bridge; returns it with the session and CSRF token. */
export async function login(h: Harness): Promise<{ browser: Browser; csrf: string }> {
  const browser = new Browser();
  const { last } = await browser.follow(`${h.base}/share/`);
  if (last.status !== 200) throw new Error(`Login did not land on the share UI: ${last.status} ${last.text.slice(0, 300)}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(last.text)?.[1];
  if (!csrf) throw new Error('No CSRF token on the share page');
  return { browser, csrf };
}

/** A multipart/form-data body from fields and one file. */
export function multipart(fields: [string, string][], file?: { field?: string; name: string; type?: string; content: string | Buffer }): { body: Buffer; contentType: string } {
  const boundary = `----airlock${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of fields) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'filedata'}"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'text/plain'}\r\n\r\n`));
    parts.push(Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A port that was free a moment ago, for a service whose public URL must be known before it listens. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}
