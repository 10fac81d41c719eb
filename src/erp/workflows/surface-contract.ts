// The workflow-surface contract the seed names for the workflows.* paths: each path's method,
// auth, stability, media types and input and output JSON Schemas, generated from the route table
// (contracts/erp/workflow_surface_v1.json; `npm run contracts` writes it, a test fails on drift).
// Every workflow request's arguments are validated against the same input schema.

import { compileSchema } from '../../kernel/index.ts';
import type { JsonSchema, RequestContext, SchemaValidator } from '../../kernel/index.ts';
import type { ErpRoute } from '../erp-route.ts';
import { requestArgs } from '../frappe/args.ts';
import type { Args } from '../frappe/args.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { ARGS_BODY } from '../erp-route.ts';

export const WORKFLOW_SURFACE_PATH = 'contracts/erp/workflow_surface_v1.json';

/** A workflow's arguments and answer (`message`), as JSON Schemas. */
export interface WorkflowContract {
  input: JsonSchema;
  output: JsonSchema;
}

/** Frappe's client libraries add `cmd` to form posts; it names the method, never an argument. */
const CMD = { cmd: { type: 'string' } };

/** An input schema: the named properties, the required ones, nothing else. */
export function argsSchema(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return { type: 'object', properties: { ...properties, ...CMD }, required: [...required], additionalProperties: false };
}

export const NAME_ARG: JsonSchema = { type: 'string', minLength: 1, maxLength: 140 };
export const FLAG_ARG: JsonSchema = { enum: [true, false, 0, 1, '0', '1', 'true', 'false', ''] };
export const OBJECT_ARG: JsonSchema = { type: ['object', 'null'] };

const validators = new WeakMap<object, SchemaValidator>();

/** The request's arguments, checked against the route's input schema (ValidationError otherwise). */
export function contractArgs(context: RequestContext, contract: WorkflowContract): Args {
  const args = requestArgs(context);
  let validator = validators.get(contract);
  if (!validator) {
    validator = compileSchema(contract.input);
    validators.set(contract, validator);
  }
  const { valid, errors } = validator.validate(args);
  if (!valid) frappeThrow(`Arguments do not match the workflow-surface contract: ${errors.slice(0, 3).map((e) => e.message).join('; ')}`);
  return args;
}

/** The contract document for every workflows.* route of the table. */
export function workflowSurface(routes: readonly (ErpRoute & { contract?: WorkflowContract })[]): Record<string, unknown> {
  const workflows = routes
    .filter((route) => route.family === 'workflows')
    .map((route) => {
      if (!route.contract) throw new TypeError(`Workflow route ${route.path} declares no contract`);
      return {
        method: route.method,
        path: route.path,
        auth: route.auth,
        stability: route.stability,
        summary: route.summary,
        request_media_types: [...ARGS_BODY.contentTypes],
        input_schema: route.contract.input,
        output_schema: { type: 'object', required: ['message'], properties: { message: route.contract.output } },
      };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
  return {
    contract: 'erp_workflow_surface',
    version: 1,
    seed: '002_fcf4d9d2760c44e4.txt',
    description: 'The workflows.* paths of the ERP service: arguments (JSON, form or query, as Frappe gathers them) and the answer envelope. Generated from the route table.',
    workflows,
  };
}
