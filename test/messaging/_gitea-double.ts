// A Gitea-compatible issues API on loopback for scan_and_fix tests: GET /api/v1/repos/{owner}/
// {repo}/issues (state, type, page, limit, since; pages of `limit`) and /issues/{n}, with
// "Authorization: token <T>" or Basic <user>:<T>. Pull requests appear in the list, as in Gitea.

import { createServer } from 'node:http';
import type { Server } from 'node:http';

export interface GiteaDouble {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export async function startGiteaDouble(options: { owner: string; repo: string; token: string; issues: Record<string, unknown>[] }): Promise<GiteaDouble> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const auth = req.headers.authorization ?? '';
    const basic = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().split(':')[1] : undefined;
    if (auth !== `token ${options.token}` && basic !== options.token) {
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
    const limit = Number(url.searchParams.get('limit') ?? 30);
    const slice = options.issues.slice((page - 1) * limit, page * limit);
    res.writeHead(200, { 'content-type': 'application/json', 'x-total-count': String(options.issues.length) }).end(JSON.stringify(slice));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}
