// A governance service that answers badly: a body that stalls after its headers, or a 200 whose
// JSON is not the object governance publishes (null, an array, members of the wrong type). Each
// is governance trouble, not ours: the reads mark it unavailable or fail closed (503), the writes
// and the live upstream path fail closed (503), nothing answers 500, and the process keeps serving.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { send, sendJson } from '../helpers/http.ts';
import { AUTH, authority, startStack, WRITES } from './_stack.ts';
import type { Stack } from './_stack.ts';

const READS = ['/api/v1/runtime/inventory', '/api/v1/topology/diff', '/api/v1/drift/summary', '/api/v1/rollouts/audit', '/api/v1/control-agent/status', '/api/v1/persistent-agents'];

/** What the double answers now: a JSON text with status 200, 'stall' (headers, half a body, then nothing), or 'status:N' (a problem with status N). */
let answer = 'null';
let double: Server;
let port = 0;
before(async () => {
  double = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const status = answer.startsWith('status:') ? Number(answer.slice(7)) : 200;
      response.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'application/problem+json' });
      if (status !== 200) response.end(JSON.stringify({ title: 'Not found', status, detail: `No route for "${request.url}"` }));
      else if (answer === 'stall') response.write('{"services":');
      else response.end(answer);
    });
  });
  await new Promise<void>((resolve) => double.listen(0, '127.0.0.1', resolve));
  port = (double.address() as AddressInfo).port;
});
after(() => {
  double.closeAllConnections();
  double.close();
});

/** A fresh agent-context on the double (governance truth is reused for 5 s, so one per answer). */
function onDouble(): Promise<Stack> {
  return startStack({ governance: false, env: { GOVERNANCE_URL: `http://127.0.0.1:${port}`, AGENT_CONTEXT_UPSTREAM_TIMEOUT_MS: '150' } });
}

async function everyRouteFailsClosed(stack: Stack, label: string): Promise<void> {
  for (const path of READS) {
    const response = await send(`${stack.url}${path}`, { headers: AUTH });
    assert.ok(response.status === 200 || response.status === 503, `${label} ${path}: ${response.status} ${response.text}`);
  }
  for (const [path, intent, body] of WRITES) {
    const response = await sendJson(`${stack.url}${path}`, { ...body, authority_context: authority(intent) }, { headers: AUTH });
    assert.equal(response.status, 503, `${label} ${path}: ${response.text}`);
  }
  // The live path passes on a JSON object as governance composed it; anything else is no composition.
  const composed = await sendJson(`${stack.url}/api/v1/context/compose`, { role: 'agent', include: ['workflow'] }, { headers: AUTH });
  assert.equal(composed.status, answer.startsWith('{') ? 200 : 503, `${label} compose: ${composed.text}`);
  assert.equal((await send(`${stack.url}/health`)).status, 200, `${label}: the process still serves`);
}

test('a governance body that stalls after its headers is unreachable governance, and the process survives it', async () => {
  answer = 'stall';
  const stack = await onDouble();
  try {
    await everyRouteFailsClosed(stack, 'stall');
    // The refused truth is not kept: the next read asks again, and still nothing crashed.
    const again = await send(`${stack.url}/api/v1/persistent-agents`, { headers: AUTH });
    assert.equal(again.status, 200);
    assert.match(again.text, /"outcome":"unreachable"/);
  } finally {
    await stack.stop();
  }
});

for (const [label, text] of [
  ['null', 'null'],
  ['an array', '[]'],
  ['a string', '"ok"'],
  ['members of the wrong type', JSON.stringify({ services: 'all', admitted_action_intents: 'control_agent', context: { action_context: { admitted_action_intents: 'control_agent', capability_class: 'x' } } })],
  ['entries of the wrong type', JSON.stringify({ services: [null, 7, { service: 'agent-context', executables: 'agent-context-api' }], admitted_action_intents: [1, null] })],
] as const) {
  test(`a governance 200 carrying ${label} is never a 500`, async () => {
    answer = text;
    const stack = await onDouble();
    try {
      await everyRouteFailsClosed(stack, label);
    } finally {
      await stack.stop();
    }
  });
}

// GOVERNANCE_URL on the platform listener (which serves no composer: 404) or a token a lane gate
// refuses is the operator's wiring, not the caller's authority: 503, as for any unusable upstream.
for (const status of [401, 403, 404]) {
  test(`a governance ${status} on the context composer is a projection failure (503), not an authority refusal`, async () => {
    answer = `status:${status}`;
    const stack = await onDouble();
    try {
      for (const [path, intent, body] of WRITES) {
        const response = await sendJson(`${stack.url}${path}`, { ...body, authority_context: authority(intent) }, { headers: AUTH });
        assert.equal(response.status, 503, `${path}: ${response.text}`);
        assert.equal((response.json() as { reason: string }).reason, 'authority_projection_http_error');
      }
    } finally {
      await stack.stop();
    }
  });
}
