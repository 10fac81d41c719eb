// Online password guessing on POST /api/method/login: Frappe's LoginAttemptTracker behaviour
// (10 consecutive failures lock the user name for 60 s, right password or not), answered as
// Frappe's SecurityException with 429 and Retry-After; other names are not affected; the lock ends.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { frappeErrorText, startErp, USER } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
let clock = Date.parse('2026-11-24T12:00:00Z');
const login = (usr: string, pwd: string) => send(`${erp.url}/api/method/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ usr, pwd }).toString() });

before(async () => {
  erp = await startErp({ now: () => clock });
});
after(() => erp.stop());

test('ten wrong passwords lock the name for 60 s: the right password is refused with 429 SecurityException until then', async () => {
  for (let i = 0; i < 9; i += 1) assert.equal((await login(USER.usr, `wrong-${i}`)).status, 401);
  // Nine failures do not lock: a success clears the count.
  assert.equal((await login(USER.usr, USER.pwd)).status, 200);
  for (let i = 0; i < 10; i += 1) assert.equal((await login(USER.usr.toUpperCase(), `wrong-${i}`)).status, 401);
  const locked = await login(USER.usr, USER.pwd);
  assert.equal(locked.status, 429, locked.text);
  assert.equal(locked.headers['retry-after'], '60');
  assert.deepEqual(frappeErrorText(locked), { exc_type: 'SecurityException', message: 'Your account has been locked and will resume after 60 seconds' });
  assert.equal(locked.headers['set-cookie'], undefined);
  clock += 30_000;
  assert.equal((await login(USER.usr, USER.pwd)).headers['retry-after'], '30');
  clock += 30_001;
  const back = await login(USER.usr, USER.pwd);
  assert.equal(back.status, 200, back.text);
});

test('an unknown name locks the same way (the lock reveals nothing) and leaves other names alone', async () => {
  for (let i = 0; i < 10; i += 1) assert.equal((await login('nobody@example.test', 'x')).status, 401);
  assert.equal((await login('nobody@example.test', 'x')).status, 429);
  assert.equal((await login(USER.usr, USER.pwd)).status, 200);
});
