// POST /repository/api/-default-/public/search/versions/1/search: Alfresco's search API over
// the FTS5 index, answered in the list envelope with each entry's search score.

import type { Route } from '../kernel/index.ts';
import { listEnvelope } from './alfresco-shapes.ts';
import { SEARCH_PATH, alfrescoHandler, jsonBodyReader, pagingOf, principalOf } from './api-support.ts';
import { readableBy } from './permissions.ts';
import type { ContentDeps } from './api-support.ts';
import { NODE_INCLUDES, entryFor, entryView } from './node-view.ts';
import { RepositoryError } from './repository.ts';
import { searchNodesOnPool, SORT_FIELDS } from './search.ts';
import type { SearchSort } from './search.ts';

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
    // Alfresco's clients (ADF among them) send these members with most searches.
    include: { type: 'array', maxItems: 16, items: { enum: [...NODE_INCLUDES] } },
    fields: { type: 'array', minItems: 1, maxItems: 32, items: { type: 'string', minLength: 1, maxLength: 64 } },
    sort: {
      type: 'array',
      maxItems: 4,
      items: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        properties: { type: { enum: ['SCORE', 'FIELD'] }, field: { type: 'string', maxLength: 64 }, ascending: { type: 'boolean' } },
      },
    },
    filterQueries: {
      type: 'array',
      maxItems: 8,
      items: { type: 'object', required: ['query'], additionalProperties: false, properties: { query: { type: 'string', minLength: 1, maxLength: 256 }, tags: { type: 'array', items: { type: 'string' } } } },
    },
  },
};

interface SearchBody {
  query: { query: string; language?: string };
  paging?: { maxItems?: number; skipCount?: number };
  include?: string[];
  fields?: string[];
  sort?: SearchSort[];
  filterQueries?: { query: string }[];
}

const readSearch = jsonBodyReader<SearchBody>(SEARCH_SCHEMA);

function checkSort(sort: readonly SearchSort[]): void {
  for (const item of sort) {
    if (item.type === 'FIELD' && (item.field === undefined || !Object.hasOwn(SORT_FIELDS, item.field))) {
      throw new RepositoryError(400, `Cannot sort by "${item.field ?? ''}": sort by one of ${Object.keys(SORT_FIELDS).join(', ')}, or by SCORE`);
    }
  }
}

export function searchRoutes(deps: ContentDeps): Route[] {
  const search = alfrescoHandler(async (context) => {
    const body = readSearch(context);
    if (body.query.language !== undefined && body.query.language !== 'afts') {
      throw new RepositoryError(400, `Query language "${body.query.language}" is not supported: use afts`);
    }
    const paging = pagingOf(body.paging?.skipCount, body.paging?.maxItems);
    checkSort(body.sort ?? []);
    const view = entryView(body.include, body.fields);
    const actor = principalOf(context);
    const readable = readableBy(deps.store.sqlite, deps.policy, actor);
    const { rows, total, exact } = await searchNodesOnPool(deps.reads, deps.store.sqlite, { query: body.query.query, paging, filterQueries: (body.filterQueries ?? []).map((f) => f.query), sort: body.sort ?? [], readable });
    const entries = rows.map(({ node, score }) => entryFor(deps, node, actor, view, { search: { score } }));
    return { status: 200, body: listEnvelope(entries, { paging, totalItems: total, totalExact: exact, extra: { context: {} } }) };
  });
  return [
    {
      method: 'POST',
      path: SEARCH_PATH,
      auth: 'repository',
      summary: 'Full-text search over name, metadata and text content (AFTS: AND, OR, NOT, phrases, wildcards, fields, TYPE, ASPECT, date ranges), with paging, sort, fields, include and AFTS filter queries',
      tags: ['search'],
      request: { raw: true, maxBytes: 64 * 1024, schema: SEARCH_SCHEMA },
      handler: search,
    },
  ];
}
