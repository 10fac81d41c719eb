// The checks of check_docs_contract. The documentation surface is README.md plus docs/*.md. Both
// directions: the docs name every command (bundles and shell scripts), every endpoint of every
// contracts/api/*_openapi_v1.json export, and (README) every file surface; and nothing the docs
// name in code (a command, an endpoint, a repository path) is missing. Paragraphs that start with
// "Planned" or "Reserved" may name endpoints that are not served yet.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AirlockError } from '../../src/kernel/index.ts';
import { ALL_IN_ONE } from '../_bundle-entries.ts';
import { check } from './check-report.ts';
import type { Check } from './check-report.ts';
import { isInstallPrefix, listCommands } from './command-inventory.ts';
import { scanMarkdown } from './docs-markdown.ts';
import type { Block } from './docs-markdown.ts';
import { manifestServices } from './install-root.ts';
import { listOf, objectOf, readOptionalJsonFile } from './json-file.ts';
import { listOperations, normalizePath } from './openapi-operations.ts';

/** The file surfaces of seed 000, each of which README must name. */
export const FILE_SURFACES: readonly string[] = [
  'governance-manifest.json',
  'configs/stack-contract.json',
  'contracts/qa_feature_registry_v1.json',
  'contracts/api/semantic_openapi_v1.json',
  'contracts/api/semantic_asyncapi_v1.json',
  'contracts/api/semantic_cdc_v1.json',
  'dist/package-metadata.json',
];

const REPO_DIRS = /^(?:\.\/)?(?:contracts|configs|docs|src|scripts|test|bench)\//;
/** Paths only a checkout has (sources, tests, benchmarks). */
const SOURCE_PATH = /^(?:\.\/)?(?:(?:src|test|bench)\/|scripts\/(?:[^/]+\/)*[^/]*\.ts$)/;
const COMMAND_COLUMNS = new Set(['command', 'commands', 'executable', 'executables']);
const LAUNCHERS = new Set(['node', 'npx', 'tsx', 'bash', 'sh', 'env', 'sudo', 'exec']);
const METHOD_SPAN = /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (\S+)/;
const HOSTED_URL = /(?:https?:\/\/)?(?:localhost|127\.0\.0\.1|\[::1\]):\d+(\/[^\s'"`)\]]*)?/g;

interface Doc {
  path: string;
  text: string;
  blocks: Block[];
}

interface Endpoint {
  method: string;
  segments: string[];
  normalized: string;
}

function readDocs(root: string): Doc[] {
  if (!existsSync(join(root, 'README.md'))) throw new AirlockError('environment', `Cannot check the docs of "${root}": README.md is missing`);
  const docsDir = join(root, 'docs');
  const paths = ['README.md', ...(existsSync(docsDir) ? readdirSync(docsDir).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`) : [])];
  return paths.map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    return { path, text, blocks: scanMarkdown(text) };
  });
}

/** Every operation of every OpenAPI export under contracts/api, plus the consumed surfaces of the manifest. */
function knownEndpoints(root: string): { served: Endpoint[]; consumed: Endpoint[] } {
  const dir = join(root, 'contracts', 'api');
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('_openapi_v1.json')).sort() : [];
  const endpoint = (method: string, path: string): Endpoint => ({ method, segments: normalizePath(path).split('/').slice(1), normalized: normalizePath(path) });
  const served = files.flatMap((file) => listOperations(readOptionalJsonFile(dir, file)?.doc).map((op) => endpoint(op.method, op.path)));
  const manifest = readOptionalJsonFile(root, 'governance-manifest.json');
  const consumed = manifestServices(manifest?.doc).flatMap((s) => listOf(s['consumed_surfaces']).map(objectOf))
    .filter((c) => typeof c['path'] === 'string')
    .map((c) => endpoint(String(c['method'] ?? 'GET'), String(c['path'])));
  return { served, consumed };
}

/** Path-like tokens of a text, hosts of loopback URLs removed, queries and trailing punctuation cut. */
export function pathTokens(text: string): string[] {
  const bare = text.replace(HOSTED_URL, (_, path: string | undefined) => ` ${path ?? ''}`);
  return [...bare.matchAll(/(?<![\w$}\].:-])\/[A-Za-z0-9_.{}<>:*-]+(?:\/[A-Za-z0-9_.{}<>:*-]*)*/g)].map((m) => m[0].replace(/[.:,]+$/, ''));
}

/** True when a documented path (maybe a template, maybe ending in `*`) matches an endpoint's path. */
function pathMatches(documented: string, endpoint: Endpoint, options: { prefix: boolean }): boolean {
  const wanted = normalizePath(documented.split('?')[0]!).split('/').slice(1);
  const wildcard = wanted.at(-1) === '*';
  if (wildcard) wanted.pop();
  const fits = (doc: string, op: string) => doc === op || doc === '{}' || op === '{}';
  if (wanted.length > endpoint.segments.length) return false;
  if (wanted.length < endpoint.segments.length && !wildcard && !options.prefix) return false;
  return wanted.every((segment, i) => fits(segment, endpoint.segments[i]!));
}

function exemptBlock(block: Block): boolean {
  return block.kind === 'paragraph' && /^\s*(?:[-*]\s+)?(?:Planned|Reserved)\b/.test(block.text);
}

/** The page that lists every command, one line each (it says so itself). */
export const COMMANDS_PAGE = 'docs/commands.md';

/** Each command is listed in docs/commands.md, as that page promises. */
export function commandsNamed(docs: readonly Doc[], commands: readonly string[]): string[] {
  const page = docs.find((d) => d.path === COMMANDS_PAGE)?.text ?? '';
  return commands.filter((name) => !new RegExp(`(?<![A-Za-z0-9_.-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_-])`).test(page))
    .map((name) => `command "${name}" is not listed in ${COMMANDS_PAGE}`);
}

/** Each served endpoint is named: its path, or its parent path beside its last segment in one block. */
export function endpointsNamed(docs: readonly Doc[], served: readonly Endpoint[]): string[] {
  const blocks = docs.flatMap((d) => d.blocks).map((b) => ({ tokens: new Set(pathTokens(b.text).map((t) => normalizePath(t))), spans: new Set(b.spans) }));
  const everywhere = new Set(blocks.flatMap((b) => [...b.tokens]));
  const reasons: string[] = [];
  for (const path of [...new Set(served.map((e) => e.normalized))].sort()) {
    if (everywhere.has(path)) continue;
    // The root path "/" has no token form in prose: named when a code span holds it exactly.
    if (path === '/' && blocks.some((b) => b.spans.has('/'))) continue;
    const cut = path.lastIndexOf('/');
    const [parent, segment] = [path.slice(0, cut), path.slice(cut + 1)];
    const named = blocks.some((b) => b.tokens.has(parent) && (b.spans.has(segment) || b.spans.has(`/${segment}`) || b.tokens.has(`/${segment}`)));
    if (!named) reasons.push(`endpoint ${path} is not named in README.md or docs/*.md`);
  }
  return reasons;
}

/** README names every file surface. */
export function fileSurfacesInReadme(docs: readonly Doc[]): string[] {
  const readme = docs.find((d) => d.path === 'README.md')?.text ?? '';
  return FILE_SURFACES.filter((path) => !readme.includes(path)).map((path) => `README.md does not name the file surface "${path}"`);
}

/** Endpoints the docs name in code: METHOD spans, /api/ spans and loopback URLs must be served (or consumed). */
export function documentedEndpointsExist(docs: readonly Doc[], endpoints: { served: readonly Endpoint[]; consumed: readonly Endpoint[] }): string[] {
  const reasons: string[] = [];
  const all = [...endpoints.served, ...endpoints.consumed];
  const exists = (path: string, method?: string) => all.some((e) => (method === undefined || e.method === method || (method === 'HEAD' && e.method === 'GET')) && pathMatches(path, e, { prefix: method === undefined }));
  for (const doc of docs) {
    for (const block of doc.blocks.filter((b) => !exemptBlock(b))) {
      const where = `${doc.path}:${block.line}`;
      for (const span of block.spans) {
        const method = METHOD_SPAN.exec(span);
        if (method && method[2]!.startsWith('/') && !exists(method[2]!, method[1]!)) reasons.push(`${where}: ${method[1]} ${method[2]!.split('?')[0]} is not an endpoint of any OpenAPI contract`);
        else if (!method && /^\/api\/\S*$/.test(span) && !exists(span)) reasons.push(`${where}: ${span} is not a path of any OpenAPI contract`);
      }
      const code = block.kind === 'fence' ? block.text : block.spans.join('\n');
      for (const match of code.matchAll(HOSTED_URL)) {
        const path = (match[1] ?? '/').split('?')[0]!;
        if (path !== '/' && !/[$]/.test(path) && !exists(path.replace(/[.,]+$/, ''))) reasons.push(`${where}: ${match[0]} is not a path of any OpenAPI contract`);
      }
    }
  }
  return [...new Set(reasons)];
}

function globMatches(root: string, pattern: string): boolean {
  const directory = pattern.endsWith('/');
  const segments = pattern.replace(/^\.\//, '').replace(/\/$/, '').split('/');
  const walk = (dir: string, index: number): boolean => {
    if (index === segments.length) return !directory || statSync(dir).isDirectory();
    const segment = segments[index]!;
    if (!/[*<>{}]/.test(segment)) return existsSync(join(dir, segment)) && walk(join(dir, segment), index + 1);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return false;
    const regex = new RegExp(`^${segment.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/<[^>]*>|\{[^}]*\}/g, '[^/]+')}$`);
    return readdirSync(dir).some((name) => regex.test(name) && walk(join(dir, name), index + 1));
  };
  return walk(root, 0);
}

/** Commands and repository paths the docs name in code exist. */
export function documentedThingsExist(root: string, docs: readonly Doc[], commands: ReadonlySet<string>): { commands: string[]; paths: string[] } {
  const commandReasons: string[] = [];
  const pathReasons: string[] = [];
  const installed = isInstallPrefix(root);
  const checkWord = (where: string, raw: string, inTable: boolean) => {
    const word = raw.replace(/[.,;:)]+$/, '').replace(/^\(/, '');
    const bundle = /^(?:\.\/)?dist\/(?:bin|sea)\/([A-Za-z0-9_.-]+?)(?:\.mjs)?$/.exec(word);
    if (bundle) {
      if (!commands.has(bundle[1]!)) commandReasons.push(`${where}: ${word} names command "${bundle[1]}", which does not exist`);
      return;
    }
    if (REPO_DIRS.test(word)) {
      // An install prefix ships the docs but no sources: their paths are the checkout's, not its own.
      if (installed && SOURCE_PATH.test(word)) return;
      if (!globMatches(root, word)) pathReasons.push(`${where}: ${word} does not exist`);
      return;
    }
    if (inTable && /^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*(?:\.sh)?$/.test(word) && !commands.has(word)) commandReasons.push(`${where}: command "${word}" does not exist`);
  };
  for (const doc of docs) {
    for (const block of doc.blocks) {
      const where = `${doc.path}:${block.line}`;
      const commandColumns = (block.header ?? []).flatMap((name, i) => (COMMAND_COLUMNS.has(name) ? [i] : []));
      const isHeader = block.kind === 'row' && block.cells?.every((cell, i) => cell.join(' ').toLowerCase() === (block.header?.[i] ?? '') || cell.length === 0);
      for (const span of block.spans) {
        const inCommandCell = !isHeader && commandColumns.some((i) => block.cells?.[i]?.includes(span));
        const words = span.split(/\s+/).filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w));
        while (words.length > 0 && LAUNCHERS.has(words[0]!)) words.shift();
        if (inCommandCell && words[0] !== undefined && !['npm', 'curl'].includes(words[0])) checkWord(where, words[0], true);
        for (const word of words.slice(inCommandCell ? 1 : 0)) if (word.includes('/')) checkWord(where, word, false);
      }
      if (block.kind === 'fence') {
        for (const word of block.text.split(/\s+/)) if (/^(?:\.\/)?(?:dist\/(?:bin|sea)|scripts)\//.test(word)) checkWord(where, word, false);
      }
    }
  }
  return { commands: [...new Set(commandReasons)], paths: [...new Set(pathReasons)] };
}

/** Every check of check_docs_contract over the checkout at `root`. */
export function checkDocsContract(root: string): Check[] {
  const docs = readDocs(root);
  const commands = listCommands(root).map((c) => c.name);
  const endpoints = knownEndpoints(root);
  // The all-in-one airlock is a name docs may use, but not a command of its own to document.
  const exist = documentedThingsExist(root, docs, new Set([...commands, ALL_IN_ONE]));
  return [
    check('commands_named', commandsNamed(docs, commands)),
    check('endpoints_named', endpointsNamed(docs, endpoints.served)),
    check('file_surfaces_in_readme', fileSurfacesInReadme(docs)),
    check('documented_commands_exist', exist.commands),
    check('documented_endpoints_exist', documentedEndpointsExist(docs, endpoints)),
    check('documented_paths_exist', exist.paths),
  ];
}
