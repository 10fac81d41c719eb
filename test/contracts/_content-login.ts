// A content-repository session as a browser gets one: the OIDC bridge's login, the development
// provider's sign-in form with the dev password, the callback. Returns the Cookie header to send.

/** Cookies set by `response`, merged into `jar` (name -> value; an empty value deletes). */
function keep(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1).trim()];
    if (value === '') jar.delete(name);
    else jar.set(name, value);
  }
}

const header = (jar: Map<string, string>) => [...jar].map(([n, v]) => `${n}=${v}`).join('; ');

export async function contentSession(contentUrl: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const login = await fetch(`${contentUrl}/auth/oidc/login`, { redirect: 'manual' });
  keep(jar, login);
  const authorize = new URL(login.headers.get('location') ?? '', contentUrl);
  const form = new URLSearchParams(authorize.searchParams);
  form.set('username', 'dev');
  form.set('password', password);
  const signedIn = await fetch(new URL('/authorize', authorize), { method: 'POST', body: form, redirect: 'manual' });
  const back = new URL(signedIn.headers.get('location') ?? '', contentUrl);
  const callback = await fetch(`${contentUrl}${back.pathname}${back.search}`, { headers: { cookie: header(jar) }, redirect: 'manual' });
  keep(jar, callback);
  if (callback.status >= 400) throw new Error(`Content login failed: the callback answered ${callback.status}: ${await callback.text()}`);
  return header(jar);
}
