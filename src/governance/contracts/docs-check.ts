// Docs against contracts and routes: each document the docs catalog or the docs standard names
// exists, carries the standard's headings, mentions only routes that exist (served, or planned
// in a contract), and every route family is covered by some document.

import type { ArtifactSet } from './artifacts.ts';
import type { DriftItem } from './crossrefs.ts';
import { familyOf } from '../identity.ts';
import { resolvesToRoute } from './route-ref.ts';
import type { GovernanceRuntime } from '../runtime.ts';

interface CatalogDocument {
  path: string;
  covers?: string[];
  required_headings?: string[];
}

const API_PATH = /\/api\/v1\/[A-Za-z0-9_{}\-./:]*[A-Za-z0-9_}]/g;

/** The documents the docs catalog and the docs standard name, merged by path. */
function documents(artifacts: ArtifactSet): CatalogDocument[] {
  const byPath = new Map<string, CatalogDocument>();
  for (const [id, member] of [['docs_publication', 'catalog'], ['contracts_governance', 'docs-standard']] as const) {
    const loaded = artifacts.get(id);
    if (loaded.state !== 'valid') continue;
    for (const doc of (loaded.document!.content[member]?.['documents'] ?? []) as CatalogDocument[]) {
      const known = byPath.get(doc.path) ?? { path: doc.path };
      byPath.set(doc.path, {
        path: doc.path,
        covers: [...(known.covers ?? []), ...(doc.covers ?? [])],
        required_headings: [...(known.required_headings ?? []), ...(doc.required_headings ?? [])],
      });
    }
  }
  return [...byPath.values()];
}

/** Paths (relative to the install root) of every document the contracts name. */
export function documentPaths(artifacts: ArtifactSet): string[] {
  return [...new Set(documents(artifacts).map((d) => d.path))].sort();
}

export function missingDocs(runtime: GovernanceRuntime): string[] {
  return documentPaths(runtime.artifacts).filter((path) => !runtime.docs.has(path));
}

/** Paths planned in any contract (`{method, path, state}` objects): a doc may mention them. */
function plannedPaths(runtime: GovernanceRuntime): { path: string }[] {
  const found: { path: string }[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      if (typeof record['path'] === 'string' && typeof record['state'] === 'string' && typeof record['method'] === 'string') found.push({ path: record['path'] });
      Object.values(record).forEach(walk);
    }
  };
  for (const loaded of runtime.artifacts.artifacts.values()) if (loaded.state === 'valid') walk(loaded.document!.content);
  return found;
}

export function docsProblems(runtime: GovernanceRuntime): DriftItem[] {
  const problems: DriftItem[] = [];
  const served = [...new Set(runtime.routes.map((r) => r.path))].map((path) => ({ path }));
  const known = [...served, ...plannedPaths(runtime)];
  const families = new Set([...runtime.reads, ...runtime.writes].map((r) => familyOf(r.path)));
  const covered = new Set<string>();
  for (const doc of documents(runtime.artifacts)) {
    const text = runtime.docs.get(doc.path);
    if (text === undefined) {
      problems.push({ kind: 'doc_missing', subject: doc.path, detail: `named by the contracts but not found under the install root` });
      continue;
    }
    const headings = text.split('\n').filter((line) => /^#{1,3} /.test(line)).map((line) => line.replace(/^#+ /, '').trim().toLowerCase());
    for (const required of doc.required_headings ?? []) {
      if (!headings.some((h) => h.startsWith(required.toLowerCase()))) problems.push({ kind: 'doc_section_missing', subject: doc.path, detail: `no heading starts with "${required}" (docs-standard)` });
    }
    for (const mention of new Set(text.match(API_PATH) ?? [])) {
      const path = mention.replace(/\.$/, '');
      if (!resolvesToRoute(path, known)) problems.push({ kind: 'doc_route_unknown', subject: doc.path, detail: `mentions "${path}", which is neither served nor planned in a contract` });
    }
    for (const family of doc.covers ?? []) {
      covered.add(family);
      if (!families.has(family)) problems.push({ kind: 'doc_family_unknown', subject: doc.path, detail: `covers family "${family}", which has no route` });
    }
  }
  if (documents(runtime.artifacts).length > 0) {
    for (const family of families) if (!covered.has(family)) problems.push({ kind: 'doc_family_uncovered', subject: family, detail: `no document in the docs catalog covers family "${family}"` });
  }
  return problems;
}
