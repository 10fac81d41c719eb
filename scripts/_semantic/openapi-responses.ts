// Judges an HTTP answer against the OpenAPI operation it came from: the status must be declared,
// the media type one of the declared ones, and the body valid against the declared schema (the
// kernel validator, draft 2020-12, with the document as its own registry for $refs).

import { compileSchema } from '../../src/kernel/index.ts';
import type { SchemaValidator } from '../../src/kernel/index.ts';
import type { HttpAnswer } from './http-client.ts';
import { objectOf } from './json-file.ts';
import type { OpenApiOperation } from './openapi-operations.ts';

const DOCUMENT_URI = 'https://airlock.invalid/openapi.json';

function pointer(...tokens: string[]): string {
  return tokens.map((token) => `/${encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('');
}

/** Media type without parameters, lower-case. */
export function mediaType(header: string | null): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

export type ResponseChecker = (op: OpenApiOperation, answer: HttpAnswer) => string[];

/** A checker over `doc`; validators are compiled once per (operation, status, media type). */
export function createResponseChecker(doc: unknown): ResponseChecker {
  const registry = new Map<string, unknown>([[DOCUMENT_URI, doc]]);
  const validators = new Map<string, SchemaValidator>();
  return (op, answer) => {
    const where = `${op.method} ${op.path}`;
    const status = String(answer.status);
    const responses = objectOf(op.operation['responses']);
    if (!(status in responses)) return [`${where} answered ${status}, which the contract does not declare (${Object.keys(responses).join(', ')})`];
    const content = objectOf(objectOf(responses[status])['content']);
    const types = Object.keys(content);
    if (types.length === 0) return [];
    const type = mediaType(answer.headers.get('content-type'));
    if (!types.includes(type)) return [`${where} answered ${status} as "${type || 'no content type'}", the contract declares ${types.join(', ')}`];
    if (objectOf(content[type])['schema'] === undefined) return [];
    const key = pointer('paths', op.path, op.method.toLowerCase(), 'responses', status, 'content', type, 'schema');
    let validator = validators.get(key);
    if (validator === undefined) {
      validator = compileSchema({ $ref: `${DOCUMENT_URI}#${key}` }, { registry });
      validators.set(key, validator);
    }
    if (answer.json === undefined) return [`${where} answered ${status} with a body that is not JSON`];
    const { valid, errors } = validator.validate(answer.json);
    return valid ? [] : errors.slice(0, 3).map((e) => `${where} answered ${status} with a body that fails its schema: ${e.message}`);
  };
}
