// The route by which a service serves its own OpenAPI export: the document `npm run contracts`
// commits, built by the same function from the same manifest, so the served and the committed
// export are one document. The manifest is loaded when the route is first asked, because the
// manifest's route table holds this route too.

import { buildOpenApi } from '../manifest.ts';
import type { ServiceManifest } from '../manifest.ts';
import { json } from './reply.ts';
import type { Route } from './route.ts';

/**
 * A GET route at `path` (open, ETag on) answering the export of the manifest `load` resolves to.
 *
 * @example
 * openApiRoute('/openapi.json', async () => (await import('./manifest.ts')).manifest)
 */
export function openApiRoute(path: string, load: () => Promise<ServiceManifest>, options: { listener?: string } = {}): Route {
  let document: Promise<Record<string, unknown>> | undefined;
  return {
    method: 'GET',
    path,
    ...(options.listener && { listener: options.listener }),
    auth: 'none',
    summary: 'OpenAPI 3.1 export of this route table (the committed contract file, byte for byte as JSON)',
    responses: [{ status: 200, description: 'The export', schema: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' } } } }],
    handler: async () => json(await (document ??= load().then(buildOpenApi))),
  };
}
