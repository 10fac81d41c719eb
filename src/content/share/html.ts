// HTML for the share UI and the bridge's pages: one escape function used for every value, one
// page layout, and the headers every page carries (a Content-Security-Policy that allows no
// script at all, no framing, no caching of personal pages).

import type { Reply } from '../../kernel/index.ts';

export const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A tagged template whose substitutions are escaped unless they are `Safe` (already-built HTML). */
export class Safe {
  readonly html: string;
  constructor(html: string) {
    this.html = html;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Safe {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += (Array.isArray(value) ? value.map(piece).join('') : piece(value)) + strings[i + 1]!;
  });
  return new Safe(out);
}

function piece(value: unknown): string {
  if (value instanceof Safe) return value.html;
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(value);
}

/** A whole page: the layout, the title, an optional user bar with the logout form. */
export function page(init: { title: string; body: Safe; head?: Safe; user?: { name: string; csrf: string }; status?: number; headers?: Record<string, string> }): Reply {
  const userBar = init.user
    ? html`<form class="logout" method="post" action="/auth/oidc/logout"><input type="hidden" name="_csrf" value="${init.user.csrf}"><span>Signed in as <strong>${init.user.name}</strong></span> <button type="submit" id="logout">Log out</button></form>`
    : html``;
  const document = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${init.title} - Airlock content</title><link rel="stylesheet" href="/share/style.css">${init.head}</head>
<body><header><a class="brand" href="/share/">Airlock content</a>${init.user ? html`<a class="trash" href="/share/trashcan" id="trashcan-link">Trashcan</a>` : html``}${userBar}</header>
<main><h1>${init.title}</h1>${init.body}</main></body></html>
`;
  return {
    status: init.status ?? 200,
    raw: document.html,
    contentType: 'text/html; charset=utf-8',
    headers: { 'content-security-policy': CSP, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY', ...init.headers },
  };
}

export const STYLE = `body{font-family:DejaVu Sans,system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7fb}
header{display:flex;justify-content:space-between;align-items:center;padding:.6rem 1.2rem;background:#243b6b;color:#fff}
header a.brand{color:#fff;font-weight:bold;text-decoration:none}header form{margin:0}header span{margin-right:.6rem}
main{max-width:60rem;margin:1rem auto;padding:0 1.2rem}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #dde}
form.inline{display:inline}fieldset{border:1px solid #ccd;background:#fff;margin:.8rem 0;padding:.6rem}
label{margin-right:.8rem}.error{background:#fde8e8;border:1px solid #d66;padding:.8rem}.note{color:#556}
nav.crumbs a{margin-right:.3rem}header a.trash{color:#fff;margin-left:auto;margin-right:1rem}a.delete,a.purge{color:#a12}.confirm{background:#fff6e0;border:1px solid #d9a;padding:.8rem;margin-bottom:.8rem}button{cursor:pointer}form.search{margin:.6rem 0}form.search input{width:24rem}.kind{color:#556;font-size:.85em}`;

/** A redirect (303 after a POST, 302 otherwise). */
export function redirect(location: string, init: { status?: 302 | 303; headers?: Record<string, string> } = {}): Reply {
  return { status: init.status ?? 302, raw: '', headers: { location, 'cache-control': 'no-store', ...init.headers } };
}
