// MCP tools as data: a name, a description, JSON Schemas (draft 2020-12) for the arguments and
// the structured result, and a handler. compileTools() checks the table once; callTool() runs
// one call and always answers with a CallToolResult: bad arguments, a refused call and a
// failing handler are tool results with isError (server/tools.mdx "Error Handling"), never
// transport errors.

import type { Logger } from '../log.ts';
import { compileSchema } from '../schema/index.ts';
import type { SchemaValidator } from '../schema/index.ts';
import { isJsonObject, type JsonObject } from './jsonrpc.ts';

/** What a tool handler knows about the call besides its arguments. */
export interface McpToolCall {
  /** What the endpoint's authenticate hook admitted. */
  principal: unknown;
  requestId: string;
  protocolVersion: string;
  /** The session's id under a session-era revision; undefined when stateless. */
  sessionId: string | undefined;
  log: Logger;
}

/**
 * A handler's answer: the structured result (conforming to `outputSchema`), or an error message
 * for the caller (a refused or failed call the model can act on; never a secret or a stack).
 */
export type McpToolOutcome = { structuredContent: JsonObject } | { error: string };

export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface McpTool {
  /** 1 to 128 of A-Z a-z 0-9 _ - . (server/tools.mdx "Tool Names"). */
  name: string;
  title?: string;
  description: string;
  /** A draft 2020-12 schema whose root is `"type": "object"` (the 2025-11-25 Tool schema requires it). */
  inputSchema: JsonObject;
  /** Optional; root `"type": "object"`, because 2025-11-25 structuredContent is an object. */
  outputSchema?: JsonObject;
  annotations?: McpToolAnnotations;
  handler: (args: JsonObject, call: McpToolCall) => McpToolOutcome | Promise<McpToolOutcome>;
}

export interface CompiledTool {
  tool: McpTool;
  /** The tool as `tools/list` publishes it. */
  descriptor: JsonObject;
  input: SchemaValidator;
  output: SchemaValidator | undefined;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Checks and compiles a tool table; throws TypeError (or the schema compiler's error) for a bad one. */
export function compileTools(tools: readonly McpTool[]): CompiledTool[] {
  const seen = new Set<string>();
  return tools.map((tool) => {
    if (!TOOL_NAME.test(tool.name)) throw new TypeError(`Tool name "${tool.name}" must be 1 to 128 of A-Z a-z 0-9 _ - .`);
    if (seen.has(tool.name)) throw new TypeError(`Tool "${tool.name}" is declared twice`);
    seen.add(tool.name);
    checkObjectSchema(tool.name, 'inputSchema', tool.inputSchema);
    if (tool.outputSchema !== undefined) checkObjectSchema(tool.name, 'outputSchema', tool.outputSchema);
    // x-mcp-header (2026-07-28) obliges the server to cross-check Mcp-Param-* headers; we do not implement it.
    if (JSON.stringify(tool.inputSchema).includes('"x-mcp-header"')) {
      throw new TypeError(`Tool "${tool.name}": x-mcp-header annotations are not supported by this server`);
    }
    const descriptor: JsonObject = {
      name: tool.name,
      ...(tool.title !== undefined && { title: tool.title }),
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }),
      ...(tool.annotations !== undefined && { annotations: tool.annotations }),
    };
    return {
      tool,
      descriptor,
      input: compileSchema(tool.inputSchema),
      output: tool.outputSchema === undefined ? undefined : compileSchema(tool.outputSchema),
    };
  });
}

function checkObjectSchema(name: string, which: string, schema: unknown): void {
  if (!isJsonObject(schema) || schema['type'] !== 'object') {
    throw new TypeError(`Tool "${name}": ${which} must be a JSON Schema object with "type": "object"`);
  }
}

/** Runs one call: arguments checked against inputSchema, handler run, result checked against outputSchema. */
export async function callTool(compiled: CompiledTool, args: JsonObject, call: McpToolCall): Promise<JsonObject> {
  const { tool } = compiled;
  const checked = compiled.input.validate(args);
  if (!checked.valid) {
    const problems = checked.errors.slice(0, 10).map((e) => e.message);
    return failure(`Invalid arguments for tool "${tool.name}": ${problems.join('; ')}`);
  }
  let outcome: McpToolOutcome;
  try {
    outcome = await tool.handler(args, call);
  } catch (error) {
    // A thrown error is a bug or an outage: its message may hold internals, so the caller gets a pointer.
    call.log.error('mcp tool failed', { tool: tool.name, requestId: call.requestId, error });
    return failure(`Tool "${tool.name}" failed: the operator can find this call by request id ${call.requestId}`);
  }
  if ('error' in outcome) return failure(outcome.error);
  const structured = outcome.structuredContent;
  const result = compiled.output?.validate(structured);
  if (!isJsonObject(structured) || (result && !result.valid)) {
    call.log.error('mcp tool result breaks its outputSchema', { tool: tool.name, requestId: call.requestId, errors: result?.errors.slice(0, 5).map((e) => e.message) });
    return failure(`Tool "${tool.name}" produced a result that does not match its outputSchema: the operator can find this call by request id ${call.requestId}`);
  }
  // Structured content plus its JSON as text, for clients that read only `content` (tools.mdx).
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: false };
}

function failure(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}
