// What the route-table slices of each family share: the API base, the rows of routes that publish
// an artifact's members as they are, and the outcomes several routes document alike.

import type { ReadRoute } from './read-route.ts';

export const V1 = '/api/v1';

/** Routes publishing members of one artifact: [path under /api/v1, member, summary]. */
export function published(artifact: string, rows: readonly (readonly [string, string, string])[]): ReadRoute[] {
  return rows.map(([path, member, summary]) => ({ path: `${V1}${path}`, summary, capability: 'contract-publication', publish: `${artifact}/${member}` }));
}

export const NOT_FOUND = (description: string) => [{ status: 404, description }];
export const BAD_PAGE = [{ status: 422, description: 'after_seq or limit is not an integer in range' }];
export const RECORDED = (description: string) => ({ status: 201, description, schema: { type: 'object', required: ['recorded', 'evidence'] } });
