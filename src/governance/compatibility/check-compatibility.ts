// checkCompatibility(): a proposed JSON Schema against the previous versions of its family, in
// one of the registry modes. Each breaking change is one message naming the JSON Pointer of
// the place in the proposed schema and the rule it breaks, phrased as the change from the
// previous version to the proposed one. Pure: no I/O, same input, same answer.

import { modePlan } from './modes.ts';
import type { CompatibilityMode, Direction } from './modes.ts';
import { findNarrowings } from './schema-narrowings.ts';
import type { Narrowing, NarrowingKind, NarrowingOptions } from './schema-narrowings.ts';

export interface SchemaVersion {
  /** A label for messages, e.g. "1.0.0" or "planning_v1". */
  version: string;
  schema: unknown;
}

export interface CompatibilityRequest extends NarrowingOptions {
  mode: CompatibilityMode;
  /** Previous versions, oldest first; the last one is the latest. */
  previous: readonly SchemaVersion[];
  proposed: unknown;
}

export interface BreakingChange {
  rule: string;
  /** backward: the proposed schema cannot read the version's data; forward: the version cannot read the proposed schema's data. */
  direction: Direction;
  version: string;
  /** Where the change stands in the proposed schema (JSON Pointer, "" for the root). */
  pointer: string;
  message: string;
}

export interface CompatibilityResult {
  is_compatible: boolean;
  mode: CompatibilityMode;
  compared_with: string[];
  messages: BreakingChange[];
}

type Phrase = (n: Narrowing, where: string) => string;

/** Per kind: the rule and message when the proposed schema narrows (backward) or widens (forward). */
const RULES: Record<NarrowingKind, { backward: [string, Phrase]; forward: [string, Phrase] }> = {
  false_schema: {
    backward: ['schema_rejects_everything', (_, w) => `Schema at ${w} now rejects every value`],
    forward: ['schema_accepted_nothing', (_, w) => `Schema at ${w} accepted no value before, so the previous version reads none of the new data`],
  },
  type: {
    backward: ['type_narrowed', (n, w) => `Narrowed type at ${w}: ${list(n.writer)} no longer accepted`],
    forward: ['type_widened', (n, w) => `Widened type at ${w}: ${list(n.writer)} now accepted, which the previous version rejects`],
  },
  required: {
    backward: ['required_property_added', (n, w) => `Added required property "${n.property}" at ${w}`],
    forward: ['required_property_removed', (n, w) => `Removed required property "${n.property}" at ${w}`],
  },
  enum: {
    backward: ['enum_narrowed', (n, w) => (n.writer === null ? `Added enum at ${w}: only ${list(n.reader)} accepted` : `Tightened enum at ${w}: ${list(n.writer)} no longer accepted`)],
    forward: ['enum_widened', (n, w) => (n.writer === null ? `Removed enum at ${w}: values outside ${list(n.reader)} now accepted` : `Widened enum at ${w}: ${list(n.writer)} now accepted, which the previous version rejects`)],
  },
  const: {
    backward: ['const_narrowed', (n, w) => `Tightened const at ${w}: only ${list(n.reader)} accepted`],
    forward: ['const_widened', (n, w) => `Relaxed const at ${w}: values other than ${list(n.reader)} now accepted, which the previous version rejects`],
  },
  bound: {
    backward: ['bound_tightened', (n, w) => `Tightened ${n.keyword} at ${w}: ${String(n.reader)} (was ${n.writer === null ? 'unbounded' : String(n.writer)})`],
    forward: ['bound_relaxed', (n, w) => `Relaxed ${n.keyword} at ${w}: ${n.writer === null ? 'unbounded' : String(n.writer)} (the previous version requires ${String(n.reader)})`],
  },
  pattern: {
    backward: ['pattern_tightened', (n, w) => `Changed pattern at ${w}: "${String(n.reader)}" (was ${n.writer === null ? 'none' : `"${String(n.writer)}"`})`],
    forward: ['pattern_relaxed', (n, w) => `Relaxed pattern at ${w}: the previous version requires "${String(n.reader)}"`],
  },
  format: {
    backward: ['format_tightened', (n, w) => `Changed format at ${w}: "${String(n.reader)}" (was ${n.writer === null ? 'none' : `"${String(n.writer)}"`})`],
    forward: ['format_relaxed', (n, w) => `Relaxed format at ${w}: the previous version requires "${String(n.reader)}"`],
  },
  unique_items: {
    backward: ['unique_items_added', (_, w) => `Added uniqueItems at ${w}`],
    forward: ['unique_items_removed', (_, w) => `Removed uniqueItems at ${w}: the previous version requires unique items`],
  },
  closed_content_model: {
    backward: ['content_model_closed', (n, w) => `Closed content model at ${w}: ${n.keyword} is now false`],
    forward: ['content_model_opened', (_, w) => `Opened content model at ${w}: additional properties now accepted, which the previous version rejects`],
  },
  property_rejected: {
    backward: ['property_removed_from_closed_model', (n, w) => `Removed property "${n.property}" from a closed content model at ${w}`],
    forward: ['property_added_to_closed_model', (n, w) => `Added property "${n.property}" at ${w}, which the previous version's closed content model rejects`],
  },
  open_model_property: {
    backward: ['property_added_to_open_model', (n, w) => `Added constrained property "${n.property}" at ${w} to an open content model: earlier data may hold any value there`],
    forward: ['property_removed_from_open_model', (n, w) => `Removed property "${n.property}" at ${w} from an open content model: new data may hold any value there, which the previous version constrains`],
  },
  combinator: {
    backward: ['combinator_narrowed', (n, w) => `Narrowed ${n.keyword} at ${w}: some earlier data fits no branch`],
    forward: ['combinator_widened', (n, w) => `Widened ${n.keyword} at ${w}: some new data fits no branch of the previous version`],
  },
  unsupported: {
    backward: ['unsupported_change', (n, w) => `Cannot prove compatibility at ${w}: ${n.keyword} changed${typeof n.reader === 'string' ? ` (${n.reader})` : ''}`],
    forward: ['unsupported_change', (n, w) => `Cannot prove compatibility at ${w}: ${n.keyword} changed${typeof n.reader === 'string' ? ` (${n.reader})` : ''}`],
  },
};

function list(value: unknown): string {
  return (Array.isArray(value) ? value : [value]).map((v) => JSON.stringify(v)).join(', ');
}

/**
 * Checks `proposed` against `previous` in `mode`.
 *
 * @example
 * checkCompatibility({ mode: 'BACKWARD', previous: [{ version: '1', schema: { type: 'object' } }], proposed: { type: 'object', required: ['id'] } });
 * // { is_compatible: false, messages: [{ rule: 'required_property_added', pointer: '/properties/id', ... }], ... }
 */
export function checkCompatibility(request: CompatibilityRequest): CompatibilityResult {
  const plan = modePlan(request.mode);
  const versions = plan.directions.length === 0 ? [] : plan.transitive ? request.previous : request.previous.slice(-1);
  const messages: BreakingChange[] = [];
  const options = request.resolve ? { resolve: request.resolve } : {};
  for (const version of versions) {
    for (const direction of plan.directions) {
      const narrowings = direction === 'backward' ? findNarrowings(request.proposed, version.schema, options) : findNarrowings(version.schema, request.proposed, options);
      for (const narrowing of narrowings) messages.push(describe(narrowing, direction, version.version));
    }
  }
  return { is_compatible: messages.length === 0, mode: request.mode, compared_with: versions.map((v) => v.version), messages };
}

function describe(narrowing: Narrowing, direction: Direction, version: string): BreakingChange {
  const pointer = direction === 'backward' ? narrowing.readerPointer : narrowing.writerPointer;
  const [rule, phrase] = RULES[narrowing.kind][direction];
  const where = pointer === '' ? 'the root' : pointer;
  return { rule, direction, version, pointer, message: phrase(narrowing, where) };
}
