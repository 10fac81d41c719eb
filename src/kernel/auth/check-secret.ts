// Start-up validation of a configured secret, so a service refuses to start with a secret that
// could never verify anything, instead of answering every request "no matching signature".

import { schemeDefinition } from './_scheme-registry.ts';
import { hasAnyValue, splitSecretValues } from './_secret-values.ts';
import type { SecretCheck, SignatureScheme } from './signature-types.ts';

/**
 * Whether every comma-separated value of `secret` is usable by `scheme`. The detail names the
 * value by position, never by content.
 *
 * @example
 * const check = checkSecret('standard-webhooks', process.env.ERP_PAYMENT_B_SECRET ?? '');
 * if (!check.ok) throw new AirlockError('config_invalid', `Invalid ERP_PAYMENT_B_SECRET: ${check.detail}`);
 */
export function checkSecret(scheme: SignatureScheme, secret: string | readonly string[]): SecretCheck {
  const definition = schemeDefinition(scheme);
  const values = splitSecretValues(secret);
  if (!hasAnyValue(values)) return { ok: false, reason: 'no_secret_configured', detail: 'no secret value is configured' };
  const bad = values.findIndex((value) => definition.decodeSecret(value) === undefined);
  if (bad === -1) return { ok: true };
  const problem = values[bad] === '' ? 'is empty' : definition.secretProblem;
  return { ok: false, reason: 'invalid_secret', detail: `secret value ${bad + 1} of ${values.length} ${problem}` };
}
