// The ERP's MCP tools: its read operations as data (JSON Schemas for arguments and results).
// integration_status, get_document, open_approval_packets, dead_letters and support_context read
// exactly what the Frappe routes read; request_approval (request-approval-tool.ts) is the one
// writing tool.

import type { McpTool } from '../../kernel/index.ts';
import { OPEN_STATES } from '../approvals/transitions.ts';
import { newestCurrent } from '../database/current-documents.ts';
import type { DepsRef } from '../erp-route.ts';
import { integrationStatus } from '../health/integration-status.ts';
import { redactDocument } from '../readback.ts';
import { READABLE_DOCTYPES, readResource } from '../resources/routes.ts';
import { hydrateContext } from '../support-cases/support-context.ts';
import type { BusinessRef } from '../support-cases/normalize-event.ts';
import { MAX_BUSINESS_REFS } from '../support-cases/normalize-event.ts';
import { requestApprovalTool } from './request-approval-tool.ts';


const LIMIT = { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Most rows to return, newest first' };
const DOCUMENT = { type: 'object', required: ['name', 'doctype', 'docstatus', 'modified'], properties: { name: { type: 'string' }, doctype: { type: 'string' }, docstatus: { enum: [0, 1, 2] }, modified: { type: 'string' } } };
const DOC_LIST = (key: string) => ({ type: 'object', required: [key, 'count', 'truncated'], properties: { [key]: { type: 'array', items: DOCUMENT }, count: { type: 'integer' }, truncated: { type: 'boolean' } }, additionalProperties: false });

export function erpTools(deps: DepsRef): McpTool[] {
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  return [
    {
      name: 'integration_status',
      title: 'Integration status',
      description: 'Runtime and integration snapshot of the ERP service: database, evidence chain heads, last intake per source, dispatch backlog, which secrets are configured, version truth',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: { type: 'object', required: ['service', 'version', 'database', 'evidence_chains', 'checked_at'], properties: { service: { const: 'erp' }, version: { type: 'string' }, database: { type: 'object' }, evidence_chains: { type: 'object' }, checked_at: { type: 'string' } } },
      annotations: readOnly,
      handler: () => ({ structuredContent: integrationStatus(deps()) }),
    },
    {
      name: 'get_document',
      title: 'Business document',
      description: 'One ERP business document by DocType and name, as GET /api/resource/<DocType>/<name> answers it',
      inputSchema: { type: 'object', required: ['doctype', 'name'], properties: { doctype: { enum: READABLE_DOCTYPES, description: 'The DocType' }, name: { type: 'string', minLength: 1, maxLength: 140, description: 'The document name, e.g. ACC-SINV-2026-00001' } }, additionalProperties: false },
      outputSchema: { type: 'object', required: ['document'], properties: { document: DOCUMENT }, additionalProperties: false },
      annotations: readOnly,
      handler: (args) => {
        const doctype = String(args['doctype']);
        const name = String(args['name']);
        const doc = readResource(deps(), doctype, name);
        return doc ? { structuredContent: { document: doc } } : { error: `${doctype} ${name} not found: list the DocType with GET /api/resource/${doctype}` };
      },
    },
    {
      name: 'open_approval_packets',
      title: 'Open approval packets',
      description: `Approval Packets in an open state (${OPEN_STATES.join(', ')}), newest first`,
      inputSchema: { type: 'object', properties: { limit: LIMIT }, additionalProperties: false },
      outputSchema: DOC_LIST('approval_packets'),
      annotations: readOnly,
      handler: async (args) => {
        const { rows, count, truncated } = await newestCurrent(deps().reads, 'Approval Packet', { limit: Number(args['limit'] ?? 50), statuses: OPEN_STATES });
        return { structuredContent: { approval_packets: rows.map(redactDocument), count, truncated } };
      },
    },
    {
      name: 'dead_letters',
      title: 'Dead letters',
      description: 'Dead Letters: outbound work that exhausted its retries, newest first',
      inputSchema: { type: 'object', properties: { limit: LIMIT }, additionalProperties: false },
      outputSchema: DOC_LIST('dead_letters'),
      annotations: readOnly,
      handler: async (args) => {
        const { rows, count, truncated } = await newestCurrent(deps().reads, 'Dead Letter', { limit: Number(args['limit'] ?? 50) });
        return { structuredContent: { dead_letters: rows.map(redactDocument), count, truncated } };
      },
    },
    {
      name: 'support_context',
      title: 'Support context',
      description: 'Hydrate business_refs ({doctype, name} rows) from the ERP documents, with missing-object and partial-enrichment markers',
      inputSchema: {
        type: 'object',
        required: ['business_refs'],
        properties: { business_refs: { type: 'array', maxItems: MAX_BUSINESS_REFS, items: { type: 'object', required: ['doctype', 'name'], properties: { doctype: { type: 'string', minLength: 1, maxLength: 140 }, name: { type: 'string', minLength: 1, maxLength: 140 } }, additionalProperties: false } } },
        additionalProperties: false,
      },
      outputSchema: { type: 'object', required: ['hydrated', 'missing', 'partial'], properties: { hydrated: { type: 'array' }, missing: { type: 'array' }, partial: { type: 'array' } }, additionalProperties: false },
      annotations: readOnly,
      handler: (args) => ({ structuredContent: { ...hydrateContext(deps().store.sqlite, args['business_refs'] as BusinessRef[]) } }),
    },
    requestApprovalTool(deps),
  ];
}
