// The kernel answering the same small JSON body as the baseline, through the whole pipeline:
// request id, routing, ETag, problem-ready error handling, the 5xx rule.
import { createService, json, runService } from '../../src/kernel/index.ts';

const BODY = { status: 'ok', service: 'baseline', items: [1, 2, 3] };

await runService(() => createService({
  name: 'bench-kernel-json',
  version: '0.0.0',
  routes: [{ method: 'GET', path: '/api/v1/small', auth: 'none', summary: 'A small JSON document', handler: () => json(BODY) }],
}));
