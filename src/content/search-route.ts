// POST /repository/api/-default-/public/search/versions/1/search: Alfresco's search API over
// the FTS5 index, answered in the list envelope with each entry's search score.

import type { Route } from '../kernel/index.ts';
import { listEnvelope, readPaging } from './alfresco-shapes.ts';
import { SEARCH_PATH, alfrescoHandler, jsonBodyReader } from './api-support.ts';
import type { ContentDeps } from './api-support.ts';
import { nodeEntry } from './node-entry.ts';
import { RepositoryError, currentVersion } from './repository.ts';
import { searchNodes } from './search.ts';

export const SEARCH_SCHEMA = {
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    query: {
      type: 'object',
      required: ['query'],
      additionalProperties: false,
      properties: { query: { type: 'string', minLength: 1, maxLength: 4096 }, language: { enum: ['afts', 'cmis', 'lucene'] }, userQuery: { type: 'string' } },
    },
    paging: { type: 'object', additionalProperties: false, properties: { maxItems: { type: 'integer', minimum: 1, maximum: 1000 }, skipCount: { type: 'integer', minimum: 0 } } },
  },
};

const readSearch = jsonBodyReader<{ query: { query: string; language?: string }; paging?: { maxItems?: number; skipCount?: number } }>(SEARCH_SCHEMA);

export function searchRoutes(deps: ContentDeps): Route[] {
  const search = alfrescoHandler((context) => {
    const body = readSearch(context);
    if (body.query.language !== undefined && body.query.language !== 'afts') {
      throw new RepositoryError(400, `Query language "${body.query.language}" is not supported: use afts (words, "phrases", prefix*, name:, TEXT:)`);
    }
    const paging = readPaging(body.paging?.skipCount, body.paging?.maxItems);
    if (typeof paging === 'string') throw new RepositoryError(400, paging);
    const { rows, total } = searchNodes(deps.store.sqlite, { query: body.query.query, paging });
    const entries = rows.map(({ node, score }) => ({ ...nodeEntry(node, currentVersion(deps.store.sqlite, node)), search: { score } }));
    return { status: 200, body: listEnvelope(entries, { paging, totalItems: total, extra: { context: {} } }) };
  });
  return [
    {
      method: 'POST',
      path: SEARCH_PATH,
      auth: 'repository',
      summary: 'Full-text search over name, metadata and text content (afts words, phrases, prefix*, name:, TEXT:), with paging',
      tags: ['search'],
      request: { raw: true, maxBytes: 64 * 1024, schema: SEARCH_SCHEMA },
      handler: search,
    },
  ];
}
