import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import { startGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';
import { REPO, rootEnv } from './_fixtures.ts';

let running: RunningGovernance;
const bootstrap = JSON.parse(readFileSync(join(REPO, 'contracts/governance/agent_contracts_v1.json'), 'utf8')).content.bootstrap as { roles: string[]; items: { id: string; roles: string[] }[] };

before(async () => {
  running = await startGovernance({ role: 'platform-api', env: rootEnv(REPO) });
});
after(() => running.stop());

test('GET /api/v1/agent/bootstrap returns exactly the items of the caller\'s role', async () => {
  const seen = new Set<string>();
  for (const role of bootstrap.roles) {
    const body = (await send(`${running.platform}/api/v1/agent/bootstrap?role=${role}`)).json() as { role: string; items: { id: string }[] };
    const expected = bootstrap.items.filter((i) => i.roles.includes(role)).map((i) => i.id);
    assert.equal(body.role, role);
    assert.deepEqual(body.items.map((i) => i.id), expected, role);
    assert.ok(expected.length < bootstrap.items.length, `${role} sees a filtered view`);
    for (const id of expected) seen.add(id);
  }
  assert.equal(seen.size, bootstrap.items.length, 'every item reaches some role');
  const operator = (await send(`${running.platform}/api/v1/agent/bootstrap?role=operator`)).json() as { items: { id: string }[] };
  const agent = (await send(`${running.platform}/api/v1/agent/bootstrap?role=agent`)).json() as { items: { id: string }[] };
  assert.ok(operator.items.some((i) => i.id === 'operator-listener') && !agent.items.some((i) => i.id === 'operator-listener'));
});

test('GET /api/v1/agent/bootstrap refuses a missing, unknown or repeated role with 422', async () => {
  for (const query of ['', '?role=', '?role=root', '?role=agent&role=operator', '?Role=agent']) {
    const response = await send(`${running.platform}/api/v1/agent/bootstrap${query}`);
    assert.equal(response.status, 422, query);
    assert.deepEqual((response.json() as { errors: { pointer: string }[] }).errors.map((e) => e.pointer), ['/query/role']);
  }
});

test('GET /api/v1/agent/action-context/{module_key}: the module\'s context, 404 for an unknown module', async () => {
  const known = await send(`${running.platform}/api/v1/agent/action-context/crm-context`);
  assert.equal(known.status, 200);
  const body = known.json() as { module_key: string; admitted_action_intents: string[]; tools: { tool_name: string; capability_class: string }[] };
  assert.equal(body.module_key, 'crm-context');
  assert.deepEqual(body.admitted_action_intents, ['assert_context_capability']);
  assert.deepEqual(body.tools.map((t) => t.capability_class), ['context_read', 'context_read']);
  for (const unknown of ['no-such-module', 'CRM-CONTEXT', 'crm-context%2Fx']) {
    const response = await send(`${running.platform}/api/v1/agent/action-context/${unknown}`);
    assert.equal(response.status, 404, unknown);
    assert.match((response.json() as { detail: string }).detail, /is not in the capability-module map/);
  }
});

test('GET /api/v1/agent/contracts lists every agent contract route with its member state', async () => {
  const body = (await send(`${running.platform}/api/v1/agent/contracts`)).json() as { contracts: { route: string; projection_state: string }[] };
  assert.deepEqual(body.contracts.map((c) => c.route.split('/').at(-1)), ['owner-matrix', 'capability-module-map', 'task-tool-selection', 'access-answers', 'tool-usage', 'learning-signal', 'workflow']);
  assert.equal(body.contracts.find((c) => c.route.endsWith('learning-signal'))?.projection_state, 'not_deployed');
});
