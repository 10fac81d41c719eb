import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { pathTokens } from '../../scripts/_semantic/docs-contract.ts';
import { scanMarkdown } from '../../scripts/_semantic/docs-markdown.ts';
import { failedChecks, runScript, tempDir } from './fixtures/semantic-root.ts';

const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'demo', version: '1' },
  paths: {
    '/healthz': { get: { responses: {} } },
    '/api/v1/demo/items': { get: { responses: {} }, post: { responses: {} } },
    '/api/v1/demo/items/{item_id}': { get: { responses: {} } },
    '/api/v1/demo/lanes': { get: { responses: {} } },
    '/api/v1/demo/lanes/alpha': { get: { responses: {} } },
    '/api/v1/demo/lanes/beta': { get: { responses: {} } },
  },
};

const README = [
  '# Demo',
  '',
  'Files: `governance-manifest.json`, `configs/stack-contract.json`, `contracts/qa_feature_registry_v1.json`,',
  '`contracts/api/semantic_openapi_v1.json`, `contracts/api/semantic_asyncapi_v1.json`, `contracts/api/semantic_cdc_v1.json`',
  'and `dist/package-metadata.json`. Sources live in `src/<service>/main.ts` and `contracts/api/*_openapi_v1.json`.',
  '',
  '| command | what it does |',
  '|---|---|',
  '| `demo_check --root DIR` | checks |',
  '| `bash scripts/demo.sh` | wraps it |',
  '| `npm test` | tests |',
  '',
].join('\n');

const DOCS = [
  '# Demo API',
  '',
  '| executable | listener |',
  '|---|---|',
  '| `node dist/bin/demo-api.mjs` | `127.0.0.1:18099` |',
  '',
  '`GET /healthz`, `GET /api/v1/demo/items`, `POST /api/v1/demo/items`, `GET /api/v1/demo/items/<id>`.',
  'Lanes: `/api/v1/demo/lanes` with `alpha` and `/beta`.',
  '',
  'Planned: `DELETE /api/v1/demo/items/{item_id}`.',
  '',
  '```sh',
  'curl -s http://127.0.0.1:18099/api/v1/demo/items?limit=2',
  'node dist/bin/demo_check.mjs --json',
  '```',
  '',
].join('\n');

function docsTree(t: TestContext): string {
  const root = tempDir(t);
  const files: Record<string, string> = {
    'README.md': README,
    'docs/demo.md': DOCS,
    'docs/commands.md': '# Commands\n\n| command | what |\n|---|---|\n| `demo-api` | serves |\n| `demo_check` | checks |\n| `demo.sh` | wraps |\n',
    'scripts/demo_check.ts': '',
    'scripts/demo.sh': '',
    'scripts/_lib.ts': '',
    'src/demo/main.ts': '',
    'contracts/api/demo_openapi_v1.json': JSON.stringify(OPENAPI),
    'governance-manifest.json': '{}',
    'configs/stack-contract.json': '{}',
    'contracts/qa_feature_registry_v1.json': '{}',
    'contracts/api/semantic_openapi_v1.json': '{}',
    'contracts/api/semantic_asyncapi_v1.json': '{}',
    'contracts/api/semantic_cdc_v1.json': '{}',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function failing(root: string): Record<string, string[]> {
  return failedChecks(runScript('check_docs_contract', ['--root', root, '--json']));
}

test('check_docs_contract passes docs that name every command, endpoint and file surface, and nothing else', (t) => {
  const result = runScript('check_docs_contract', ['--root', docsTree(t)]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^all 6 checks passed$/m);
});

const GAPS: [string, (root: string) => void, Record<string, string[]>][] = [
  ['a command is not named', (root) => writeFileSync(join(root, 'scripts', 'demo_export.ts'), ''),
    { commands_named: ['command "demo_export" is not listed in docs/commands.md'] }],
  ['a shell script is not named', (root) => writeFileSync(join(root, 'scripts', 'install.sh'), ''),
    { commands_named: ['command "install.sh" is not listed in docs/commands.md'] }],
  ['a command is named elsewhere but missing from docs/commands.md', (root) => writeFileSync(join(root, 'docs', 'commands.md'), '# Commands\n\n| command | what |\n|---|---|\n| `demo-api` | serves |\n| `demo.sh` | wraps |\n'),
    { commands_named: ['command "demo_check" is not listed in docs/commands.md'] }],
  ['an endpoint is not named', (root) => writeFileSync(join(root, 'contracts', 'api', 'demo_openapi_v1.json'), JSON.stringify({ ...OPENAPI, paths: { ...OPENAPI.paths, '/api/v1/demo/orders': { get: { responses: {} } } } })),
    { endpoints_named: ['endpoint /api/v1/demo/orders is not named in README.md or docs/*.md'] }],
  ['README leaves out a file surface', (root) => writeFileSync(join(root, 'README.md'), README.replace('`contracts/qa_feature_registry_v1.json`,', '')),
    { file_surfaces_in_readme: ['README.md does not name the file surface "contracts/qa_feature_registry_v1.json"'] }],
  ['the docs name a bundle that does not exist', (root) => appendFileSync(join(root, 'docs', 'demo.md'), '\nRun `node dist/bin/demo_gone.mjs --json`.\n'),
    { documented_commands_exist: ['docs/demo.md:17: dist/bin/demo_gone.mjs names command "demo_gone", which does not exist'] }],
  ['a command table names a command that does not exist', (root) => writeFileSync(join(root, 'README.md'), README.replace('| `npm test` | tests |', '| `demo_purge --all` | gone |')),
    { documented_commands_exist: ['README.md:11: command "demo_purge" does not exist'] }],
  ['the docs name an endpoint nothing serves', (root) => appendFileSync(join(root, 'docs', 'demo.md'), '\nAlso `DELETE /api/v1/demo/items/{item_id}`.\n'),
    { documented_endpoints_exist: ['docs/demo.md:17: DELETE /api/v1/demo/items/{item_id} is not an endpoint of any OpenAPI contract'] }],
  ['a curl line names a path nothing serves', (root) => appendFileSync(join(root, 'docs', 'demo.md'), '\n```sh\ncurl -s localhost:18099/api/v1/demo/orders\n```\n'),
    { documented_endpoints_exist: ['docs/demo.md:17: localhost:18099/api/v1/demo/orders is not a path of any OpenAPI contract'] }],
  ['the docs name a repository path that does not exist', (root) => appendFileSync(join(root, 'docs', 'demo.md'), '\nSee `contracts/demo_gone_v1.json` and `bash scripts/gone.sh`.\n'),
    { documented_paths_exist: ['docs/demo.md:17: contracts/demo_gone_v1.json does not exist', 'docs/demo.md:17: scripts/gone.sh does not exist'] }],
];

for (const [name, breakIt, expected] of GAPS) {
  test(`check_docs_contract exits 1 when ${name}`, (t) => {
    const root = docsTree(t);
    breakIt(root);
    assert.deepEqual(failing(root), expected);
  });
}

test('check_docs_contract on an install prefix takes its commands from dist/bin, having no sources', (t) => {
  const root = docsTree(t);
  rmSync(join(root, 'src'), { recursive: true });
  rmSync(join(root, 'scripts', 'demo_check.ts'));
  mkdirSync(join(root, 'dist', 'bin'), { recursive: true });
  writeFileSync(join(root, 'dist', 'bin', 'demo-api.mjs'), '');
  writeFileSync(join(root, 'dist', 'bin', 'demo_check.mjs'), '');
  const result = runScript('check_docs_contract', ['--root', root]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  writeFileSync(join(root, 'dist', 'bin', 'demo_new.mjs'), '');
  assert.deepEqual(failing(root), { commands_named: ['command "demo_new" is not listed in docs/commands.md'] });
});

test('check_docs_contract exits 2 without a README', (t) => {
  const result = runScript('check_docs_contract', ['--root', tempDir(t)]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /README\.md is missing/);
});

test('scanMarkdown() splits paragraphs, table rows with their header, and fences', () => {
  const blocks = scanMarkdown('intro `a`\nmore `b`\n\n| command | x |\n|---|---|\n| `c \\| d` | `e` |\n\n```\n`not a span`\n```\n');
  assert.deepEqual(blocks.map((b) => [b.kind, b.line, b.spans]), [['paragraph', 1, ['a', 'b']], ['row', 4, []], ['row', 6, ['c \\| d', 'e']], ['fence', 8, []]]);
  assert.deepEqual(blocks[2]!.header, ['command', 'x']);
});

test('pathTokens() finds paths in prose and loopback URLs, never inside repository paths', () => {
  assert.deepEqual(pathTokens('GET /healthz, then curl http://127.0.0.1:18020/readyz?x=1 and localhost:18010/api/v1/x. Not contracts/api/y.json nor $BASE/z.'), ['/healthz', '/readyz', '/api/v1/x']);
});
