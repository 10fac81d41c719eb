// The six governance routes the telephony deployment consumes (seed 002), each checked against
// its contract: served on the public platform listener (200, JSON), the body valid against the
// 200 schema that the governance OpenAPI export publishes for it, and the content the telephony
// side relies on (event types, slice states, the consumed ports 19088 and 19089).

import { compileSchema } from '../../src/kernel/index.ts';
import type { JsonSchema } from '../../src/kernel/index.ts';
import { fail, pass } from './check.ts';
import type { CheckResult } from './check.ts';
import { httpGet, Unreachable } from './probe.ts';
import type { HttpAnswer } from './probe.ts';

export const GOVERNANCE_ROUTES = [
  '/api/v1/contracts/matrix',
  '/api/v1/contracts/docs-standard',
  '/api/v1/voice/contracts/events',
  '/api/v1/combinations/profiles',
  '/api/v1/combinations/optional-slices',
  '/api/v1/combinations/optional-slices/carrier-cti',
] as const;

const SLICE_STATES = ['disabled', 'planned', 'enabled'];
/** Seed 002's static-required ports, which the carrier-cti slice must list as consumed. */
export const STATIC_PORTS = { rest: 19088, guiBackend: 19089 } as const;
type Body = Record<string, unknown>;
const isList = (value: unknown): value is Body[] => Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null);

/** What the telephony side relies on in each body; a reason when it is not there. */
function contentProblem(path: (typeof GOVERNANCE_ROUTES)[number], body: Body): string | undefined {
  switch (path) {
    case '/api/v1/contracts/matrix':
      return isList(body['families']) && Array.isArray(body['services']) ? undefined : 'no families and services lists';
    case '/api/v1/contracts/docs-standard':
      return Array.isArray(body['mandatory_sections']) && body['mandatory_sections'].length > 0 ? undefined : 'no mandatory_sections';
    case '/api/v1/voice/contracts/events': {
      const types = body['event_types'];
      if (!isList(types) || types.length === 0) return 'no event_types';
      const bad = types.find((t) => typeof t['type'] !== 'string' || !String(t['type']).startsWith('voice.') || !Array.isArray(t['fields']));
      return bad ? `event type ${JSON.stringify(bad['type'] ?? null)} is not "voice.*" with a fields list` : undefined;
    }
    case '/api/v1/combinations/profiles': {
      const profiles = body['profiles'];
      if (!isList(profiles)) return 'no profiles list';
      const bad = profiles.find((p) => typeof p['profile'] !== 'string' || !SLICE_STATES.includes(String(p['state'])));
      return bad ? `profile ${JSON.stringify(bad['profile'] ?? null)} has state ${JSON.stringify(bad['state'] ?? null)}` : undefined;
    }
    case '/api/v1/combinations/optional-slices': {
      const slices = body['slices'];
      if (!isList(slices)) return 'no slices list';
      const bad = slices.find((s) => !SLICE_STATES.includes(String(s['state'])));
      if (bad) return `slice ${JSON.stringify(bad['slice'] ?? null)} has state ${JSON.stringify(bad['state'] ?? null)}, not disabled, planned or enabled`;
      return slices.some((s) => s['slice'] === 'carrier-cti') ? undefined : 'the carrier-cti slice is not listed';
    }
    case '/api/v1/combinations/optional-slices/carrier-cti': {
      if (!SLICE_STATES.includes(String(body['state']))) return `state ${JSON.stringify(body['state'] ?? null)} is not disabled, planned or enabled`;
      const consumed = Array.isArray(body['consumed_ports']) ? body['consumed_ports'] : [];
      const missing = [STATIC_PORTS.rest, STATIC_PORTS.guiBackend].filter((p) => !consumed.includes(p));
      return missing.length > 0 ? `consumed_ports ${JSON.stringify(consumed)} lacks ${missing.join(' and ')}` : undefined;
    }
  }
}

/** Checks the six routes on `baseUrl` (the platform listener); throws Unreachable when its export does not answer (a route that then does not answer is its check failing). */
export async function checkGovernance(baseUrl: string, options: { timeoutMs: number }): Promise<CheckResult[]> {
  const exported = await httpGet(`${baseUrl}/api/v1/openapi.json`, { timeoutMs: options.timeoutMs });
  const paths = (exported.json as { paths?: Record<string, { get?: { responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> } }> } | undefined)?.paths;
  if (exported.status !== 200 || paths === undefined) {
    return [fail('governance:/api/v1/openapi.json', `the export answered ${exported.status}${paths === undefined ? ' without paths' : ''}: the route contracts cannot be read`, { status: exported.status })];
  }
  const results: CheckResult[] = [];
  for (const path of GOVERNANCE_ROUTES) {
    const check = `governance:${path}`;
    const contract = paths[path]?.get?.responses?.['200'];
    if (contract === undefined) {
      results.push(fail(check, 'the governance export publishes no GET operation with a 200 response for this route'));
      continue;
    }
    let answer: HttpAnswer;
    try {
      answer = await httpGet(`${baseUrl}${path}`, { timeoutMs: options.timeoutMs });
    } catch (error) {
      // The service answered its export a moment ago: this route failing is this check failing.
      if (!(error instanceof Unreachable)) throw error;
      results.push(fail(check, error.message, { target: `${baseUrl}${path}` }));
      continue;
    }
    if (answer.status !== 200) {
      const detail = typeof (answer.json as Body | undefined)?.['detail'] === 'string' ? `: ${(answer.json as Body)['detail']}` : '';
      results.push(fail(check, `answered ${answer.status}${detail}`, { status: answer.status }));
      continue;
    }
    if (!/^application\/([a-z.+-]+\+)?json\b/.test(answer.contentType) || typeof answer.json !== 'object' || answer.json === null || Array.isArray(answer.json)) {
      results.push(fail(check, `answered 200 with ${answer.contentType || 'no content type'}, not a JSON object`, { status: 200 }));
      continue;
    }
    const schema = Object.values(contract.content ?? {})[0]?.schema;
    if (schema !== undefined) {
      let validate;
      try {
        validate = compileSchema(schema).validate;
      } catch (error) {
        results.push(fail(check, `the published 200 schema does not compile: ${(error as Error).message}`, { status: 200 }));
        continue;
      }
      const validation = validate(answer.json);
      if (!validation.valid) {
        const first = validation.errors[0]!;
        results.push(fail(check, `the body breaks the published 200 schema at "${first.instancePath}": ${first.message}`, { status: 200 }));
        continue;
      }
    }
    const problem = contentProblem(path, answer.json as Body);
    results.push(problem === undefined ? pass(check, 'served, valid against its published schema and content') : fail(check, problem, { status: 200 }));
  }
  return results;
}
