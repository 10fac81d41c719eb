// Every service's live answers against its own committed contract (issue 29): the dev stack runs
// as `npm start` runs it, and every operation of every export is called twice, once as a client
// that holds the credentials, signatures, parameters and a body built from the declared schema
// (the good case), and once with the credential, signature or body wrong (the error case). Each
// answer's status, media type and body must be what the contract declares, checked with our own
// JSON Schema validator, and every 401 carries WWW-Authenticate. Each service also serves its
// export, deep-equal to the committed file.
//
// A suite, not a test file: test/contracts/live-stack.test.ts runs it on the stack it shares with
// the other suites that need the whole stack (one start instead of one per suite).

import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signRequest } from '../../src/kernel/index.ts';
import type { Route, ServiceManifest, SignatureScheme } from '../../src/kernel/index.ts';
import { loadManifests } from '../../scripts/_generated-contracts.ts';
import { sampleValue } from '../../scripts/_sweep/sample-value.ts';
import { resolveRef } from './_sample-body.ts';
import { answerViolations } from './_answer-check.ts';
import { HTTP_METHODS } from '../../scripts/_semantic/openapi-operations.ts';
import type { Answer } from './_answer-check.ts';
import { sampleBody } from './_sample-body.ts';
import { contentSession } from './_content-login.ts';
import type { LiveStack } from './_live-stack.ts';

const ROOT = join(import.meta.dirname, '..', '..');
type Json = Record<string, unknown>;

let stack: LiveStack;
let manifests: ServiceManifest[];
let contentCookie = '';

/** The headers that carry `scheme`'s credential on the dev stack (its dev-secrets.json). */
function credential(service: string, scheme: string): Record<string, string> {
  const s = stack.secrets;
  const bearer = (token: unknown) => ({ authorization: `Bearer ${String(token)}` });
  switch (`${service}/${scheme}`) {
    case 'agent-context/internal': return bearer(s['agent-context']!['token']);
    case 'erp/frappe': case 'erp/erp_mcp': return { authorization: `token ${String(s['erp']!['api_key'])}:${String(s['erp']!['api_secret'])}` };
    case 'messaging/owner-token': return bearer(s['messaging']!['owner_readback_api_token']);
    case 'semantic/consumer': return bearer((s['semantic']!['consumer_tokens'] as Record<string, string>)['live-runtime-contract-check']);
    case 'semantic/operator': case 'semantic/projection': return { 'x-semantic-operator-token': String(s['semantic']!['operator_token']) };
    case 'content/repository': case 'content/share': return { cookie: contentCookie };
    case 'governance/planning_reader': return bearer(s['governance']!['bff_token']);
    default:
      if (service === 'governance' && `${scheme}_token` in s['governance']!) return bearer(s['governance']![`${scheme}_token`]);
      return {};
  }
}

/** The secret a signed route of the dev stack is configured with, by its path. */
function signingSecret(service: string, path: string): string | undefined {
  const erp = stack.secrets['erp']!;
  if (service === 'governance') return String(stack.secrets['governance']!['git_host_webhook_secret']);
  if (service !== 'erp') return undefined;
  if (path.endsWith('webhooks.payment_a')) return String(erp['payment_a_secret']);
  if (path.endsWith('webhooks.payment_b')) return String(erp['payment_b_secret']);
  if (path.endsWith('webhooks.website_contact_intake')) return String(erp['erp_api_shared_secret']);
  if (path.endsWith('support_desk_inbound')) return String(erp['support_desk_secret']);
  if (path.endsWith('webhooks.supplier_intake') || path.includes('callbacks.automation_')) return String(erp['automation_secret']);
  return undefined;
}

/** Operation template (as the export writes it) -> its route, for `{ method } {template}`. */
function routeIndex(manifest: ServiceManifest): Map<string, Route> {
  const index = new Map<string, Route>();
  for (const route of manifest.routes) {
    const templated = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const paths = route.path.endsWith('/*') ? (route.members ?? []).map((m) => `${templated.slice(0, -1)}${m}`) : [templated];
    for (const path of paths) index.set(`${route.method.toLowerCase()} ${path}`, route);
  }
  return index;
}

interface Call { method: string; url: string; headers: Record<string, string>; body?: string }

async function call({ method, url, headers, body }: Call): Promise<Answer & { challenge: string | null }> {
  const response = await fetch(url, { method: method.toUpperCase(), headers, ...(body !== undefined && { body }), redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  return { status: response.status, contentType: response.headers.get('content-type'), text: method === 'head' ? '' : await response.text(), challenge: response.headers.get('www-authenticate') };
}

interface Planned { good: Call; bad: Call; badMustFail: boolean }

/**
 * Bodies a schema alone cannot give (the handler checks more than the schema says): the ones
 * `npm start` prints for the same routes, so the good case reaches the handler's success.
 */
const GOOD_BODIES: Record<string, (stack: LiveStack) => unknown> = {
  'erp POST /api/method/erp_core.api.webhooks.website_contact_intake': () => ({ contact: { email: 'ada@example.test', first_name: 'Ada' }, interest: { product: 'erp' } }),
  'erp POST /api/method/erp_core.api.webhooks.supplier_intake': () => ({ vendor: { name: 'Acme Parts GmbH' }, invoice: { number: `C-${Date.now()}`, currency: 'EUR' }, totals: { grand_total: '0.30' }, line_items: [{ description: 'Bolts', amount: '0.10' }, { description: 'Nuts', amount: '0.20' }] }),
  'erp POST /api/method/erp_core.api.support_cases.support_desk_inbound': () => ({ event_id: `c-${Date.now()}`, kind: 'ticket', ticket_id: 7, sequence: 1, state: 'new', priority: '2 normal' }),
  'erp POST /api/method/erp_core.api.identity_projections.load_identity_truth': () => ({ users: [{ name: 'ada@example.test', enabled: 1, user_type: 'System User', roles: ['Workboard User'] }], employees: [{ name: 'HR-EMP-00001', employee_name: 'Ada', status: 'Active', user_id: 'ada@example.test' }] }),
  'erp POST /api/method/erp_core.api.identity_projections.workboard_access_fact': () => ({ technical_subject: 'ada@example.test' }),
  'erp POST /api/method/login': (live) => ({ usr: 'dev@airlock.local', pwd: String(live.secrets['erp']!['password']) }),
};

function plan(document: Json, service: string, bases: { good: string; secured: string | undefined }, template: string, method: string, operation: Json, route: Route | undefined): Planned {
  const base = bases.good;
  const parameters = (operation['parameters'] ?? []) as Json[];
  const query = new URLSearchParams();
  let path = template;
  for (const parameter of parameters) {
    if (parameter['in'] === 'header') continue;
    const sample = sampleValue(parameter, (schema) => resolveRef(document, schema));
    if (parameter['in'] === 'path') path = path.replace(`{${String(parameter['name'])}}`, encodeURIComponent(sample.ok ? sample.value : 'sample'));
    else if (parameter['required'] === true && sample.ok) query.set(String(parameter['name']), sample.value);
  }
  const url = `${base}${path}${query.size > 0 ? `?${query}` : ''}`;
  const requirements = (operation['security'] ?? []) as Json[];
  const scheme = Object.keys(requirements[0] ?? {})[0];
  const headers: Record<string, string> = { accept: 'application/json, */*', ...(scheme ? credential(service, scheme) : {}) };
  if (path === '/mcp' || path === '/') Object.assign(headers, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' });
  const idempotency = parameters.some((p) => p['name'] === 'Idempotency-Key');
  if (idempotency) headers['idempotency-key'] = `"${crypto.randomUUID()}"`;
  const requestBody = operation['requestBody'] as Json | undefined;
  let body: string | undefined;
  if (requestBody) {
    const [type, media] = Object.entries(requestBody['content'] as Record<string, Json>)[0]!;
    const sample = GOOD_BODIES[`${service} ${method.toUpperCase()} ${template}`]?.(stack) ?? sampleBody(document, media['schema']);
    if (type === 'application/x-www-form-urlencoded') {
      body = new URLSearchParams(Object.entries((sample ?? {}) as Json).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
    } else if (type.startsWith('multipart/')) {
      const boundary = 'airlock-contract-test';
      body = `--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="sample.txt"\r\nContent-Type: text/plain\r\n\r\nsample\r\n--${boundary}--\r\n`;
      headers['content-type'] = `${type}; boundary=${boundary}`;
    } else body = JSON.stringify(sample ?? {});
    headers['content-type'] ??= type;
  }
  if (route?.signature) {
    const secret = signingSecret(service, path);
    if (secret !== undefined) {
      Object.assign(headers, signRequest(route.signature.scheme as SignatureScheme, { rawBody: Buffer.from(body ?? ''), secret, now: Math.floor(Date.now() / 1000), id: `msg_${crypto.randomUUID()}` }));
    }
  }
  const good: Call = { method, url, headers, ...(body !== undefined && { body }) };
  // The error case: the credential or signature left out, else a body of the wrong type, else a method the path lacks.
  const stripped = Object.fromEntries(Object.entries(headers).filter(([name]) => !['authorization', 'cookie', 'x-semantic-operator-token', 'x-signature', 'stripe-signature', 'webhook-signature', 'x-hub-signature-256'].includes(name)));
  // An operation open on one listener and secured on another is refused without the credential on the secured one.
  if (scheme && bases.secured !== undefined) return { good, bad: { ...good, url: good.url.replace(base, bases.secured), headers: stripped }, badMustFail: true };
  if ((scheme && !requirements.some((r) => Object.keys(r).length === 0)) || route?.signature) return { good, bad: { ...good, headers: stripped }, badMustFail: true };
  if (requestBody) return { good, bad: { ...good, headers: { ...headers, 'content-type': 'application/x-airlock-undeclared' }, body: 'not a declared type' }, badMustFail: true };
  const missing = ['patch', 'put', 'delete'].find((m) => !(m in (document['paths'] as Record<string, Json>)[template]!))!;
  return { good, bad: { method: missing, url, headers }, badMustFail: true };
}

/** Seed 002 on the ERP service: "No OpenAPI export exists"; its contract is a repository file only. */
const NOT_SERVED = new Set(['erp']);

/** The route of `committed` whose summary says it serves this export, and its bound URL. */
function findServedExport(manifest: ServiceManifest, committed: Json): { url: string } | undefined {
  for (const [template, item] of Object.entries(committed['paths'] as Record<string, Json>)) {
    const get = item['get'] as Json | undefined;
    if (!get || !template.endsWith('/openapi.json')) continue;
    const listener = (get['x-airlock-listeners'] as string[]).map((l) => stack.urls.get(`${manifest.service}/${l}`)).find(Boolean);
    if (listener) return { url: `${listener}${template}` };
  }
  return undefined;
}

/** Registers the suite; `live()` is the running stack, started by the file that runs the suite. */
export function liveAnswers(live: () => LiveStack): void {
  describe('live answers: every service against its own committed contract', () => {
    before(async () => {
      stack = live();
      manifests = await loadManifests();
      contentCookie = await contentSession(stack.urls.get('content/main')!, String(stack.secrets['content']!['dev_password']));
    }, { timeout: 120_000 });

    test('every service the seeds let serve its OpenAPI export serves it, deep-equal to the committed file', async () => {
      for (const manifest of manifests) {
        if (NOT_SERVED.has(manifest.service)) {
          assert.equal(findServedExport(manifest, JSON.parse(readFileSync(join(ROOT, manifest.openapiPath), 'utf8')) as Json), undefined, `${manifest.service} must not serve an export`);
          continue;
        }
        const committed = JSON.parse(readFileSync(join(ROOT, manifest.openapiPath), 'utf8')) as Json;
        const served = findServedExport(manifest, committed);
        assert.ok(served, `${manifest.service} declares no route that serves its export`);
        const answer = await call({ method: 'get', url: served.url, headers: { accept: 'application/json' } });
        assert.equal(answer.status, 200, `${manifest.service}: GET ${served.url}`);
        assert.deepEqual(JSON.parse(answer.text), committed, `${manifest.service}: the served export differs from ${manifest.openapiPath}`);
      }
    });

    test('every operation of every service answers as its contract declares, in a good and an error case', async () => {
      const violations: string[] = [];
      const tally: string[] = [];
      for (const manifest of manifests) {
        const document = JSON.parse(readFileSync(join(ROOT, manifest.openapiPath), 'utf8')) as Json;
        const routes = routeIndex(manifest);
        let operations = 0;
        let succeeded = 0;
        for (const [template, item] of Object.entries(document['paths'] as Record<string, Json>)) {
          for (const [method, operation] of Object.entries(item) as [string, Json][]) {
            if (!(HTTP_METHODS as readonly string[]).includes(method)) continue; // path-level servers or parameters
            const urlOf = (listener: string) => stack.urls.get(`${manifest.service}/${listener}`);
            const base = ((operation['x-airlock-listeners'] ?? ['main']) as string[]).map(urlOf).find(Boolean);
            const byListener = operation['x-airlock-listener-auth'] as Record<string, string> | undefined;
            const secured = byListener && Object.entries(byListener).filter(([, auth]) => auth !== 'none').map(([l]) => urlOf(l)).find(Boolean);
            if (base === undefined) {
              violations.push(`${manifest.service} ${method.toUpperCase()} ${template}: no listener of ${JSON.stringify(operation['x-airlock-listeners'])} is running`);
              continue;
            }
            operations++;
            const { good, bad, badMustFail } = plan(document, manifest.service, { good: base, secured }, template, method, operation, routes.get(`${method} ${template}`));
            for (const [label, request, mustFail] of [['good', good, false], ['error', bad, badMustFail]] as const) {
              let answer: Answer & { challenge: string | null };
              try {
                answer = await call(request);
              } catch (error) {
                violations.push(`${manifest.service} ${label} ${method.toUpperCase()} ${template}: no answer: ${(error as Error).message}`);
                continue;
              }
              if (label === 'good' && answer.status < 400) succeeded++;
              // RFC 9110 11.6.1: every 401 names a challenge.
              if (answer.status === 401 && !answer.challenge) violations.push(`${manifest.service} ${label} ${request.method.toUpperCase()} ${template}: 401 without WWW-Authenticate`);
              // A browser route refuses a missing session with a redirect to its login: not a 2xx either.
              if (mustFail && answer.status < 300) violations.push(`${manifest.service} error ${request.method.toUpperCase()} ${template}: answered ${answer.status}, expected an error`);
              for (const v of answerViolations(document, template, label === 'good' ? method : request.method, answer)) violations.push(`${manifest.service} ${label} ${request.method.toUpperCase()} ${template}: ${v}`);
            }
          }
        }
        tally.push(`${manifest.service}: ${operations} operations, ${succeeded} good cases answered below 400`);
      }
      process.stderr.write(`${tally.join('\n')}\n`);
      assert.equal(violations.length, 0, `${violations.length} answers differ from their contract:\n${violations.join('\n')}`);
    });
  });
}
