// POST /repository/api/-default-/public/search/versions/1/search: Alfresco's search API over
// the FTS5 index, answered in the list envelope with each entry's search score.

import type { Route } from '../kernel/index.ts';
import { listEnvelope } from './alfresco-shapes.ts';
import { SEARCH_PATH, alfrescoHandler, jsonBodyReader, pagingOf, principalOf } from './api-support.ts';
import { readableBy } from './permissions.ts';
import type { ContentDeps } from './api-support.ts';
import { nodeEntry } from './node-entry.ts';
import { RepositoryError, currentVersion } from './repository.ts';
import { parseTypeFilter, searchNodes, SORT_FIELDS } from './search.ts';
import type { SearchSort } from './search.ts';

/**
 * Alfresco's `include` values. Entries always carry `properties` and `aspectNames`; the others
 * name facts this repository does not keep (links, locks, favourites, permissions, associations)
 * and are accepted so Alfresco's clients work, adding nothing (docs/content.md says so).
 */
const INCLUDE_VALUES = ['properties', 'aspectNames', 'path', 'isLink', 'isLocked', 'isFavorite', 'allowableOperations', 'permissions', 'association'];

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
    include: { type: 'array', maxItems: 16, items: { enum: INCLUDE_VALUES } },
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
  fields?: string[];
  sort?: SearchSort[];
  filterQueries?: { query: string }[];
}

const readSearch = jsonBodyReader<SearchBody>(SEARCH_SCHEMA);

/** The node types filterQueries admit and exclude; a filter that is not a type filter is refused, not ignored. */
function typeFilters(body: SearchBody): { types: string[]; excludedTypes: string[] } {
  const types: string[] = [];
  const excludedTypes: string[] = [];
  for (const { query } of body.filterQueries ?? []) {
    const filter = parseTypeFilter(query);
    if (!filter) throw new RepositoryError(400, `Filter query "${query}" is not supported: use TYPE:"cm:content", +TYPE:"cm:folder" or -TYPE:"cm:thumbnail"`);
    (filter.exclude ? excludedTypes : types).push(filter.type);
  }
  return { types, excludedTypes };
}

function checkSort(sort: readonly SearchSort[]): void {
  for (const item of sort) {
    if (item.type === 'FIELD' && (item.field === undefined || !Object.hasOwn(SORT_FIELDS, item.field))) {
      throw new RepositoryError(400, `Cannot sort by "${item.field ?? ''}": sort by one of ${Object.keys(SORT_FIELDS).join(', ')}, or by SCORE`);
    }
  }
}

/** Alfresco's `fields`: only the named members of each entry (and its search score). */
function pick(entry: Record<string, unknown>, fields: readonly string[] | undefined): Record<string, unknown> {
  if (!fields) return entry;
  return Object.fromEntries(Object.entries(entry).filter(([name]) => name === 'search' || fields.includes(name)));
}

export function searchRoutes(deps: ContentDeps): Route[] {
  const search = alfrescoHandler((context) => {
    const body = readSearch(context);
    if (body.query.language !== undefined && body.query.language !== 'afts') {
      throw new RepositoryError(400, `Query language "${body.query.language}" is not supported: use afts (words, "phrases", prefix*, name:, TEXT:)`);
    }
    const paging = pagingOf(body.paging?.skipCount, body.paging?.maxItems);
    checkSort(body.sort ?? []);
    const readable = readableBy(deps.store.sqlite, deps.policy, principalOf(context));
    const { rows, total } = searchNodes(deps.store.sqlite, { query: body.query.query, paging, ...typeFilters(body), sort: body.sort ?? [], readable });
    const entries = rows.map(({ node, score }) => pick({ ...nodeEntry(node, currentVersion(deps.store.sqlite, node)), search: { score } }, body.fields));
    return { status: 200, body: listEnvelope(entries, { paging, totalItems: total, extra: { context: {} } }) };
  });
  return [
    {
      method: 'POST',
      path: SEARCH_PATH,
      auth: 'repository',
      summary: 'Full-text search over name, metadata and text content (afts words, phrases, prefix*, name:, TEXT:), with paging, sort, fields, include and TYPE filter queries',
      tags: ['search'],
      request: { raw: true, maxBytes: 64 * 1024, schema: SEARCH_SCHEMA },
      handler: search,
    },
  ];
}
