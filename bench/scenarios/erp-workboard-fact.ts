// erp-workboard-fact: identity_projections.workboard_access_fact on the ERP service (Frappe token
// auth in constant time, JSON arguments, User and Employee lookups over 1000 identities, the
// fail-closed decision, Frappe answer) beside the bare node:http baseline answering the same POST.
// Target: at least 0.5 of the baseline's requests/s, 0 errors.
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

let counter = 0;

function request() {
  const n = counter++ % 1000;
  return { body: Buffer.from(JSON.stringify({ technical_subject: `u${n}@example.test` })), headers: { 'content-type': 'application/json', authorization: 'token benchkey:benchsecret' } };
}

export const scenario: Scenario = {
  name: 'erp-workboard-fact',
  description: 'Token-authenticated workboard access fact (contract v3) over 1000 loaded identities on the ERP service vs bare node:http',
  async run(options) {
    const record = await compareHttp({
      scenario: 'erp-workboard-fact',
      server: fileURLToPath(new URL('../servers/erp-identity.ts', import.meta.url)),
      env: { ERP_API_KEYS: 'benchkey:benchsecret' },
      request: { path: '/api/method/erp_core.api.identity_projections.workboard_access_fact', method: 'POST', body: request },
      baselineRequest: { path: '/', method: 'POST', body: request },
      expectStatus: 200,
    }, options);
    return [{ ...record, target_ratio: 0.5 }];
  },
};
