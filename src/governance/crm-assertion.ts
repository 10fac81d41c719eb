// GET /api/v1/acp/assertions/context-capability/{tool_name}: a CRM context-capability assertion.
// The order is the contract's (acp_context_assertion_v1.json): parameters and freshness, then the
// tool, then the company; only an admitted company of an assertable tool reaches the upstream
// CRM adapter, and only a fresh answer for the same context is believed.

import { json, problem } from '../kernel/index.ts';
import type { Reply, RequestContext } from '../kernel/index.ts';
import { toolRegistry } from './crossrefs.ts';
import { artifactMember, failClosed } from './read-route.ts';
import type { GovernanceRuntime } from './runtime.ts';

export const CONTEXT_FIELDS = ['tenant_id', 'company_id', 'environment', 'adapter_instance_id'] as const;

interface AssertionContract {
  identifier_pattern: string;
  environments: string[];
  assertable_tools: string[];
  freshness: { max_context_age_seconds: number; max_clock_skew_seconds: number; max_upstream_age_seconds: number };
  upstream: { path: string };
  authority: string;
}

type Context = Record<(typeof CONTEXT_FIELDS)[number], string> & { context_observed_at: number };

function denied(status: 403 | 404 | 422, title: string, reason: string, detail: string, extra: Record<string, unknown> = {}): Reply {
  return problem(status, title, { type: `context-capability-${reason.replaceAll('_', '-')}`, detail, extensions: { decision: 'denied', reason, upstream_contacted: false, ...extra } });
}

export async function contextCapabilityReply(runtime: GovernanceRuntime, request: RequestContext): Promise<Reply> {
  const contract = artifactMember(runtime, 'acp_context_assertion/context-capability') as unknown as AssertionContract;
  const parsed = readContext(request.query, contract);
  if ('errors' in parsed) {
    return problem(422, 'Assertion context is invalid', {
      type: 'context-capability-invalid-context',
      detail: parsed.errors.map((e) => e.detail).join('; '),
      errors: parsed.errors,
      extensions: { decision: 'denied', reason: 'invalid_context', upstream_contacted: false },
    });
  }
  const context = parsed.context;
  const { max_context_age_seconds: maxAge, max_clock_skew_seconds: skew, max_upstream_age_seconds: maxUpstreamAge } = contract.freshness;
  const nowSeconds = Math.floor(runtime.now() / 1000);
  const age = nowSeconds - context.context_observed_at;
  if (age > maxAge || age < -skew) {
    return denied(422, 'Assertion context is stale', 'stale_context', `context_observed_at ${context.context_observed_at} is ${age} s old; fresh means at most ${maxAge} s old and at most ${skew} s ahead`);
  }
  const toolName = request.params['tool_name'] ?? '';
  const tool = toolRegistry(runtime)!.find((t) => t.tool_name === toolName);
  if (!tool) return denied(404, 'Unknown tool', 'unknown_tool', `Tool "${toolName}" is not in the tool-action registry (/api/v1/acp/contracts/tool-action-registry)`);
  if (!tool.assertable || !contract.assertable_tools.includes(toolName)) {
    return denied(403, 'Tool not assertable', 'tool_not_assertable', `Tool "${toolName}" admits no context-capability assertion`);
  }
  const company = `${context.tenant_id}/${context.company_id}`;
  if (!runtime.config.crm.knownCompanies.includes(company)) {
    return denied(403, 'Unknown company', 'unknown_company', `Company "${context.company_id}" of tenant "${context.tenant_id}" is not admitted; the upstream was not contacted`);
  }
  const upstream = runtime.config.crm.upstreamUrl;
  if (upstream === undefined) {
    return failClosed('No CRM upstream is configured (GOVERNANCE_CRM_UPSTREAM_URL): the assertion cannot be answered', { reason: 'upstream_not_configured', projection_state: 'awaiting_transport_owner', decision: 'denied' });
  }
  const answer = await askUpstream(runtime, upstream, contract, toolName, context);
  if (!answer.ok) return failClosed(`The CRM upstream gave no usable answer: ${answer.detail}`, { reason: answer.reason, projection_state: 'awaiting_transport_owner', decision: 'denied', upstream_contacted: true });
  const observedMs = Date.parse(String(answer.body['observed_at']));
  const upstreamAge = nowSeconds - Math.floor(observedMs / 1000);
  if (upstreamAge > maxUpstreamAge || upstreamAge < -skew) {
    return failClosed(`The CRM upstream answer is stale: observed_at ${String(answer.body['observed_at'])} is ${upstreamAge} s old (at most ${maxUpstreamAge} s)`, { reason: 'upstream_stale', projection_state: 'awaiting_transport_owner', decision: 'denied', upstream_contacted: true });
  }
  if (answer.body['admitted'] !== true) {
    return problem(403, 'Context capability denied', { type: 'context-capability-upstream-denied', detail: `The CRM adapter does not admit tool "${toolName}" for this context`, extensions: { decision: 'denied', reason: 'upstream_denied', upstream_contacted: true } });
  }
  return json({
    decision: 'admitted',
    tool_name: toolName,
    capability_class: tool.capability_class,
    ...Object.fromEntries(CONTEXT_FIELDS.map((f) => [f, context[f]])),
    context_observed_at: context.context_observed_at,
    upstream_observed_at: new Date(observedMs).toISOString(),
    authority: contract.authority,
  });
}

function readContext(query: URLSearchParams, contract: AssertionContract): { context: Context } | { errors: { pointer: string; detail: string }[] } {
  const pattern = new RegExp(contract.identifier_pattern);
  const errors: { pointer: string; detail: string }[] = [];
  const values: Record<string, string> = {};
  for (const name of [...CONTEXT_FIELDS, 'context_observed_at']) {
    const all = query.getAll(name);
    const pointer = `/query/${name}`;
    if (all.length === 0 || all[0] === '') errors.push({ pointer, detail: `Query parameter "${name}" is required` });
    else if (all.length > 1) errors.push({ pointer, detail: `Query parameter "${name}" is given ${all.length} times; it must be exact` });
    else values[name] = all[0]!;
  }
  for (const name of CONTEXT_FIELDS) {
    const value = values[name];
    if (value !== undefined && !pattern.test(value)) errors.push({ pointer: `/query/${name}`, detail: `Query parameter "${name}" must match ${contract.identifier_pattern}` });
  }
  if (values['environment'] !== undefined && !contract.environments.includes(values['environment'])) {
    errors.push({ pointer: '/query/environment', detail: `Environment "${values['environment']}" is not one of ${contract.environments.join(', ')}` });
  }
  const observed = values['context_observed_at'];
  if (observed !== undefined && !/^\d{1,12}$/.test(observed)) errors.push({ pointer: '/query/context_observed_at', detail: 'Query parameter "context_observed_at" must be Unix seconds' });
  if (errors.length > 0) return { errors };
  return { context: { ...(values as Record<(typeof CONTEXT_FIELDS)[number], string>), context_observed_at: Number(observed) } };
}

/**
 * Readiness asks the owner: `GET {url}{upstream.path}` for the first assertable tool, without a
 * context. Any answer below 500 within GOVERNANCE_CRM_TIMEOUT_MS (an adapter answers a question
 * without context with a 4xx) shows the owner is there; a refused connection, no answer in time
 * or a 5xx means every assertion would fail closed, so nothing that depends on it is ready.
 */
export async function askCrmOwner(runtime: GovernanceRuntime, base: string): Promise<{ ok: true } | { ok: false; detail: string }> {
  const contract = artifactMember(runtime, 'acp_context_assertion/context-capability') as unknown as AssertionContract | undefined;
  if (contract === undefined) return { ok: false, detail: 'the context-assertion contract is not valid' };
  const tool = contract.assertable_tools[0] ?? '';
  const url = `${base}${contract.upstream.path.replace('{tool_name}', encodeURIComponent(tool))}`;
  try {
    const response = await runtime.fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(runtime.config.crm.timeoutMs), redirect: 'error' });
    await response.body?.cancel();
    return response.status < 500 ? { ok: true } : { ok: false, detail: `the CRM owner at "${base}" answers ${response.status}` };
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? `gave no answer within ${runtime.config.crm.timeoutMs} ms` : 'is unreachable';
    return { ok: false, detail: `the CRM owner at "${base}" ${why}` };
  }
}

type UpstreamAnswer = { ok: true; body: Record<string, unknown> } | { ok: false; reason: string; detail: string };

async function askUpstream(runtime: GovernanceRuntime, base: string, contract: AssertionContract, toolName: string, context: Context): Promise<UpstreamAnswer> {
  const url = new URL(`${base}${contract.upstream.path.replace('{tool_name}', encodeURIComponent(toolName))}`);
  for (const field of CONTEXT_FIELDS) url.searchParams.set(field, context[field]);
  let response: Response;
  try {
    response = await runtime.fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(runtime.config.crm.timeoutMs), redirect: 'error' });
  } catch (error) {
    runtime.log.warn('CRM upstream unreachable', { error: (error as Error).message });
    return { ok: false, reason: 'upstream_unreachable', detail: (error as Error).name === 'TimeoutError' ? `no answer within ${runtime.config.crm.timeoutMs} ms` : 'the connection failed' };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    // The body is not JSON: the answer is unusable, whatever its status.
    return { ok: false, reason: 'upstream_invalid', detail: `status ${response.status} with a body that is not JSON` };
  }
  if (response.status !== 200) return { ok: false, reason: 'upstream_unavailable', detail: `status ${response.status}` };
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const mismatched = [...CONTEXT_FIELDS.filter((f) => record[f] !== context[f]), ...(record['tool_name'] === toolName ? [] : ['tool_name'])];
  if (mismatched.length > 0) return { ok: false, reason: 'upstream_mismatch', detail: `the answer is for another context (${mismatched.join(', ')})` };
  if (typeof record['admitted'] !== 'boolean' || Number.isNaN(Date.parse(String(record['observed_at'])))) {
    return { ok: false, reason: 'upstream_invalid', detail: 'the answer lacks a boolean "admitted" or an RFC 3339 "observed_at"' };
  }
  return { ok: true, body: record };
}
