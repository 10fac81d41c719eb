// The framework's own login surface, as Frappe clients call it: POST /api/method/login with
// `usr` and `pwd` (form or JSON) sets the `sid` cookie; POST or GET /api/method/logout ends it;
// GET /api/method/frappe.auth.get_logged_user names the caller. Frappe's older command form,
// which the frappe-client library still sends (POST / with cmd=login, GET /?cmd=logout), is
// answered too: app.py hands any request with `cmd` to the same handler.

import type { RequestContext } from '../../kernel/index.ts';
import { ARGS_BODY, frappeHandler } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { requestArgs } from './args.ts';
import { FRAPPE_AUTH } from './authenticator.ts';
import type { Principal } from './authenticator.ts';
import { frappeError, frappeMessage } from './envelope.ts';
import { createLoginAttempts } from './login-attempts.ts';
import { sidCookie } from './sessions.ts';
import { checkLogin } from './users.ts';

export const LOGIN_PATH = '/api/method/login';
export const LOGOUT_PATH = '/api/method/logout';
export const LOGGED_USER_PATH = '/api/method/frappe.auth.get_logged_user';

const FRAMEWORK = { family: 'framework', stability: 'stable' } as const;

export function loginRoutes(deps: DepsRef): ErpRoute[] {
  const attempts = createLoginAttempts();
  const logout = frappeHandler(async (context: RequestContext) => {
    const sid = sidCookie(context.headers.cookie);
    if (sid !== undefined) await deps().sessions.end(sid);
    return { status: 200, body: {}, headers: { 'set-cookie': 'sid=Guest; Path=/; HttpOnly; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT' } };
  });
  const login = frappeHandler(async (context) => {
        const args = requestArgs(context);
        const { usr, pwd } = args;
        if (typeof usr !== 'string' || typeof pwd !== 'string' || usr === '' || pwd === '') {
          return frappeError('AuthenticationError', 'Incomplete login details: send usr and pwd');
        }
        const { config: { users, sessionTtlSeconds }, now } = deps();
        const locked = attempts.lockedFor(usr, now());
        if (locked > 0) return frappeError('SecurityException', `Your account has been locked and will resume after ${locked} seconds`, { headers: { 'retry-after': String(locked) } });
        const user = await checkLogin(users, usr, pwd);
        if (!user) {
          attempts.failed(usr, now());
          return frappeError('AuthenticationError', 'Invalid Login. Try again.');
        }
        attempts.succeeded(usr);
        const sid = await deps().sessions.start(user.usr);
        const cookie = `sid=${sid}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${sessionTtlSeconds}`;
        return { ...frappeMessage('Logged In'), body: { message: 'Logged In', home_page: '/app', full_name: user.full_name }, headers: { 'set-cookie': cookie } };
  });
  const command = frappeHandler((context) => {
    const cmd = context.method === 'GET' ? context.query.get('cmd') : (requestArgs(context)['cmd'] ?? null);
    if (cmd === 'login' && context.method === 'POST') return login(context);
    if (cmd === 'logout') return logout(context);
    return frappeError('DoesNotExistError', `Command ${JSON.stringify(cmd)} is not served: use cmd=login (POST) or cmd=logout, or the /api/method paths`);
  });
  return [
    { ...FRAMEWORK, method: 'POST', path: LOGIN_PATH, auth: 'none', summary: 'Log in with usr and pwd (form or JSON); sets the sid session cookie', request: ARGS_BODY, handler: login },
    { ...FRAMEWORK, method: 'POST', path: '/', auth: 'none', summary: 'Frappe command form: cmd=login with usr and pwd, or cmd=logout', request: ARGS_BODY, handler: command },
    { ...FRAMEWORK, method: 'GET', path: '/', auth: 'none', summary: 'Frappe command form: ?cmd=logout', etag: false, handler: command },
    { ...FRAMEWORK, method: 'POST', path: LOGOUT_PATH, auth: 'none', summary: 'End the session of the sid cookie', request: ARGS_BODY, handler: logout },
    { ...FRAMEWORK, method: 'GET', path: LOGOUT_PATH, auth: 'none', summary: 'End the session of the sid cookie', etag: false, handler: logout },
    {
      ...FRAMEWORK,
      method: 'GET',
      path: LOGGED_USER_PATH,
      auth: FRAPPE_AUTH,
      summary: 'The user (or api key) the request is authenticated as',
      etag: false,
      handler: (context) => frappeMessage((context.principal as Principal).user),
    },
  ];
}
