// The checks of vector_store_checks against a vector store's HTTP API (Qdrant-compatible): the
// collection's info (status green, yellow or grey; the vector size, optionally the expected one),
// then a points search with a unit probe vector of that size (200, a result list of scored points,
// non-empty when the collection holds points).

import { check } from './check-report.ts';
import type { Check } from './check-report.ts';
import type { HttpClient } from './http-client.ts';
import { isObject, listOf, objectOf } from './json-file.ts';

export const HEALTHY_STATUSES = ['green', 'yellow', 'grey'] as const;

export interface VectorStoreOptions {
  collection: string;
  apiKey?: string | undefined;
  expectedSize?: number | undefined;
  limit: number;
}

/** The size and name of the collection's vector: unnamed ({size}) or the first named one ({name: {size}}). */
export function vectorParams(info: unknown): { size: number | undefined; name: string | undefined } {
  const vectors = objectOf(objectOf(objectOf(objectOf(info)['config'])['params'])['vectors']);
  if (typeof vectors['size'] === 'number') return { size: vectors['size'], name: undefined };
  const [name, params] = Object.entries(vectors)[0] ?? [];
  const size = objectOf(params)['size'];
  return { size: typeof size === 'number' ? size : undefined, name };
}

/** Runs both checks; Unreachable propagates. */
export async function checkVectorStore(client: HttpClient, options: VectorStoreOptions): Promise<{ checks: Check[]; collection: Record<string, unknown> }> {
  const headers: Record<string, string> = { accept: 'application/json', ...(options.apiKey !== undefined && { 'api-key': options.apiKey }) };
  const path = `/collections/${encodeURIComponent(options.collection)}`;
  const info = await client.send('GET', path, { headers });
  const result = objectOf(objectOf(info.json)['result']);
  const { size, name } = vectorParams(result);
  const points = typeof result['points_count'] === 'number' ? result['points_count'] : undefined;
  const infoReasons: string[] = [];
  if (info.status !== 200) infoReasons.push(`GET ${path} answered ${info.status}`);
  else {
    if (!(HEALTHY_STATUSES as readonly string[]).includes(String(result['status']))) infoReasons.push(`collection "${options.collection}" has status ${JSON.stringify(result['status'] ?? null)}, expected ${HEALTHY_STATUSES.join(', ')}`);
    if (size === undefined || !Number.isSafeInteger(size) || size <= 0) infoReasons.push(`collection "${options.collection}" reports no vector size`);
    else if (options.expectedSize !== undefined && size !== options.expectedSize) infoReasons.push(`collection "${options.collection}" holds vectors of size ${size}, expected ${options.expectedSize}`);
  }
  const checks = [check('collection_info', infoReasons)];
  const collection = { name: options.collection, status: result['status'] ?? null, vector_size: size ?? null, vector_name: name ?? null, points_count: points ?? null };
  if (infoReasons.length > 0 || size === undefined) {
    checks.push(check('search', ['not run: the collection info failed']));
    return { checks, collection };
  }
  const probe = Array.from({ length: size }, (_, i) => (i === 0 ? 1 : 0));
  const body = { vector: name === undefined ? probe : { name, vector: probe }, limit: options.limit, with_payload: false, with_vector: false };
  const search = await client.send('POST', `${path}/points/search`, { headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const hits = objectOf(search.json)['result'];
  const searchReasons: string[] = [];
  if (search.status !== 200) searchReasons.push(`POST ${path}/points/search answered ${search.status}`);
  else if (!Array.isArray(hits)) searchReasons.push(`POST ${path}/points/search answered no result list`);
  else {
    if (hits.length > options.limit) searchReasons.push(`search returned ${hits.length} points, more than the limit ${options.limit}`);
    if (!listOf(hits).every((h) => isObject(h) && (typeof h['id'] === 'number' || typeof h['id'] === 'string') && typeof h['score'] === 'number')) searchReasons.push('search returned a point without an id and a numeric score');
    if (hits.length === 0 && (points ?? 0) > 0) searchReasons.push(`search returned nothing from a collection of ${points} points`);
  }
  checks.push(check('search', searchReasons));
  return { checks, collection: { ...collection, search_hits: Array.isArray(hits) ? hits.length : null } };
}
