// Login users (ERP_USERS_FILE) with scrypt password hashes, in the form
// `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`. hashPassword makes one (dev defaults, docs).

import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

export interface ErpUser {
  usr: string;
  full_name: string;
  password: PasswordHash;
}

export interface PasswordHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

const HASH_FORM = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

/** `scrypt$16384$8$1$<salt>$<hash>` for `password` (N=2^14, r=8, p=1, 16-byte salt, 32-byte hash). */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
}

function parseHash(text: unknown): PasswordHash | undefined {
  const match = typeof text === 'string' ? HASH_FORM.exec(text) : null;
  if (!match) return undefined;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Bounds keep a hostile file from making every login burn the CPU or the memory.
  if (N < 2 ** 10 || N > 2 ** 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) return undefined;
  const hash = Buffer.from(match[5]!, 'base64');
  if (hash.length < 16 || hash.length > 64) return undefined;
  return { N, r, p, salt: Buffer.from(match[4]!, 'base64'), hash };
}

/** Parses {"users": [...]}; a string says what is wrong (never quoting a hash). */
export function parseUsers(value: unknown): ErpUser[] | string {
  const list = (value as { users?: unknown } | null)?.users;
  if (!Array.isArray(list)) return 'must hold {"users": [...]}';
  const users: ErpUser[] = [];
  for (const [index, entry] of list.entries()) {
    const e = entry as Record<string, unknown> | null;
    if (typeof e?.['usr'] !== 'string' || e['usr'] === '') return `user ${index + 1} has no "usr"`;
    const password = parseHash(e['password']);
    if (!password) return `user "${e['usr']}" has a "password" that is not scrypt$N$r$p$salt$hash`;
    users.push({ usr: e['usr'], full_name: typeof e['full_name'] === 'string' ? e['full_name'] : e['usr'], password });
  }
  return users;
}

/** A dummy hash for unknown users, so a wrong user name costs the same time as a wrong password. */
const DUMMY: PasswordHash = { N: 16384, r: 8, p: 1, salt: Buffer.alloc(16), hash: Buffer.alloc(32) };

/** The user when `usr` exists and `pwd` matches its hash, in constant time per hash. */
export async function checkLogin(users: readonly ErpUser[], usr: string, pwd: string): Promise<ErpUser | undefined> {
  const user = users.find((u) => u.usr.toLowerCase() === usr.toLowerCase());
  const stored = user?.password ?? DUMMY;
  const derived = await new Promise<Buffer>((resolve, reject) => {
    scrypt(pwd, stored.salt, stored.hash.length, { N: stored.N, r: stored.r, p: stored.p, maxmem: 256 * stored.N * stored.r }, (error, key) => (error ? reject(error) : resolve(key)));
  });
  return user !== undefined && timingSafeEqual(derived, stored.hash) ? user : undefined;
}
