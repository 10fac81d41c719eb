// Secret redaction, service by service (issue 29): the dev stack runs with every secret its dev
// defaults configure; every operation of a service's contract is called with those secrets in
// every place a client sends one (credential and signature headers, other headers, the query, a
// JSON or form body), and no secret may come back in any answer (headers or body) or in any log
// line the stack wrote. Left out: ERP's api_key, an identifier (the public half of Frappe's
// key:secret pair); the login passwords (ERP's, and content's dev account's), which the
// services never hold (ERP keeps a scrypt hash; the password is content-dev-oidc's, which logs no
// request); and path parameters, identifiers a service names back by design ("Session \"x\" not
// found").
//
// A suite, not a test file: test/contracts/live-stack.test.ts runs it on the stack it shares with
// the other suites that need the whole stack; it runs last there, as its requests carry wrong
// credentials everywhere.

import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceManifest } from '../../src/kernel/index.ts';
import { loadManifests } from '../../scripts/_generated-contracts.ts';
import { sampleValue } from '../../scripts/_sweep/sample-value.ts';
import { HTTP_METHODS } from '../../scripts/_semantic/openapi-operations.ts';
import { resolveRef } from './_sample-body.ts';
import type { LiveStack } from './_live-stack.ts';

const ROOT = join(import.meta.dirname, '..', '..');
type Json = Record<string, unknown>;
/** Not secrets the service holds: an identifier, and passwords it never sees in the clear (above). */
const IDENTIFIERS = new Set(['erp.api_key', 'erp.password', 'content.dev_password']);

let stack: LiveStack;
let manifests: ServiceManifest[];

/** Every secret value of `service` in the stack's dev-secrets.json (nested maps flattened). */
function secretsOf(service: string): string[] {
  const values: string[] = [];
  const walk = (value: unknown, name: string) => {
    if (IDENTIFIERS.has(name)) return;
    if (typeof value === 'string' && value.length >= 8) values.push(value);
    else if (typeof value === 'object' && value !== null) for (const [key, inner] of Object.entries(value)) walk(inner, `${name}.${key}`);
  };
  walk(stack.secrets[service] ?? {}, service);
  return values;
}

/** The headers, query and bodies that carry `secrets` (the credential headers take the `turn`-th). */
function carriers(secrets: readonly string[], turn: number): { headers: Record<string, string>; query: string; json: string; form: string } {
  const one = secrets[turn % secrets.length]!;
  const all = secrets.join(',');
  return {
    headers: {
      authorization: `Bearer ${one}`,
      'x-semantic-operator-token': one,
      cookie: `content_session=${one}; sid=${one}`,
      'x-signature': `v1=${one}`,
      'x-signature-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-hub-signature-256': `sha256=${one}`,
      'stripe-signature': `t=1,v1=${one}`,
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': `v1,${one}`,
      'idempotency-key': `"${one}"`,
      'x-debug-secret': all,
    },
    query: new URLSearchParams({ token: one, api_secret: all }).toString(),
    json: JSON.stringify({ token: one, password: one, pwd: one, secret: all, usr: one, api_secret: one }),
    form: new URLSearchParams({ usr: 'dev@airlock.local', pwd: one, token: one, cmd: 'login' }).toString(),
  };
}

/** Calls every operation of `manifest`'s contract carrying its secrets; the texts that came back. */
async function callEverything(manifest: ServiceManifest, secrets: readonly string[]): Promise<{ answers: string[]; calls: number }> {
  const document = JSON.parse(readFileSync(join(ROOT, manifest.openapiPath), 'utf8')) as Json;
  const answers: string[] = [];
  let turn = 0;
  for (const [template, item] of Object.entries(document['paths'] as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item) as [string, Json][]) {
      if (!(HTTP_METHODS as readonly string[]).includes(method)) continue; // path-level servers or parameters
      const listeners = (operation['x-airlock-listeners'] ?? ['main']) as string[];
      for (const base of listeners.map((l) => stack.urls.get(`${manifest.service}/${l}`)).filter((u): u is string => u !== undefined)) {
        const parameters = (operation['parameters'] ?? []) as Json[];
        const bodyTypes = Object.keys(((operation['requestBody'] as Json | undefined)?.['content'] ?? {}) as Json);
        {
          const carry = carriers(secrets, turn++);
          let path = template;
          for (const parameter of parameters.filter((p) => p['in'] === 'path')) {
            const sample = sampleValue(parameter, (schema) => resolveRef(document, schema));
            path = path.replace(`{${String(parameter['name'])}}`, encodeURIComponent(sample.ok ? sample.value : 'sample'));
          }
          const form = bodyTypes.includes('application/x-www-form-urlencoded') && !bodyTypes.includes('application/json');
          const body = bodyTypes.length === 0 ? undefined : form ? carry.form : carry.json;
          const headers = { ...carry.headers, ...(body !== undefined && { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }) };
          const response = await fetch(`${base}${path}?${carry.query}`, { method: method.toUpperCase(), headers, ...(body !== undefined && { body }), redirect: 'manual', signal: AbortSignal.timeout(30_000) });
          // A redirect into login hands the caller back its own URL (return_to): what it put in its
          // query goes back to it alone, so that one header is not a disclosure.
          const ownReturn = (name: string, value: string) => name === 'location' && value.startsWith('/auth/oidc/login?') && new URL(value, base).searchParams.get('return_to') === `${path}?${carry.query}`;
          const shown = [...response.headers].filter(([k, v]) => !ownReturn(k, v));
          answers.push(`${method.toUpperCase()} ${template} -> ${response.status}\n${shown.map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${await response.text()}`);
        }
      }
    }
  }
  return { answers, calls: answers.length };
}

/** Each secret found in `texts`, with where. */
function leaks(secrets: readonly string[], texts: readonly string[], label: string): string[] {
  const found: string[] = [];
  for (const text of texts) {
    for (const secret of secrets) if (text.includes(secret)) found.push(`${label}: a secret (${secret.slice(0, 3)}...) in: ${text.slice(0, 300)}`);
  }
  return found;
}

/** Registers the suite; `live()` is the running stack, started by the file that runs the suite. */
export function secretRedaction(live: () => LiveStack): void {
  describe('secret redaction: no configured secret in any answer or log line', () => {
    before(async () => {
      stack = live();
      manifests = await loadManifests();
    });

    for (const service of ['agent-context', 'content', 'erp', 'governance', 'messaging', 'semantic']) {
      test(`${service}: no configured secret comes back in any answer or log line, whatever request carries it`, async () => {
        const manifest = manifests.find((m) => m.service === service)!;
        const secrets = secretsOf(service);
        assert.ok(secrets.length > 0, `${service} has secrets in the dev stack`);
        const logged = stack.stderr.length;
        const { answers, calls } = await callEverything(manifest, secrets);
        assert.ok(calls >= 5, `${calls} calls`);
        // The last log lines of the stack arrive (a loaded machine can take seconds).
        for (const started = Date.now(); stack.stderr.length - logged < calls && Date.now() - started < 10_000;) await new Promise((resolve) => setTimeout(resolve, 100));
        const lines = [...stack.stderr.slice(logged), ...stack.stdout];
        // Not a vacuous pass: the access log wrote a line per request (and the scan reads them).
        assert.ok(stack.stderr.length - logged >= calls, `${stack.stderr.length - logged} log lines for ${calls} calls`);
        assert.deepEqual([...leaks(secrets, answers, 'answer'), ...leaks(secrets, lines, 'log')], []);
      });
    }
  });
}
