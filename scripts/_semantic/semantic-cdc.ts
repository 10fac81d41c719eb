// The checks of check_semantic_cdc_matrix: ts01_consumer_matrix (three admitted consumers, four
// downstream-gated entries that admit no endpoint and claim no green result), the surfaces it
// names against the OpenAPI contract, the service's token rules against both, and optionally a
// consumer tokens file. Every function returns reasons; none throws for a bad document.

import { CONSUMER_MATRIX, checkCdcMatrix, checkConsumerTokens, consumerAdmission } from '../../src/semantic/index.ts';
import type { CdcConsumer, CdcSurface } from '../../src/semantic/index.ts';
import { check } from './check-report.ts';
import type { Check } from './check-report.ts';
import { isObject, listOf, objectOf } from './json-file.ts';
import { listOperations, surfaceKey } from './openapi-operations.ts';
import type { OpenApiOperation } from './openapi-operations.ts';

export interface SemanticCdcInputs {
  cdc: unknown;
  openapi: unknown;
  /** A parsed consumer tokens file (consumer id -> token), when one is to be checked. */
  tokens?: unknown;
  /** The admission rule the service enforces; the service's own by default (tests swap it). */
  admission?: (consumer: string, surface: CdcSurface) => boolean;
  /** The consumer ids that rule knows; the service's matrix by default. */
  serviceConsumers?: readonly string[];
}

/** The consumers of a CDC document, as far as they are well-formed. */
export function matrixConsumers(cdc: unknown): CdcConsumer[] {
  return listOf(objectOf(objectOf(cdc)['ts01_consumer_matrix'])['consumers']).filter(
    (entry): entry is CdcConsumer => isObject(entry) && typeof entry['consumer'] === 'string',
  );
}

function surfacesOf(consumer: CdcConsumer): CdcSurface[] {
  return listOf(consumer.surfaces).filter((s): s is CdcSurface => isObject(s) && typeof s['method'] === 'string' && typeof s['path'] === 'string');
}

/** Names of the security schemes of `openapi` that are HTTP bearer schemes (consumer tokens). */
export function bearerSchemes(openapi: unknown): string[] {
  const schemes = objectOf(objectOf(objectOf(openapi)['components'])['securitySchemes']);
  return Object.keys(schemes).filter((name) => {
    const scheme = objectOf(schemes[name]);
    return scheme['type'] === 'http' && String(scheme['scheme']).toLowerCase() === 'bearer';
  });
}

/** Every surface any consumer names exists as an operation of the OpenAPI contract. */
export function checkSurfacesExist(consumers: readonly CdcConsumer[], operations: readonly OpenApiOperation[]): string[] {
  const known = new Set(operations.map((op) => surfaceKey(op.method, op.path)));
  const reasons: string[] = [];
  for (const consumer of consumers) {
    for (const surface of surfacesOf(consumer)) {
      if (!known.has(surfaceKey(surface.method, surface.path))) {
        reasons.push(`consumer "${consumer.consumer}" names ${surface.method} ${surface.path}, which the OpenAPI contract does not define`);
      }
    }
  }
  return reasons;
}

/**
 * The token rules agree with the matrix: admitted surfaces are bearer-secured in the OpenAPI
 * contract, every bearer-secured operation admits some consumer, and the service's admission
 * rule admits exactly what the contract file admits.
 */
export function checkTokenRules(inputs: SemanticCdcInputs): string[] {
  const reasons: string[] = [];
  const consumers = matrixConsumers(inputs.cdc);
  const operations = listOperations(inputs.openapi);
  const bearer = bearerSchemes(inputs.openapi);
  if (bearer.length === 0) reasons.push('the OpenAPI contract defines no HTTP bearer security scheme for consumer tokens');
  const isBearer = (op: OpenApiOperation) => op.security.some((name) => bearer.includes(name));
  const byKey = new Map(operations.map((op) => [surfaceKey(op.method, op.path), op]));
  const admittedKeys = new Set<string>();
  for (const consumer of consumers.filter((c) => c.status === 'admitted')) {
    for (const surface of surfacesOf(consumer)) {
      const key = surfaceKey(surface.method, surface.path);
      admittedKeys.add(key);
      const op = byKey.get(key);
      if (op !== undefined && !isBearer(op)) {
        reasons.push(`consumer "${consumer.consumer}" is admitted to ${key}, but the OpenAPI contract secures it with ${op.security.join(', ') || 'nothing'} instead of a bearer token`);
      }
    }
  }
  for (const op of operations.filter(isBearer)) {
    const key = surfaceKey(op.method, op.path);
    if (!admittedKeys.has(key)) reasons.push(`${key} takes a consumer bearer token, but no admitted consumer lists it`);
  }
  const admission = inputs.admission ?? ((consumer: string, surface: CdcSurface) => consumerAdmission(consumer, surface).admitted);
  const serviceConsumers = inputs.serviceConsumers ?? CONSUMER_MATRIX.map((c) => c.consumer);
  for (const id of serviceConsumers) {
    if (!consumers.some((c) => c.consumer === id)) reasons.push(`the service knows consumer "${id}", which the contract's matrix does not list`);
  }
  for (const consumer of consumers) {
    const listed = new Set(consumer.status === 'admitted' ? surfacesOf(consumer).map((s) => surfaceKey(s.method, s.path)) : []);
    for (const op of operations.filter(isBearer)) {
      const expected = listed.has(surfaceKey(op.method, op.path));
      const actual = admission(consumer.consumer, { method: op.method, path: op.path });
      if (expected !== actual) {
        reasons.push(`the service ${actual ? 'admits' : 'refuses'} consumer "${consumer.consumer}" on ${op.method} ${op.path}, the contract ${expected ? 'admits' : 'refuses'} it`);
      }
    }
  }
  return reasons;
}

/** Every check of check_semantic_cdc_matrix. */
export function checkSemanticCdc(inputs: SemanticCdcInputs): Check[] {
  const consumers = matrixConsumers(inputs.cdc);
  const operations = listOperations(inputs.openapi);
  const checks = [
    check('ts01_consumer_matrix', checkCdcMatrix(inputs.cdc).reasons),
    check('surfaces_in_openapi', checkSurfacesExist(consumers, operations)),
    check('token_rules', checkTokenRules(inputs)),
  ];
  if (inputs.tokens !== undefined) checks.push(check('consumer_tokens', checkConsumerTokens(inputs.tokens, consumers).reasons));
  return checks;
}
