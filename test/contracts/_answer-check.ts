// Judges one live answer against the OpenAPI operation that declares it, with our own JSON Schema
// validator: the status is declared (or `default` covers it), the media type is one the status
// declares, and a JSON body satisfies the declared schema (references resolved in the document).

import { MIMEType } from 'node:util';
import { compileSchema } from '../../src/kernel/index.ts';
import type { SchemaValidator } from '../../src/kernel/index.ts';
import { HTTP_METHODS } from '../../scripts/_semantic/openapi-operations.ts';

type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  contentType: string | null;
  text: string;
}

const validators = new WeakMap<Json, Map<string, SchemaValidator>>();

/** `~` and `/` escaped for a JSON Pointer token. */
function token(text: string): string {
  return text.replaceAll('~', '~0').replaceAll('/', '~1');
}

function validatorAt(document: Json, pointer: string): SchemaValidator {
  let cache = validators.get(document);
  if (!cache) validators.set(document, (cache = new Map()));
  let validator = cache.get(pointer);
  if (!validator) {
    // The document itself is the schema resource, so `#/components/schemas/X` resolves where it is written.
    const { $schema: _ignored, ...rest } = document;
    validator = compileSchema({ ...rest, $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'https://airlock.invalid/contract.json', $ref: `#${pointer}` });
    cache.set(pointer, validator);
  }
  return validator;
}

function essence(contentType: string | null): string | undefined {
  if (contentType === null) return undefined;
  try {
    return new MIMEType(contentType).essence;
  } catch {
    return undefined; // not a media type: matches no declaration
  }
}

/**
 * What is wrong with `answer` as an answer of the operation at `paths[template][method]`; empty
 * when nothing is. An operation-less answer (a 405 for a method the path lacks) is judged by the
 * path's first operation's `default` response: the service's error body.
 */
export function answerViolations(document: Json, template: string, method: string, answer: Answer): string[] {
  const item = (document['paths'] as Record<string, Json>)[template];
  if (!item) return [`the contract has no path "${template}"`];
  const declared = item[method] as Json | undefined;
  // A path item also holds non-operation members (path-level `servers`, `parameters`).
  const first = Object.keys(item).find((key) => (HTTP_METHODS as readonly string[]).includes(key))!;
  const operation = declared ?? (item[first] as Json);
  const operationPointer = `/paths/${token(template)}/${declared ? method : first}`;
  const responses = operation['responses'] as Record<string, Json>;
  const key = declared && String(answer.status) in responses ? String(answer.status) : 'default';
  const response = responses[key];
  if (!response) return [`status ${answer.status} is not declared and there is no default response`];
  const content = response['content'] as Record<string, Json> | undefined;
  if (!content) {
    return answer.text === '' ? [] : [`status ${answer.status} declares no body, got ${answer.text.length} bytes of ${answer.contentType ?? 'no type'}`];
  }
  const got = essence(answer.contentType);
  // A declared range (`*/*`, `text/*`) admits every type it covers.
  const media = Object.keys(content).find((m) => essence(m) === got) ?? Object.keys(content).find((m) => m === '*/*' || (m.endsWith('/*') && got?.startsWith(m.slice(0, -1))));
  if (media === undefined) return [`status ${answer.status} (as "${key}") is sent as "${answer.contentType}", the contract declares ${Object.keys(content).map((m) => `"${m}"`).join(', ')}`];
  if (!(got === 'application/json' || got!.endsWith('+json')) || media.includes('*')) return [];
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [`status ${answer.status} says ${got} but the body is not JSON`];
  }
  const result = validatorAt(document, `${operationPointer}/responses/${token(key)}/content/${token(media)}/schema`).validate(body);
  return result.valid ? [] : result.errors.slice(0, 3).map((e) => `status ${answer.status} body at "${e.instancePath}": ${e.message}`);
}
