// Names of Object.prototype members are data (issue 12): every POST route of the semantic route
// table gets every such name as a key, nested, and as every string value, and never answers 5xx.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { prototypeNameBodies, sampleOf } from '../helpers/prototype-keys.ts';
import { SERVER_ERROR_MESSAGE } from '../../src/kernel/index.ts';
import { CASE_REF, startTestService } from './fixtures/semantic-service.ts';

/** Valid bodies where a schema sample would not pass (the allowlisted case ref). */
const BASES: Record<string, unknown> = {
  '/api/v1/semantic/projection-verification/runs': { correlation_id: 'corr-proto', source_event_id: 'evt-proto', case_ref: CASE_REF },
};

test('every POST route of the semantic table treats Object.prototype member names as data: never a 5xx', { timeout: 60_000 }, async (t) => {
  const s = await startTestService(t);
  const posts = s.service.routes.filter((route) => route.method === 'POST');
  assert.ok(posts.length >= 2, `only ${posts.length} POST routes found`);
  const failures: string[] = [];
  let sent = 0;
  for (const route of posts) {
    for (const { name, body } of prototypeNameBodies(BASES[route.path] ?? sampleOf(route.request?.schema))) {
      const text = JSON.stringify(body);
      const response = await send(`${s.url}${route.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...s.operator }, body: text });
      sent++;
      if (response.status >= 500) failures.push(`${route.path} "${name}" ${response.status}: ${text.slice(0, 200)}`);
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${sent} requests answered 5xx`);
  assert.equal(s.logs.filter((line) => line.includes(SERVER_ERROR_MESSAGE)).length, 0);
});
