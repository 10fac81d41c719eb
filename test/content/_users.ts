// Calls to the repository API as named users with bearer tokens from the OIDC double: "ada" is
// in group "writers" (Company Home's writers in startContent()), everyone else in no group
// unless the call names some; the scope is read and write unless the call names another.

import { send } from '../helpers/http.ts';
import { API, multipart } from './_service.ts';
import type { Harness } from './_service.ts';

type Json = Record<string, any>;
export interface AsUser {
  scope?: string;
  groups?: string[];
}
export interface UserAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: Json | undefined;
}

export function users(harness: () => Harness) {
  const token = (sub: string, options: AsUser = {}) => harness().op.accessToken({ sub, groups: options.groups ?? (sub === 'ada' ? ['writers'] : []), ...(options.scope && { scope: options.scope }) });
  const answer = (r: Awaited<ReturnType<typeof send>>): UserAnswer => ({ status: r.status, headers: r.headers, text: r.text, body: (r.headers['content-type'] ?? '').includes('json') && r.text !== '' ? (r.json() as Json) : undefined });
  return {
    token,
    /** A JSON request (no body when `body` is undefined). */
    async call(who: string, method: string, path: string, body?: unknown, options: AsUser = {}): Promise<UserAnswer> {
      return answer(await send(`${harness().base}${path}`, { method, headers: { authorization: `Bearer ${token(who, options)}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) }));
    },
    /** A multipart upload of a text file named `name` into `parent`. */
    async upload(who: string, parent: string, name: string, content: string, options: AsUser = {}): Promise<UserAnswer> {
      const m = multipart([['name', name]], { name, content });
      return answer(await send(`${harness().base}${API}/nodes/${parent}/children`, { method: 'POST', headers: { authorization: `Bearer ${token(who, options)}`, 'content-type': m.contentType }, body: m.body }));
    },
  };
}
