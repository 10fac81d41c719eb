// Names of Object.prototype members are data (issue 12): every POST route of the governance
// route table gets every such name as a key (top level, nested, on both sides of a
// compatibility check) and as a value, and never answers 5xx.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { send, sendJson } from '../helpers/http.ts';
import { PROTOTYPE_NAMES, prototypeNameBodies, sampleOf } from '../helpers/prototype-keys.ts';
import { SERVER_ERROR_MESSAGE } from '../../src/kernel/index.ts';
import { GIT_HOST_SECRET, bearer, serviceOnTempRoot } from './_service.ts';
import type { RunningGovernance } from './_service.ts';
import { WRITES } from './_write-bodies.ts';

let running: RunningGovernance;
serviceOnTempRoot((started) => {
  running = started;
});

const WEBHOOK = '/api/v1/integrations/git-host/webhook';

/** Compatibility checks whose schemas name a prototype member, on one side or both. */
function compatibilityBodies(name: string): unknown[] {
  const named = (schema: unknown) => JSON.parse(JSON.stringify({ type: 'object', properties: { NAME: schema }, required: ['NAME'], $defs: { NAME: { type: 'string' } } }).replaceAll('NAME', name));
  const raw = (text: string) => JSON.parse(text.replaceAll('NAME', name)) as unknown;
  return ['BACKWARD', 'FORWARD', 'FULL', 'BACKWARD_TRANSITIVE', 'NONE'].flatMap((mode) => [
    { mode, previous: {}, proposed: raw('{"NAME":1}') },
    { mode, previous: raw('{"NAME":1}'), proposed: {} },
    { mode, previous: raw('{"NAME":{"NAME":1}}'), proposed: raw('{"NAME":{"NAME":1}}') },
    { mode, previous: raw('{"type":"object","properties":{"a":{"NAME":1}}}'), proposed: raw('{"type":"object","properties":{"a":{"NAME":true}}}') },
    { mode, previous: raw('{"oneOf":[{"NAME":1}]}'), proposed: raw('{"anyOf":[{"NAME":{}}]}') },
    { mode, previous: {}, proposed: named({ type: 'string' }) },
    { mode, previous: named({ type: 'string' }), proposed: {} },
    { mode, previous: named({ type: 'integer' }), proposed: named({ type: 'string' }) },
    { mode, previous: named({ $ref: `#/$defs/${name}` }), proposed: named({ type: ['string', 'integer'] }) },
  ]);
}

test('every POST route of the governance table treats Object.prototype member names as data: never a 5xx', { timeout: 60_000 }, async () => {
  const session = (
    (await sendJson(`${running.worker}/api/v1/planning/sessions`, { title: 't', goal: 'g', requested_by: { kind: 'human', subject_id: 'u' } }, { headers: { ...bearer('bff'), 'idempotency-key': randomUUID() } })).json() as { session_id: string }
  ).session_id;
  const posts = running.service.routes.filter((route) => route.method === 'POST');
  assert.ok(posts.length >= 15, `only ${posts.length} POST routes found`);
  const failures: string[] = [];
  let sent = 0;
  for (const route of posts) {
    const path = route.path.replace(':session_id', session).replace('/*', '/planning');
    const table = WRITES[route.path];
    const bodies = (table ? table.bodies() : [sampleOf(route.request?.schema)]).flatMap((base) => prototypeNameBodies(base));
    if (route.path === '/api/v1/contracts/compatibility/check') bodies.push(...PROTOTYPE_NAMES.flatMap((name) => compatibilityBodies(name).map((body) => ({ name, body }))));
    for (const { name, body } of bodies) {
      const text = JSON.stringify(body);
      const response =
        route.path === WEBHOOK
          ? await send(`${running.worker}${path}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${createHmac('sha256', GIT_HOST_SECRET).update(text).digest('hex')}` },
              body: text,
            })
          : await send(`${running.worker}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(table?.lane ?? 'operator'), 'idempotency-key': `"${randomUUID()}"` }, body: text });
      sent++;
      if (response.status >= 500) failures.push(`${route.path} "${name}" ${response.status}: ${text.slice(0, 200)}`);
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${sent} requests answered 5xx`);
  assert.equal(running.logs.filter((record) => record['msg'] === SERVER_ERROR_MESSAGE).length, 0);
});
