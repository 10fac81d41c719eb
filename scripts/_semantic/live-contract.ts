// The probes of check_live_runtime_contract, planned from the OpenAPI contract: for every
// operation the answer with valid credentials (status, media type, schema, ETag and 304 for
// readbacks, receipt TTL), and the fail-closed answers: 401 without or with a wrong token, 401 for
// the other credential kind, 403 for a downstream-gated consumer or a case ref not admitted (or
// 503 without an allowlist), 422 for an unknown member, 400 for a query parameter; plus 404 for an
// unknown path and 405 for a wrong method. Each probe returns its differences.

import { PROBLEM_URN } from '../../src/kernel/index.ts';
import { check } from './check-report.ts';
import type { Check } from './check-report.ts';
import { BudgetExhausted } from './http-client.ts';
import type { HttpAnswer, HttpClient } from './http-client.ts';
import { objectOf } from './json-file.ts';
import { listOperations } from './openapi-operations.ts';
import type { OpenApiOperation } from './openapi-operations.ts';
import { createResponseChecker } from './openapi-responses.ts';

export interface LiveOptions {
  client: HttpClient;
  openapi: unknown;
  operatorToken: string;
  consumerToken: string;
  /** A downstream-gated consumer's token: its 403 is probed when given. */
  gatedToken?: string | undefined;
  /** An admitted ts02: case ref: the projection run itself is probed when given. */
  caseRef?: string | undefined;
  /** Only the valid answer of each read, one fixture and one 401. */
  smoke?: boolean;
}

export interface Probe {
  name: string;
  run(): Promise<string[]>;
}

const BAD_TOKEN = 'airlock-live-check-not-a-configured-token-0000';
const UNADMITTED_CASE = 'ts02:airlock-live-check-not-admitted';
const MAX_TTL_SECONDS = 3600;

type Kind = 'open' | 'consumer' | 'operator' | 'projection';

/** How an operation authenticates, from its security scheme; the operator header's name too. */
function classify(doc: unknown, op: OpenApiOperation): { kind: Kind; header: string } {
  const schemes = objectOf(objectOf(objectOf(doc)['components'])['securitySchemes']);
  const scheme = objectOf(schemes[op.security[0] ?? '']);
  if (op.security.length === 0) return { kind: 'open', header: '' };
  if (scheme['type'] === 'http' && String(scheme['scheme']).toLowerCase() === 'bearer') return { kind: 'consumer', header: 'authorization' };
  // An operator operation that declares 503 is gated by the case allowlist as well (fails closed).
  return { kind: op.responses.includes('503') ? 'projection' : 'operator', header: String(scheme['name'] ?? 'x-semantic-operator-token').toLowerCase() };
}

function problemReasons(where: string, answer: HttpAnswer, status: number, slugs: readonly string[]): string[] {
  if (answer.status !== status) return [`${where}: expected ${status}, got ${answer.status}`];
  const type = objectOf(answer.json)['type'];
  const wanted = slugs.map((slug) => `${PROBLEM_URN}${slug}`);
  return wanted.length === 0 || wanted.includes(String(type)) ? [] : [`${where}: expected problem type ${wanted.join(' or ')}, got ${JSON.stringify(type ?? null)}`];
}

function ttlReasons(where: string, body: unknown): string[] {
  const record = objectOf(body);
  if (typeof record['issued_at'] !== 'string' || typeof record['expires_at'] !== 'string') return [];
  const seconds = (Date.parse(record['expires_at']) - Date.parse(record['issued_at'])) / 1000;
  return seconds > 0 && seconds <= MAX_TTL_SECONDS ? [] : [`${where}: receipt TTL is ${seconds} s, expected 1 to ${MAX_TTL_SECONDS}`];
}

/** A valid request body for `op` from its request schema (first admitted value of each required member). */
export function sampleBody(op: OpenApiOperation, caseRef: string): Record<string, unknown> | undefined {
  const requestBody = objectOf(op.operation['requestBody']);
  const schema = objectOf(objectOf(objectOf(objectOf(requestBody['content'])['application/json'])['schema']));
  const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
  if (required.length === 0 && requestBody['required'] !== true) return undefined;
  const properties = objectOf(schema['properties']);
  const ids: Record<string, string> = { correlation_id: 'airlock-live-check-1', source_event_id: 'airlock-live-check-event-1', case_ref: caseRef };
  return Object.fromEntries(required.map((name) => {
    const property = objectOf(properties[name]);
    const value = Array.isArray(property['enum']) ? property['enum'][0] : 'const' in property ? property['const'] : (ids[name] ?? 'airlock-live-check');
    return [name, value];
  }));
}

/** The probes for `options`, in contract order. */
export function planLiveProbes(options: LiveOptions): Probe[] {
  const { client, openapi } = options;
  const judge = createResponseChecker(openapi);
  const probes: Probe[] = [];
  const add = (name: string, run: () => Promise<string[]>) => probes.push({ name, run });
  const operations = listOperations(openapi);
  // Smoke: one fixture's valid answer and one 401, on the first of each kind.
  const smokeFixture = operations.find((o) => o.method === 'POST' && classify(openapi, o).kind === 'operator');
  const smokeRefusal = operations.find((o) => classify(openapi, o).kind === 'consumer');
  const operatorHeader = operations.map((o) => classify(openapi, o)).find((c) => c.kind === 'operator')?.header ?? 'x-semantic-operator-token';
  for (const op of operations) {
    const { kind, header } = classify(openapi, op);
    const where = `${op.method} ${op.path}`;
    const valid: Record<string, string> = kind === 'consumer' ? { authorization: `Bearer ${options.consumerToken}` } : kind === 'open' ? {} : { [header]: options.operatorToken };
    const body = op.method === 'POST' ? sampleBody(op, options.caseRef ?? UNADMITTED_CASE) : undefined;
    const send = (headers: Record<string, string>, payload = body, suffix = '') => client.send(op.method, `${op.path}${suffix}`, {
      headers: { accept: 'application/json', ...headers, ...(payload !== undefined && { 'content-type': 'application/json' }) },
      ...(payload !== undefined && { body: JSON.stringify(payload) }),
    });
    const probeValid = options.smoke ? op.method === 'GET' || op === smokeFixture : kind !== 'projection' || options.caseRef !== undefined;
    // Without an admitted case ref, the projection's answer to probe is the fail-closed one below.
    if (probeValid) {
      add(`${where} with valid credentials`, async () => {
        const answer = await send(valid);
        if (answer.status !== 200 && !(kind === 'open' && answer.status === 503)) return [`${where}: expected 200, got ${answer.status}`, ...judge(op, answer)];
        const reasons = [...judge(op, answer), ...ttlReasons(where, answer.json)];
        if (op.method === 'GET' && kind !== 'open') reasons.push(...(await conditionalReasons(where, answer, send, valid)));
        if (kind === 'projection') {
          const again = await send(valid);
          const [first, second] = [objectOf(answer.json)['receipt_sha256'], objectOf(again.json)['receipt_sha256']];
          if (again.status !== 200 || first !== second) reasons.push(`${where}: the same request gave another receipt (${String(first)} then ${String(second)}, status ${again.status})`);
        }
        return reasons;
      });
    }
    if (kind === 'open' || (options.smoke && op !== smokeRefusal)) continue;
    const missingSlug = kind === 'consumer' ? 'consumer_token_missing' : 'operator_token_missing';
    add(`${where} without a credential`, async () => {
      const answer = await send({});
      const reasons = [...problemReasons(`${where} without a credential`, answer, 401, [missingSlug]), ...judge(op, answer)];
      if (kind === 'consumer' && answer.status === 401 && !/^Bearer\b/i.test(answer.headers.get('www-authenticate') ?? '')) reasons.push(`${where} without a credential: no WWW-Authenticate: Bearer challenge`);
      return reasons;
    });
    if (options.smoke) continue;
    const wrong = kind === 'consumer' ? { authorization: `Bearer ${BAD_TOKEN}` } : { [header]: BAD_TOKEN };
    add(`${where} with a wrong token`, async () => {
      const answer = await send(wrong);
      return [...problemReasons(`${where} with a wrong token`, answer, 401, [kind === 'consumer' ? 'consumer_token_invalid' : 'operator_token_invalid']), ...judge(op, answer)];
    });
    const other: Record<string, string> = kind === 'consumer' ? { [operatorHeader]: options.operatorToken } : { authorization: `Bearer ${options.consumerToken}` };
    add(`${where} with the other credential kind only`, async () => {
      const answer = await send(other);
      return problemReasons(`${where} with the other credential kind only`, answer, 401, [missingSlug]);
    });
    if (kind === 'consumer' && options.gatedToken !== undefined) {
      const gated = options.gatedToken;
      add(`${where} with a downstream-gated consumer token`, async () => {
        const answer = await send({ authorization: `Bearer ${gated}` });
        return [...problemReasons(`${where} with a downstream-gated consumer token`, answer, 403, ['downstream_gated']), ...judge(op, answer)];
      });
    }
    if (kind === 'projection') {
      add(`${where} with a case ref that is not admitted`, async () => {
        const answer = await send(valid, { ...body, case_ref: UNADMITTED_CASE });
        const reasons = answer.status === 503
          ? problemReasons(`${where} with a case ref that is not admitted`, answer, 503, ['projection_allowlist_absent'])
          : problemReasons(`${where} with a case ref that is not admitted`, answer, 403, ['case_ref_not_admitted']);
        return [...reasons, ...judge(op, answer)];
      });
      if (options.caseRef === undefined) continue;
    }
    if (op.method === 'POST') {
      add(`${where} with an unknown member`, async () => {
        const answer = await send(valid, { ...body, airlock_live_check_unknown: true });
        return [...problemReasons(`${where} with an unknown member`, answer, 422, []), ...judge(op, answer)];
      });
    }
    add(`${where} with a query parameter`, async () => {
      const answer = await send(valid, body, '?airlock_live_check=1');
      return [...problemReasons(`${where} with a query parameter`, answer, 400, ['query_not_accepted']), ...judge(op, answer)];
    });
  }
  if (!options.smoke) {
    add('GET of a path outside the contract', async () => {
      const answer = await client.send('GET', '/api/v1/semantic/airlock-live-check-unknown', { headers: { authorization: `Bearer ${options.consumerToken}` } });
      return answer.status === 404 ? [] : [`GET /api/v1/semantic/airlock-live-check-unknown: expected 404, got ${answer.status}`];
    });
    add('DELETE /healthz (a method the contract does not declare)', async () => {
      const answer = await client.send('DELETE', '/healthz');
      if (answer.status !== 405) return [`DELETE /healthz: expected 405, got ${answer.status}`];
      return /\bGET\b/.test(answer.headers.get('allow') ?? '') ? [] : ['DELETE /healthz: the 405 has no Allow header naming GET'];
    });
  }
  return probes;
}

// A strong ETag that answers 304; a body that changed in between is re-read once.
async function conditionalReasons(where: string, answer: HttpAnswer, send: (headers: Record<string, string>) => Promise<HttpAnswer>, valid: Record<string, string>): Promise<string[]> {
  let etag = answer.headers.get('etag');
  if (etag === null || !/^"[^"]+"$/.test(etag)) return [`${where}: no strong ETag (${etag ?? 'none'})`];
  for (let attempt = 0; attempt < 2; attempt++) {
    const again = await send({ ...valid, 'if-none-match': etag });
    if (again.status === 304) return [];
    const next = again.headers.get('etag');
    if (again.status !== 200 || next === etag || next === null) return [`${where} with If-None-Match: expected 304, got ${again.status}`];
    etag = next;
  }
  return [`${where} with If-None-Match: the ETag changed on every request`];
}

/** Runs the probes in order; a spent budget becomes a failed check and stops the run. Unreachable propagates. */
export async function runLiveProbes(probes: readonly Probe[]): Promise<Check[]> {
  const checks: Check[] = [];
  for (const probe of probes) {
    try {
      checks.push(check(probe.name, await probe.run()));
    } catch (error) {
      if (!(error instanceof BudgetExhausted)) throw error;
      checks.push(check('request budget', [`${error.message}: ${probes.length - checks.length} probes not run`]));
      break;
    }
  }
  return checks;
}

