// Frappe's whitelisted read methods that frappe-js-sdk's db() calls besides /api/resource:
// frappe.client.get_list, get_count, get_value and get_single_value, and the framework's
// /api/method/ping. Read-only, with the same auth, the same redaction and the same list query as
// GET /api/resource/<DocType> (list-query.ts): the arguments are handed to that parser, so a
// filter means one thing on both paths. Arguments come from the query, a JSON body or a form body
// (requestArgs), as Frappe's form_dict gathers them.

import { frappeHandler, ARGS_BODY } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { optionalFlag, refuseUnknown, requestArgs, requireString } from '../frappe/args.ts';
import type { Args } from '../frappe/args.ts';
import { FRAPPE_AUTH } from '../frappe/authenticator.ts';
import { frappeMessage, frappeThrow } from '../frappe/envelope.ts';
import { parseListQuery } from './list-query.ts';
import { checkReadable, listResource } from './routes.ts';

export const PING_PATH = '/api/method/ping';

/** The list arguments frappe.client.get_list shares with /api/resource (Frappe's signature names). */
const LIST_ARGS = ['fields', 'filters', 'or_filters', 'order_by', 'limit_start', 'limit_page_length', 'as_dict'] as const;

/** One argument as the list parser reads it from a query string (objects and lists as JSON). */
function queryText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function listQuery(args: Args, names: readonly string[]): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of names) {
    const text = queryText(args[name]);
    if (text !== undefined) query.set(name, text);
  }
  return query;
}

/** Frappe's `parent` names a parent DocType for child-table reads; this service keeps no child tables. */
function refuseParent(args: Args): void {
  if (args['parent'] !== undefined && args['parent'] !== null && args['parent'] !== '') frappeThrow('Argument "parent" names a child-table read: this service keeps no child tables, leave it out');
}

/** Frappe's `debug` prints the SQL it ran; there is no SQL to show here, so it is accepted and changes nothing. */
function acceptDebug(args: Args): void {
  optionalFlag(args, 'debug');
}

export function clientMethodRoutes(deps: DepsRef): ErpRoute[] {
  const base = { family: 'framework', stability: 'stable', auth: FRAPPE_AUTH, etag: false } as const;
  const both = (path: string, summary: string, handler: ErpRoute['handler']): ErpRoute[] => [
    { ...base, method: 'GET', path, summary, handler },
    { ...base, method: 'POST', path, summary, request: ARGS_BODY, handler },
  ];
  const getList = frappeHandler(async (context) => {
    const args = requestArgs(context);
    refuseUnknown(args, ['doctype', ...LIST_ARGS, 'group_by', 'parent', 'debug']);
    const doctype = requireString(args, 'doctype');
    if (args['group_by'] !== undefined && args['group_by'] !== null && args['group_by'] !== '') frappeThrow('Argument "group_by" is not served: leave it out and group the rows yourself');
    refuseParent(args);
    acceptDebug(args);
    const query = parseListQuery(listQuery(args, LIST_ARGS), doctype);
    return frappeMessage(await listResource(deps(), doctype, query));
  });
  const getCount = frappeHandler(async (context) => {
    const args = requestArgs(context);
    refuseUnknown(args, ['doctype', 'filters', 'debug', 'cache']);
    const doctype = requireString(args, 'doctype');
    acceptDebug(args);
    optionalFlag(args, 'cache');
    // Every matching document (limit 0), one field: the count is the list's length.
    const query = parseListQuery(new URLSearchParams([...listQuery(args, ['filters']), ['limit_page_length', '0']]), doctype);
    return frappeMessage((await listResource(deps(), doctype, query)).length);
  });
  const getValue = frappeHandler(async (context) => {
    const args = requestArgs(context);
    refuseUnknown(args, ['doctype', 'fieldname', 'filters', 'as_dict', 'debug', 'parent']);
    const doctype = requireString(args, 'doctype');
    refuseParent(args);
    acceptDebug(args);
    const asDict = args['as_dict'] === undefined || args['as_dict'] === '' ? true : optionalFlag(args, 'as_dict');
    const fieldname = args['fieldname'];
    // Frappe: a JSON list of fields, or one field name; an empty list reads `name`.
    const listed = Array.isArray(fieldname) ? fieldname : fieldname === undefined || fieldname === null || fieldname === '' ? [] : [fieldname];
    const fields = listed.length === 0 ? ['name'] : listed;
    // Frappe: a filters value that is plain text is a document name.
    const filters = typeof args['filters'] === 'string' && args['filters'] !== '' ? { name: args['filters'] } : args['filters'];
    const query = parseListQuery(listQuery({ fields, filters, limit_page_length: 1 }, ['fields', 'filters', 'limit_page_length']), doctype);
    const row = (await listResource(deps(), doctype, query))[0];
    if (asDict) return frappeMessage(row ?? {});
    // As Frappe answers a method that returned None: no "message" at all.
    if (row === undefined) return { status: 200, body: {} };
    const values = Object.values(row);
    return frappeMessage(fields.length > 1 || fields[0] === '*' ? values : values[0]);
  });
  const getSingleValue = frappeHandler((context) => {
    const args = requestArgs(context);
    refuseUnknown(args, ['doctype', 'field']);
    const doctype = requireString(args, 'doctype');
    requireString(args, 'field');
    checkReadable(doctype);
    frappeThrow(`DocType ${doctype} is not a Single DocType: this service keeps no Single DocTypes; read it with frappe.client.get_value or /api/resource/${doctype}`);
  });
  const ping = frappeHandler(() => frappeMessage('pong'));
  return [
    ...both('/api/method/frappe.client.get_list', 'frappe.client.get_list: documents of a DocType (fields, filters, or_filters, order_by, limit_start, limit_page_length), as /api/resource lists them', getList),
    ...both('/api/method/frappe.client.get_count', 'frappe.client.get_count: how many documents of a DocType match filters', getCount),
    ...both('/api/method/frappe.client.get_value', 'frappe.client.get_value: fields (fieldname) of the first document matching filters (a name, a list or an object)', getValue),
    ...both('/api/method/frappe.client.get_single_value', 'frappe.client.get_single_value: refused with a ValidationError, as no DocType here is a Single', getSingleValue),
    { family: 'framework', stability: 'stable', method: 'GET', path: PING_PATH, auth: 'none', etag: false, summary: 'Frappe\'s ping: {"message": "pong"}, no auth', handler: ping },
    { family: 'framework', stability: 'stable', method: 'POST', path: PING_PATH, auth: 'none', request: ARGS_BODY, summary: 'Frappe\'s ping: {"message": "pong"}, no auth', handler: ping },
  ];
}
