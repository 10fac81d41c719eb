// A Gitea-compatible issues API on loopback for scan_and_fix tests: GET /api/v1/repos/{owner}/
// {repo}/issues (state, type, page, limit, since; pages of `limit`, capped at `maxLimit` as
// Gitea's MAX_RESPONSE_ITEMS caps them) and /issues/{n}, with "Authorization: token <T>" or
// Basic <user>:<T>. Pull requests appear in the list, as in Gitea. Paging headers as Gitea sends
// them (Link with rel="next"/"last" and X-Total-Count), or only one of them, or none.

import { createServer } from 'node:http';
import type { Server } from 'node:http';

export interface GiteaDouble {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export interface GiteaDoubleOptions {
  owner: string;
  repo: string;
  token: string;
  issues: Record<string, unknown>[];
  /** Gitea's MAX_RESPONSE_ITEMS: a larger `limit` is cut to it (Gitea's default is 50; many sites set 30). */
  maxLimit?: number;
  /** Which paging headers the list answers carry (default: both, as Gitea). */
  paging?: 'link+total' | 'link' | 'total' | 'none';
  /** The user part every request's Basic credentials must carry, when set. */
  user?: string;
}

export async function startGiteaDouble(options: GiteaDoubleOptions): Promise<GiteaDouble> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const auth = req.headers.authorization ?? '';
    const basic = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().split(':')[1] : undefined;
    const basicUser = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().split(':')[0] : undefined;
    if ((auth !== `token ${options.token}` && basic !== options.token) || (options.user !== undefined && basicUser !== options.user)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"token is required"}');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const prefix = `/api/v1/repos/${options.owner}/${options.repo}/issues`;
    const one = new RegExp(`^${prefix}/(\\d+)$`).exec(url.pathname);
    if (one) {
      const found = options.issues.find((i) => i['number'] === Number(one[1]));
      res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(found ?? { message: 'not found' }));
      return;
    }
    if (url.pathname !== prefix) {
      res.writeHead(404).end();
      return;
    }
    const page = Number(url.searchParams.get('page') ?? 1);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 30), options.maxLimit ?? 50);
    const slice = options.issues.slice((page - 1) * limit, page * limit);
    const paging = options.paging ?? 'link+total';
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (paging.includes('total')) headers['x-total-count'] = String(options.issues.length);
    if (paging.includes('link')) {
      const last = Math.max(1, Math.ceil(options.issues.length / limit));
      const at = (n: number) => {
        const linked = new URL(url.pathname + url.search, `http://${req.headers.host}`);
        linked.searchParams.set('page', String(n));
        linked.searchParams.set('limit', String(limit));
        return linked.href;
      };
      const links = [...(page < last ? [`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`] : []), ...(page > 1 ? [`<${at(1)}>; rel="first"`, `<${at(page - 1)}>; rel="prev"`] : [])];
      if (links.length > 0) headers['link'] = links.join(',');
    }
    res.writeHead(200, headers).end(JSON.stringify(slice));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}
