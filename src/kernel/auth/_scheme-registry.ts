// Which definition serves which scheme name. An unknown name is a programmer mistake, so it
// throws instead of failing a request.

import type { SchemeDefinition } from './_scheme.ts';
import { GITHUB_SCHEME } from './scheme-github.ts';
import { HOUSE_SCHEME } from './scheme-house.ts';
import { STANDARD_WEBHOOKS_SCHEME } from './scheme-standard-webhooks.ts';
import { STRIPE_SCHEME } from './scheme-stripe.ts';
import { SIGNATURE_SCHEMES, type SignatureScheme } from './signature-types.ts';

const SCHEMES: Readonly<Record<SignatureScheme, SchemeDefinition>> = {
  stripe: STRIPE_SCHEME,
  'standard-webhooks': STANDARD_WEBHOOKS_SCHEME,
  github: GITHUB_SCHEME,
  house: HOUSE_SCHEME,
};

export function schemeDefinition(scheme: SignatureScheme): SchemeDefinition {
  if (typeof scheme !== 'string' || !Object.hasOwn(SCHEMES, scheme)) {
    throw new TypeError(`Unknown signature scheme "${String(scheme)}": expected one of ${SIGNATURE_SCHEMES.join(', ')}`);
  }
  return SCHEMES[scheme];
}
