// governance-read: a catalog read of the governance platform listener (the artifact registry),
// without and with If-None-Match, beside the bare node:http baseline of the same run.
// Targets (issue 7): at least 0.7 of baseline requests/s for the 200, 0.8 for the 304.
import { fileURLToPath } from 'node:url';
import { startChildServer } from '../lib/child-server.ts';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

const SERVER = fileURLToPath(new URL('../servers/governance-read.ts', import.meta.url));
const PATH = '/api/v1/contracts/registry';

/** The catalog's ETag, read from a server of its own (the bytes, hence the tag, are the same in every process). */
async function currentEtag(): Promise<{ etag: string; bytes: number }> {
  const server = await startChildServer(SERVER);
  try {
    const response = await fetch(`${server.url}${PATH}`);
    const etag = response.headers.get('etag');
    if (response.status !== 200 || etag === null) throw new Error(`GET ${PATH} answered ${response.status} without an ETag`);
    return { etag, bytes: (await response.arrayBuffer()).byteLength };
  } finally {
    await server.stop();
  }
}

export const scenario: Scenario = {
  name: 'governance-read',
  description: `GET ${PATH} on the governance platform listener, with and without If-None-Match, vs bare node:http`,
  async run(options) {
    const { etag, bytes } = await currentEtag();
    const full = await compareHttp({ scenario: 'governance-read', server: SERVER, request: { path: PATH }, expectStatus: 200 }, options);
    const conditional = await compareHttp({ scenario: 'governance-read-304', server: SERVER, request: { path: PATH, headers: { 'if-none-match': etag } }, expectStatus: 304 }, options);
    return [
      { ...full, target_ratio: 0.7, body_bytes: bytes },
      { ...conditional, target_ratio: 0.8 },
    ];
  },
};
