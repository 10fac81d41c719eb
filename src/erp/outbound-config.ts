// Configuration of the support desk (inbound secret, outbound Zammad URL and token),
// the governance handoff, identity truth freshness and the MCP endpoint's Origin allowlist. Kept
// beside config.ts so each family's variables are read in one place.

import type { ConfigSpec, ConfigValues } from '../kernel/index.ts';

export const OUTBOUND_SPEC = {
  SUPPORT_DESK_WEBHOOK_SECRET: { type: 'secret', description: 'House-scheme secret of support_cases.support_desk_inbound (falls back to AUTOMATION_SHARED_SECRET)' },
  SUPPORT_DESK_URL: { type: 'url', description: 'Base URL of the Zammad-compatible support desk that support_desk_outbound delivers to' },
  SUPPORT_DESK_TOKEN: { type: 'secret', description: 'Zammad API token sent as Authorization: Token token=<token>' },
  GOVERNANCE_URL: { type: 'url', description: 'Base URL of the governance service worker listener (support handoff to POST /api/v1/events/outbox/support)' },
  GOVERNANCE_TOKEN: { type: 'secret', description: 'Governance lane token for the support handoff (its operator lane, GOVERNANCE_OPERATOR_TOKEN)' },
  ERP_OUTBOUND_TIMEOUT_MS: { type: 'int', default: 5000, min: 100, max: 120000, description: 'Timeout of each outbound call (support desk, governance)' },
  ERP_IDENTITY_MAX_AGE_SECONDS: { type: 'int', default: 86400, min: 60, max: 30 * 86400, description: 'Identity truth (Employee, User) older than this is stale: identity projections deny' },
  ERP_MCP_ALLOWED_ORIGINS: { type: 'list', default: [], description: 'Origins a browser may call /mcp from (comma-separated); requests without Origin pass' },
} as const satisfies ConfigSpec;

export interface OutboundConfig {
  supportDeskSecret: string | undefined;
  supportDeskUrl: string | undefined;
  supportDeskToken: string | undefined;
  governanceUrl: string | undefined;
  governanceToken: string | undefined;
  timeoutMs: number;
  identityMaxAgeSeconds: number;
  mcpAllowedOrigins: readonly string[];
}

type OutboundValues = ConfigValues<typeof OUTBOUND_SPEC>;

export function outboundConfig(values: OutboundValues, problems: string[]): OutboundConfig {
  if (values.SUPPORT_DESK_URL !== undefined && values.SUPPORT_DESK_TOKEN === undefined) problems.push('SUPPORT_DESK_URL is set without SUPPORT_DESK_TOKEN: set both or neither');
  if (values.GOVERNANCE_URL !== undefined && values.GOVERNANCE_TOKEN === undefined) problems.push('GOVERNANCE_URL is set without GOVERNANCE_TOKEN: set both or neither');
  return {
    supportDeskSecret: values.SUPPORT_DESK_WEBHOOK_SECRET,
    supportDeskUrl: values.SUPPORT_DESK_URL,
    supportDeskToken: values.SUPPORT_DESK_TOKEN,
    governanceUrl: values.GOVERNANCE_URL,
    governanceToken: values.GOVERNANCE_TOKEN,
    timeoutMs: values.ERP_OUTBOUND_TIMEOUT_MS,
    identityMaxAgeSeconds: values.ERP_IDENTITY_MAX_AGE_SECONDS,
    mcpAllowedOrigins: values.ERP_MCP_ALLOWED_ORIGINS,
  };
}
