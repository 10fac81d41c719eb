// The seven synthetic fixtures (all S0, operator-authenticated). Each takes only what its row of
// the seed lists, validated against the admitted ids, scenarios and labels of the fixtures
// contract, and derives the rest server-side. A fixture asserts a policy; it never executes one,
// never reads or writes the graph, and never promotes runtime evidence.

import type { JsonSchema } from '../kernel/index.ts';
import type { ActivationStage } from './config.ts';
import { deriveId } from './digest.ts';
import { FIXTURES_CONTRACT, FIXTURES_CONTRACT_REF } from './fixture-contract.ts';
import type { FixtureName } from './fixture-contract.ts';
import { pickMetrics, unavailable } from './runtime-owner-artifact.ts';
import type { ArtifactRead } from './runtime-owner-artifact.ts';

const F = FIXTURES_CONTRACT.fixtures;

export interface FixtureContext {
  stage: ActivationStage;
  canaryTenantId: string | undefined;
  /** Reads the runtime-owner artifact (retrieval-gate runtime metrics). */
  runtimeArtifact: () => ArtifactRead;
}

export interface FixtureDefinition {
  name: FixtureName;
  summary: string;
  /** Request schema; a body is optional when the fixture takes no input. */
  request: JsonSchema;
  optionalBody: boolean;
  /** The deterministic part of the receipt. */
  build(body: Record<string, string>, context: FixtureContext): Record<string, unknown>;
}

/** What every fixture receipt says about itself. */
export const SYNTHETIC_FLAGS = Object.freeze({
  stage: FIXTURES_CONTRACT.stage,
  synthetic: true,
  executed: false,
  composed_result_executed: false,
  promotes_runtime_evidence: false,
});

const fixtureId = (ids: readonly string[]) => ({ type: 'string', enum: [...ids], description: 'An admitted synthetic fixture id of the fixtures contract' });
const oneOf = (values: readonly string[], description: string) => ({ type: 'string', enum: [...values], description });

function bodySchema(properties: Record<string, unknown>): JsonSchema {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties), properties };
}

/** A body of an admitted fixture id and one admitted key (scenario, label) of a contract table. */
function choiceSchema(ids: readonly string[], field: string, table: Record<string, unknown>, description: string): JsonSchema {
  return bodySchema({ fixture_id: fixtureId(ids), [field]: oneOf(Object.keys(table), description) });
}

/** The contract entry the body chose, with an id derived from the fixture, its id and the choice. */
function chosen(name: FixtureName, body: Record<string, string>, options: { field: string; table: Record<string, object>; id: [key: string, prefix: string] }): Record<string, unknown> {
  const choice = body[options.field]!;
  const [key, prefix] = options.id;
  return { ...options.table[choice], [key]: deriveId(prefix, [name, body['fixture_id'], choice]) };
}

/** A body that must not carry any of `refused` (each named in its own 422 error) nor anything else. */
function noInputSchema(refused: readonly string[]): JsonSchema {
  return { type: 'object', additionalProperties: false, properties: Object.fromEntries(refused.map((name) => [name, false])) };
}

/** Receipts for each named assertion of the contract, with ids derived from `scope`. */
function assertions(assertionsByName: Record<string, string>, scope: readonly string[], idPrefix: string): Record<string, unknown>[] {
  return Object.entries(assertionsByName).map(([name, assertion]) => ({
    name,
    assertion,
    outcome: 'asserted_synthetic',
    [`${idPrefix}_id`]: deriveId(idPrefix === 'receipt' ? 'rcpt' : 'evd', [...scope, name]),
  }));
}

export const FIXTURES: readonly FixtureDefinition[] = [
  {
    name: 'deletion-restore',
    summary: 'Deletion and restore policy receipts for an admitted fixture and scope type (synthetic assertions, not live execution)',
    request: bodySchema({ fixture_id: fixtureId(F['deletion-restore'].fixture_ids), scope_type: oneOf(Object.keys(F['deletion-restore'].scope_types), 'subject or tenant') }),
    optionalBody: false,
    build({ fixture_id, scope_type }) {
      const kinds = F['deletion-restore'].scope_types[scope_type as 'subject' | 'tenant'];
      const scope = ['deletion-restore', fixture_id!, scope_type!];
      return {
        fixture_id,
        scope_type,
        scope_keys: kinds.map((kind) => ({ kind, key: deriveId('sk', [...scope, kind]) })),
        receipts: assertions(F['deletion-restore'].receipts, scope, 'receipt'),
      };
    },
  },
  {
    name: 'temporal-ontology',
    summary: 'Temporal-state, derivation-authority and shadow-migration/rollback evidence for an admitted fixture',
    request: bodySchema({ fixture_id: fixtureId(F['temporal-ontology'].fixture_ids) }),
    optionalBody: false,
    build({ fixture_id }) {
      return { fixture_id, evidence: assertions(F['temporal-ontology'].evidence, ['temporal-ontology', fixture_id!], 'evidence') };
    },
  },
  {
    name: 'entity-conflict',
    summary: 'Exact-only, candidate-only, no-winner or reviewed merge/split posture for a fixture and an admitted scenario',
    request: choiceSchema(F['entity-conflict'].fixture_ids, 'scenario', F['entity-conflict'].scenarios, 'An admitted entity-conflict scenario'),
    optionalBody: false,
    build(body) {
      const posture = chosen('entity-conflict', body, { field: 'scenario', table: F['entity-conflict'].scenarios, id: ['posture_id', 'pst'] });
      return { fixture_id: body['fixture_id'], scenario: body['scenario'], posture };
    },
  },
  {
    name: 'retrieval-gate',
    summary: 'Hybrid and degradation policy evidence for an admitted fixture and fixed scenario; runtime metrics stay unavailable until the runtime-owner path materializes them',
    request: choiceSchema(F['retrieval-gate'].fixture_ids, 'scenario', F['retrieval-gate'].scenarios, 'A fixed retrieval-gate scenario'),
    optionalBody: false,
    build(body, context) {
      const names = F['retrieval-gate'].runtime_metrics;
      // Rule 1 of the seed: runtime-owner evidence is looked at from S1_read_only on, never at S0.
      const runtimeMetrics = context.stage === 'S0'
        ? Object.fromEntries(names.map((name) => [name, unavailable('stage S0: runtime metrics are not materialized through the runtime-owner path')]))
        : pickMetrics(context.runtimeArtifact(), 'runtime_metrics', names);
      return {
        fixture_id: body['fixture_id'],
        scenario: body['scenario'],
        policy_evidence: chosen('retrieval-gate', body, { field: 'scenario', table: F['retrieval-gate'].scenarios, id: ['evidence_id', 'evd'] }),
        runtime_metrics: runtimeMetrics,
        runtime_evidence: { promoted: false, reason: 'S0 fixture fields never promote runtime evidence' },
      };
    },
  },
  {
    name: 'context-security',
    summary: 'Allowlisted-authorization, tenant-denial, inference-risk, explanation and negative-state receipts; accepts no principal, tenant, query, facts, vectors, model or provider input',
    request: noInputSchema(F['context-security'].refused_inputs),
    optionalBody: true,
    build() {
      return {
        refused_inputs: F['context-security'].refused_inputs,
        receipts: assertions(F['context-security'].receipts, ['context-security'], 'receipt'),
      };
    },
  },
  {
    name: 'poison-mutation',
    summary: 'Containment, downgrade or rejection evidence for a fixture and a fixed poisoning, counterfactual or mutation label',
    request: choiceSchema(F['poison-mutation'].fixture_ids, 'label', F['poison-mutation'].labels, 'poisoning, counterfactual or mutation'),
    optionalBody: false,
    build(body) {
      const evidence = chosen('poison-mutation', body, { field: 'label', table: F['poison-mutation'].labels, id: ['evidence_id', 'evd'] });
      return { fixture_id: body['fixture_id'], label: body['label'], evidence };
    },
  },
  {
    name: 'canary-activation',
    summary: 'Paired-baseline, low-risk read-only canary and stage-regression policy receipts; accepts no traffic or tenant input',
    request: noInputSchema(F['canary-activation'].refused_inputs),
    optionalBody: true,
    build(_body, context) {
      return {
        refused_inputs: F['canary-activation'].refused_inputs,
        canary: {
          tenant_id: context.canaryTenantId ?? unavailable('SEMANTIC_CANARY_TENANT_ID is not set'),
          mode: 'read_only',
          current_stage: context.stage,
        },
        receipts: assertions(F['canary-activation'].receipts, ['canary-activation', context.canaryTenantId ?? '', context.stage], 'receipt'),
      };
    },
  },
];

/** The deterministic receipt body of a fixture: flags, contract reference, derived content. */
export function fixtureReceipt(definition: FixtureDefinition, body: Record<string, string>, context: FixtureContext): Record<string, unknown> {
  return { fixture: definition.name, ...SYNTHETIC_FLAGS, contract: FIXTURES_CONTRACT_REF, ...definition.build(body, context) };
}
