import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { send, sendJson } from '../helpers/http.ts';
import { WRITE_ROUTES } from '../../src/governance/routes.ts';
import { bearer, serviceOnTempRoot } from './_service.ts';
import { WRITES } from './_write-bodies.ts';
import type { RunningGovernance, TestLane } from './_service.ts';

let running: RunningGovernance;
let session: string;

serviceOnTempRoot((started) => {
  running = started;
});

function concrete(path: string): string {
  return path.replace(':session_id', session).replace('/*', '/planning');
}

test('every write route but the git-host webhook is covered by the bad-input table below', () => {
  const tabled = Object.keys(WRITES).sort();
  const routes = WRITE_ROUTES.filter((w) => w.idempotency !== 'delivery_id').map((w) => w.path).sort();
  assert.deepEqual(tabled, routes);
});

for (const route of WRITE_ROUTES.filter((w) => w.idempotency !== 'delivery_id')) {
  test(`POST ${route.path} refuses bad input: schema failure 422, another lane 403, no token 401, ${route.idempotency === 'required' ? 'no Idempotency-Key 400, ' : ''}a key replayed with another body 422`, async () => {
    if (session === undefined) {
      const created = await sendJson(`${running.worker}/api/v1/planning/sessions`, { title: 't', goal: 'g', requested_by: { kind: 'human', subject_id: 'u' } }, { headers: { ...bearer('bff'), 'idempotency-key': randomUUID() } });
      session = (created.json() as { session_id: string }).session_id;
    }
    const { lane, bodies } = WRITES[route.path]!;
    const [first, second] = bodies();
    const url = `${running.worker}${concrete(route.path)}`;
    const as = (who: TestLane | undefined, key?: string) => ({ headers: { ...(who ? bearer(who) : {}), ...(key ? { 'idempotency-key': `"${key}"` } : {}) } });

    const schema = await sendJson(url, {}, as(lane, randomUUID()));
    assert.equal(schema.status, 422, schema.text);
    assert.ok((schema.json() as { errors: unknown[] }).errors.length > 0);
    // Another lane: the operator passes the worker gate and the route refuses it (403); any other lane's token opens only its own routes (401).
    assert.equal((await sendJson(url, first, as(lane === 'operator' ? 'bff' : 'operator', randomUUID()))).status, lane === 'operator' ? 401 : 403);
    assert.equal((await sendJson(url, first, as(undefined, randomUUID()))).status, 401);
    if (route.idempotency === 'required') assert.equal((await sendJson(url, first, as(lane))).status, 400);
    const key = randomUUID();
    const original = await sendJson(url, first, as(lane, key));
    assert.ok(original.status < 500, original.text);
    const replayed = await sendJson(url, first, as(lane, key));
    assert.deepEqual([replayed.status, replayed.headers['idempotent-replayed'], replayed.text], [original.status, 'true', original.text]);
    const reused = await sendJson(url, second, as(lane, key));
    assert.equal(reused.status, 422, reused.text);
    assert.match(reused.text, /Idempotency-Key/);
    assert.ok([404, 405].includes((await send(`${running.platform}${concrete(route.path)}`, { method: 'POST' })).status), 'never on the platform listener');
  });
}
