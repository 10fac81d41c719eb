// Checks of workflow automation exports (n8n's workflow JSON: `nodes` with unique `name`s,
// `connections` keyed by source node name whose targets name nodes) that call our services:
// node names unique, connections resolve, no credentials inline, webhook paths unique, and our
// callback URLs signed with the house scheme (X-Signature and X-Signature-Timestamp headers).
// Exports come as one workflow or as the array `n8n export:workflow --all` writes; headers as
// key-value lists or as JSON text (HTTP Request v4's jsonHeaders).

export type CheckName = 'node_names_unique' | 'connections_resolve' | 'no_inline_credentials' | 'webhook_paths_unique' | 'callbacks_signed';
export const CHECKS: readonly CheckName[] = ['node_names_unique', 'connections_resolve', 'no_inline_credentials', 'webhook_paths_unique', 'callbacks_signed'];

export interface Finding {
  check: CheckName;
  file: string;
  node?: string;
  message: string;
}

export interface WorkflowExport {
  file: string;
  name: string;
  nodes: { name: string; type: string; parameters: Record<string, unknown> }[];
  connections: Record<string, unknown>;
}

/** Our signed callback surfaces: the ERP callbacks.* methods (DESIGN.md "Signed requests"). */
export const DEFAULT_CALLBACK_MARKERS = ['/api/method/erp_core.api.callbacks.'];
const SECRET_KEY = /(pass(word|wd)?|secret|token|api[_-]?key|authorization|private[_-]?key|client[_-]?secret)$/i;
const SECRET_HEADER = /^(authorization|x-api-key|api-key|x-auth-token|cookie|proxy-authorization)$/i;

/**
 * Reads one file's workflows: one workflow object (the editor's download, `n8n export:workflow
 * --separate` or `--backup`) or the JSON array `n8n export:workflow --all` (and `--id`) writes.
 * A value that is not a workflow export is a reason, not an exception. Workflows of an array are
 * named `<file>[<index>]` in findings.
 */
export function readWorkflowExports(file: string, value: unknown): { workflows?: WorkflowExport[]; problem?: string } {
  if (!Array.isArray(value)) {
    const read = readWorkflowExport(file, value);
    return read.workflow ? { workflows: [read.workflow] } : { problem: read.problem! };
  }
  if (value.length === 0) return { problem: 'an empty array: no workflow to check' };
  const workflows: WorkflowExport[] = [];
  for (const [i, item] of value.entries()) {
    const read = readWorkflowExport(`${file}[${i}]`, item);
    if (!read.workflow) return { problem: `workflow ${i} of the array: ${read.problem}` };
    workflows.push(read.workflow);
  }
  return { workflows };
}

/** Reads one workflow object; a value that is not one is a reason, not an exception. */
export function readWorkflowExport(file: string, value: unknown): { workflow?: WorkflowExport; problem?: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'not a JSON object or an array of workflows' };
  const doc = value as Record<string, unknown>;
  if (!Array.isArray(doc['nodes'])) return { problem: 'no "nodes" array: not an n8n workflow export' };
  const nodes: WorkflowExport['nodes'] = [];
  for (const [i, raw] of (doc['nodes'] as unknown[]).entries()) {
    if (typeof raw !== 'object' || raw === null || typeof (raw as Record<string, unknown>)['name'] !== 'string' || typeof (raw as Record<string, unknown>)['type'] !== 'string') {
      return { problem: `node ${i} has no string "name" and "type"` };
    }
    const node = raw as Record<string, unknown>;
    const parameters = typeof node['parameters'] === 'object' && node['parameters'] !== null ? (node['parameters'] as Record<string, unknown>) : {};
    nodes.push({ name: node['name'] as string, type: node['type'] as string, parameters });
  }
  const connections = typeof doc['connections'] === 'object' && doc['connections'] !== null && !Array.isArray(doc['connections']) ? (doc['connections'] as Record<string, unknown>) : {};
  return { workflow: { file, name: typeof doc['name'] === 'string' ? doc['name'] : file, nodes, connections } };
}

/** Runs every check over the exports together (webhook paths must be unique across them all). */
export function checkWorkflows(workflows: readonly WorkflowExport[], options: { callbackMarkers?: readonly string[] } = {}): Finding[] {
  const findings: Finding[] = [];
  const markers = options.callbackMarkers ?? DEFAULT_CALLBACK_MARKERS;
  const webhooks = new Map<string, string>();
  for (const wf of workflows) {
    const names = new Set<string>();
    for (const node of wf.nodes) {
      if (names.has(node.name)) findings.push({ check: 'node_names_unique', file: wf.file, node: node.name, message: `Node name "${node.name}" is used more than once` });
      names.add(node.name);
    }
    for (const [source, outputs] of Object.entries(wf.connections)) {
      if (!names.has(source)) findings.push({ check: 'connections_resolve', file: wf.file, node: source, message: `Connections leave from "${source}", which is not a node` });
      for (const target of connectionTargets(outputs)) {
        if (!names.has(target)) findings.push({ check: 'connections_resolve', file: wf.file, node: source, message: `"${source}" connects to "${target}", which is not a node` });
      }
    }
    for (const node of wf.nodes) {
      for (const where of inlineSecrets(node.parameters, 'parameters')) findings.push({ check: 'no_inline_credentials', file: wf.file, node: node.name, message: `A credential is written inline at ${where}: use n8n credentials or an expression reading the environment` });
      if (node.type === 'n8n-nodes-base.webhook') {
        const path = String(node.parameters['path'] ?? '').replace(/^\/+|\/+$/g, '');
        const key = `${String(node.parameters['httpMethod'] ?? 'GET').toUpperCase()} ${path}`;
        const first = webhooks.get(key);
        if (first !== undefined) findings.push({ check: 'webhook_paths_unique', file: wf.file, node: node.name, message: `Webhook ${key} is also served by ${first}` });
        else webhooks.set(key, `"${node.name}" in ${wf.file}`);
      }
      if (node.type === 'n8n-nodes-base.httpRequest') {
        const url = String(node.parameters['url'] ?? '');
        if (markers.some((m) => url.includes(m))) {
          const headers = headerMap(node.parameters);
          const missing = ['x-signature', 'x-signature-timestamp'].filter((h) => !headers.has(h));
          if (missing.length > 0) findings.push({ check: 'callbacks_signed', file: wf.file, node: node.name, message: `Callback to our service without ${missing.join(' and ')}: sign it (X-Signature: v1=<HMAC-SHA256>, X-Signature-Timestamp)` });
          else if (literal(headers.get('x-signature')!)) findings.push({ check: 'callbacks_signed', file: wf.file, node: node.name, message: 'X-Signature is a fixed value: compute it per request from the body and timestamp' });
        }
      }
    }
  }
  return findings;
}

function connectionTargets(outputs: unknown): string[] {
  const out: string[] = [];
  if (typeof outputs !== 'object' || outputs === null) return out;
  for (const lanes of Object.values(outputs as Record<string, unknown>)) {
    if (!Array.isArray(lanes)) continue;
    for (const lane of lanes) for (const edge of Array.isArray(lane) ? lane : []) if (edge && typeof edge === 'object' && typeof edge.node === 'string') out.push(edge.node);
  }
  return out;
}

/**
 * An n8n parameter value is an expression when it starts with "=", and it computes something only
 * where it holds `{{ ... }}`: `={{ $env.TOKEN }}` is computed, `=Bearer sk-123` is the literal
 * "Bearer sk-123" (the "=" alone makes n8n evaluate a text without placeholders).
 */
function isComputed(value: string): boolean {
  return /\{\{[\s\S]*\}\}/.test(value);
}

/** Parameters that hold a JSON object as text: HTTP Request v4's `jsonHeaders` (and query, body), v1-v3's `*ParametersJson`. */
const JSON_TEXT_PARAMETER = /^(json(Headers|Query|Body)|(header|query|body)ParametersJson)$/;

function inlineSecrets(value: unknown, path: string): string[] {
  const out: string[] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...inlineSecrets(v, `${path}[${i}]`)));
  else if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    // A {name, value} pair (headers, query parameters): judge the value by the name.
    if (typeof obj['name'] === 'string' && typeof obj['value'] === 'string' && isSecretName(obj['name']) && literal(obj['value'])) out.push(`${path} ("${obj['name']}")`);
    for (const [key, v] of Object.entries(obj)) {
      if (typeof v === 'string' && JSON_TEXT_PARAMETER.test(key)) out.push(...jsonTextSecrets(v, `${path}.${key}`));
      else if (typeof v === 'string' && SECRET_KEY.test(key) && literal(v)) out.push(`${path}.${key}`);
      else if (typeof v === 'string' && /:\/\/[^/@\s]+:[^/@\s]+@/.test(v)) out.push(`${path}.${key} (a URL with a password)`);
      else if (typeof v === 'object') out.push(...inlineSecrets(v, `${path}.${key}`));
    }
  }
  return out;
}

function isSecretName(name: string): boolean {
  return SECRET_HEADER.test(name) || SECRET_KEY.test(name);
}

/** Secrets in a JSON-as-text parameter (`={"Authorization": "Bearer sk-..."}`): each field judged by its name. */
function jsonTextSecrets(text: string, path: string): string[] {
  return jsonTextFields(text)
    .filter(([name, value]) => isSecretName(name) && literal(value))
    .map(([name]) => `${path} ("${name}")`);
}

/**
 * The string fields of a JSON-as-text parameter, top level and nested. Its text may be an
 * expression ("=" first) with placeholders that break JSON (`{"n": {{ $json.n }}}`): then the
 * `"name": "value"` pairs are read one by one.
 */
function jsonTextFields(text: string): [string, string][] {
  const body = text.startsWith('=') ? text.slice(1) : text;
  try {
    const fields: [string, string][] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) (typeof v === 'string' ? fields.push([k, v]) : walk(v));
    };
    walk(JSON.parse(body));
    return fields;
  } catch {
    return [...body.matchAll(/"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]);
  }
}

function literal(value: string): boolean {
  const text = value.startsWith('=') ? value.slice(1) : value;
  return text.trim() !== '' && !isComputed(text);
}

/** The headers an HTTP Request node sends, by lower-case name: key-value lists (v4 and v1-v3) and JSON text. */
function headerMap(parameters: Record<string, unknown>): Map<string, string> {
  const map = new Map<string, string>();
  const lists = [(parameters['headerParameters'] as { parameters?: unknown } | undefined)?.parameters, (parameters['headerParametersUi'] as { parameter?: unknown } | undefined)?.parameter];
  for (const list of lists) {
    for (const entry of Array.isArray(list) ? list : []) {
      if (entry && typeof entry.name === 'string') map.set(entry.name.toLowerCase(), String(entry.value ?? ''));
    }
  }
  for (const key of ['jsonHeaders', 'headerParametersJson']) {
    const text = parameters[key];
    if (typeof text === 'string') for (const [name, value] of jsonTextFields(text)) map.set(name.toLowerCase(), value);
  }
  return map;
}
