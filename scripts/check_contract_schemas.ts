// check_contract_schemas: compiles every JSON Schema under contracts/ with the kernel's draft
// 2020-12 validator: standalone schema files and the schemas embedded in OpenAPI and AsyncAPI
// documents. Exits 1 naming each schema that fails to compile, 2 when the folder is missing.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AirlockError, compileSchema, defineCommand, EXIT_FAILED, EXIT_OK, isAirlockError, main } from '../src/kernel/index.ts';

/** The OpenAPI 3.1 base dialect: 2020-12 plus an optional OAS vocabulary (discriminator, xml...). */
const OAS_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';
const OAS_DIALECT_DOCUMENT = {
  $id: OAS_DIALECT,
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $vocabulary: Object.fromEntries([
    ...['core', 'applicator', 'unevaluated', 'validation', 'meta-data', 'format-annotation', 'content'].map((v) => [`https://json-schema.org/draft/2020-12/vocab/${v}`, true]),
    ['https://spec.openapis.org/oas/3.1/vocab/base', false],
  ]),
};
// Multi-format AsyncAPI payloads in these formats are JSON Schema; others (Avro, RAML) are not ours to check.
const JSON_SCHEMA_FORMATS = /schema\+json|vnd\.aai\.asyncapi/;

interface Found {
  file: string;
  /** JSON Pointer tokens from the document root to the schema. */
  tokens: string[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listJsonFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.json') && statSync(join(dir, name)).isFile())
    .map((name) => join(dir, name))
    .sort();
}

/** Every entry of components.schemas, then each `schema` member anywhere else (OpenAPI 3.1). */
function openApiSchemas(doc: Json, file: string): Found[] {
  const found: Found[] = [];
  const schemas = isObject(doc['components']) ? doc['components']['schemas'] : undefined;
  if (isObject(schemas)) for (const name of Object.keys(schemas)) found.push({ file, tokens: ['components', 'schemas', name] });
  const visit = (value: unknown, tokens: string[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...tokens, String(i)]));
    if (!isObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      // Schemas are compiled whole; examples are data, whatever keys they hold.
      if (key === 'example' || key === 'examples' || (tokens.length === 1 && tokens[0] === 'components' && key === 'schemas')) continue;
      if (key === 'schema' && (isObject(child) || typeof child === 'boolean')) found.push({ file, tokens: [...tokens, key] });
      else visit(child, [...tokens, key]);
    }
  };
  visit(doc, []);
  return found;
}

/** components.schemas, then the payload and headers of each message (AsyncAPI 3.0, and 2.x `message`). */
function asyncApiSchemas(doc: Json, file: string): Found[] {
  const found: Found[] = [];
  const schemas = isObject(doc['components']) ? doc['components']['schemas'] : undefined;
  if (isObject(schemas)) for (const name of Object.keys(schemas)) found.push({ file, tokens: ['components', 'schemas', name] });
  const message = (value: unknown, tokens: string[]): void => {
    if (!isObject(value)) return;
    for (const key of ['payload', 'headers']) {
      const schema = value[key];
      if (isObject(schema) && 'schemaFormat' in schema) {
        if (JSON_SCHEMA_FORMATS.test(String(schema['schemaFormat']))) found.push({ file, tokens: [...tokens, key, 'schema'] });
      } else if (isObject(schema) || typeof schema === 'boolean') found.push({ file, tokens: [...tokens, key] });
    }
  };
  const visit = (value: unknown, tokens: string[]): void => {
    if (!isObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === 'schemas' || key === 'examples') continue;
      if (key === 'messages' && isObject(child)) for (const name of Object.keys(child)) message(child[name], [...tokens, key, name]);
      else if (key === 'message') message(child, [...tokens, key]);
      else visit(child, [...tokens, key]);
    }
  };
  visit(doc, []);
  return found;
}

/** The schemas a contract file holds: all of it, embedded ones, or none (a CDC matrix, a fixture). */
function schemasOf(doc: unknown, file: string): Found[] {
  if (!isObject(doc)) return file.endsWith('.schema.json') ? [{ file, tokens: [] }] : [];
  if (typeof doc['openapi'] === 'string') return openApiSchemas(doc, file);
  if (typeof doc['asyncapi'] === 'string') return asyncApiSchemas(doc, file);
  return typeof doc['$schema'] === 'string' || file.endsWith('.schema.json') ? [{ file, tokens: [] }] : [];
}

function fragmentOf(tokens: string[]): string {
  return tokens.map((token) => `/${encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('');
}

const command = defineCommand({
  name: 'check_contract_schemas',
  summary: 'Compiles every JSON Schema under the contracts folder with the kernel validator (draft 2020-12)',
  description: [
    'Schemas checked: files with a top-level "$schema" or named *.schema.json; in OpenAPI documents, components.schemas and',
    'every "schema" member (parameters, request bodies, responses, headers); in AsyncAPI documents, components.schemas and',
    'each message payload and headers. Other JSON files (CDC matrices, fixtures) hold no schema and are skipped. A $ref may',
    'point into the same document or, relative to the file, into any other JSON file of the folder; nothing is fetched.',
  ].join('\n'),
  options: {
    dir: { type: 'string', default: 'contracts', valueName: 'DIR', description: 'Folder searched recursively for *.json' },
  },
  run({ values, json, print, printJson }) {
    const dir = resolve(values.dir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new AirlockError('environment', `Cannot check contracts in "${values.dir}": no such folder`);
    const shown = values.dir.replace(/\/+$/, '');
    const base = `${pathToFileURL(dir).href}/`;
    // Messages name files as the operator wrote the folder, not as file:// URIs.
    const display = (text: string) => text.replaceAll(base, `${shown}/`);
    const registry = new Map<string, unknown>([[OAS_DIALECT, OAS_DIALECT_DOCUMENT]]);
    const failures: { schema: string; message: string }[] = [];
    const schemas: Found[] = [];
    const files = listJsonFiles(dir);
    for (const file of files) {
      let doc: unknown;
      try {
        doc = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        failures.push({ schema: display(pathToFileURL(file).href), message: `Not valid JSON: ${(error as Error).message}` });
        continue;
      }
      registry.set(pathToFileURL(file).href, doc);
      schemas.push(...schemasOf(doc, file));
    }
    for (const { file, tokens } of schemas) {
      const uri = `${pathToFileURL(file).href}#${fragmentOf(tokens)}`;
      try {
        compileSchema({ $ref: uri }, { registry });
      } catch (error) {
        if (!isAirlockError(error, 'schema_compile')) throw error;
        failures.push({ schema: display(uri), message: display(error.message) });
      }
    }
    const ok = failures.length === 0;
    const summary = `${schemas.length} schemas in ${files.length} files under ${shown}: ${ok ? 'all compile' : `${failures.length} failed`}`;
    if (json) printJson({ ok, dir: shown, files: files.length, schemas: schemas.length, failures });
    else {
      for (const { schema, message } of failures) print(`FAIL ${schema}: ${message}`);
      print(summary);
    }
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
