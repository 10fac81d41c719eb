// support_desk_inbound's normalization is data: contracts/erp/support_normalization_rules_v1.json,
// checked against its JSON Schema when the module loads (a broken rules file refuses the start),
// then applied by normalizeSupportEvent(). No desk value is spelled out in code.

import { compileSchema } from '../../kernel/index.ts';
import RULES_JSON from '../../../contracts/erp/support_normalization_rules_v1.json' with { type: 'json' };
import RULES_SCHEMA from '../../../contracts/erp/support_normalization_rules_v1.schema.json' with { type: 'json' };

export type Lifecycle = 'open' | 'pending' | 'resolved' | 'closed';
export type Priority = 'low' | 'normal' | 'high' | 'urgent';
export type AttachmentField = 'filename' | 'size' | 'content_type';

export interface NormalizationRules {
  version: 1;
  lifecycle: Record<string, Lifecycle>;
  priority: Record<string, Priority>;
  status_labels: Record<Lifecycle, string>;
  attachments: { max_count: number; max_size_bytes: number; fields: Record<string, AttachmentField> };
  business_ref_shortcuts: Record<string, string>;
  governance_event_types: { message: string; ticket: Record<Lifecycle, string> };
}

/** Checks a rules document against the contract's schema; the problems, or the rules. */
export function checkRules(value: unknown): NormalizationRules | string[] {
  const result = compileSchema(RULES_SCHEMA as Record<string, unknown>).validate(value);
  if (!result.valid) return result.errors.map((e) => `${e.instancePath || '/'}: ${e.message}`);
  return value as NormalizationRules;
}

function loadRules(): NormalizationRules {
  const checked = checkRules(RULES_JSON);
  if (Array.isArray(checked)) throw new TypeError(`contracts/erp/support_normalization_rules_v1.json breaks its schema: ${checked.join('; ')}`);
  return checked;
}

export const SUPPORT_RULES: NormalizationRules = loadRules();
