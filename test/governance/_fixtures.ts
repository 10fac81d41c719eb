// Fixtures for governance tests: a temporary install root (copies of the contracts, docs and a
// manifest built from the governance manifest alone), a minimal semantic export, and a CRM
// adapter double that speaks HTTP on loopback and counts what it was asked.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildGovernanceManifest, buildStackContract } from '../../src/kernel/index.ts';
import { manifest as governanceManifest } from '../../src/governance/manifest.ts';

export const REPO = join(import.meta.dirname, '..', '..');

export interface TempRoot {
  root: string;
  /** Reads a JSON file of the root, changes it, writes it back. */
  editJson(path: string, change: (value: any) => void): void;
  write(path: string, text: string): void;
  read(path: string): string;
  remove(path: string): void;
  cleanup(): void;
}

/**
 * A copy of what the service reads at start, with a manifest of the governance service alone
 * (so other services' work in progress cannot change the outcome) and a semantic export that
 * declares the S0 harness route.
 */
export function tempRoot(): TempRoot {
  const root = mkdtempSync(join(tmpdir(), 'airlock-governance-root-'));
  cpSync(join(REPO, 'contracts', 'governance'), join(root, 'contracts', 'governance'), { recursive: true });
  cpSync(join(REPO, 'contracts', 'api', 'governance_openapi_v1.json'), join(root, 'contracts', 'api', 'governance_openapi_v1.json'));
  cpSync(join(REPO, 'docs', 'governance.md'), join(root, 'docs', 'governance.md'));
  const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const files = {
    write(path: string, content: string) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    },
    read: (path: string) => readFileSync(join(root, path), 'utf8'),
  };
  files.write('governance-manifest.json', text(buildGovernanceManifest([governanceManifest])));
  files.write('configs/stack-contract.json', text(buildStackContract([governanceManifest])));
  files.write('contracts/api/semantic_openapi_v1.json', text(SEMANTIC_EXPORT));
  return {
    root,
    ...files,
    editJson(path, change) {
      const value = JSON.parse(files.read(path));
      change(value);
      files.write(path, text(value));
    },
    remove: (path) => rmSync(join(root, path), { force: true }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The part of a semantic export the harness route reads. */
export const SEMANTIC_EXPORT = {
  openapi: '3.1.0',
  info: { title: 'semantic (fixture)', version: '1.0.0' },
  paths: {
    '/api/v1/semantic/projection-verification/runs': {
      post: {
        operationId: 'post_projection_verification_runs',
        summary: 'Projection verification run (S0 receipt)',
        security: [{ projection: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['correlation_id', 'source_event_id', 'case_ref'] } } } },
        responses: { '200': { description: 'receipt' }, '401': { description: 'no token' }, '503': { description: 'no allowlist' } },
        'x-airlock-listeners': ['main'],
      },
    },
  },
};

/** Environment pointing the service at `root`. */
export function rootEnv(root: string): Record<string, string> {
  return { GOVERNANCE_ROOT: root };
}

export interface CrmDouble {
  url: string;
  requests: URL[];
  /** What the double answers next: a status and a body, or a function of the request. */
  answer: (url: URL) => { status: number; body: unknown };
  close(): Promise<void>;
}

/** A CRM adapter double: answers admitted for any context, fresh, unless told otherwise. */
export async function startCrmDouble(): Promise<CrmDouble> {
  const double: CrmDouble = {
    url: '',
    requests: [],
    answer: (url) => ({
      status: 200,
      body: {
        tool_name: decodeURIComponent(url.pathname.split('/').at(-1) ?? ''),
        ...Object.fromEntries(['tenant_id', 'company_id', 'environment', 'adapter_instance_id'].map((f) => [f, url.searchParams.get(f)])),
        admitted: true,
        observed_at: new Date().toISOString(),
      },
    }),
    close: async () => {},
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://double');
    double.requests.push(url);
    const { status, body } = double.answer(url);
    const bytes = typeof body === 'string' ? body : JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  double.close = () => new Promise((resolve) => server.close(() => resolve()));
  return double;
}
