// The front door of src/kernel/auth: signed-request verification and signing, secret checks,
// operator and bearer tokens. Everything outside this folder imports from here.

export { checkSecret } from './check-secret.ts';
export { parseBearer } from './parse-bearer.ts';
export { signRequest } from './sign-request.ts';
export {
  SIGNATURE_SCHEMES,
  SIGNATURE_TOLERANCE_SECONDS,
  type IncomingHeaders,
  type SecretCheck,
  type SignRequestOptions,
  type SignatureFailure,
  type SignatureFailureReason,
  type SignatureResult,
  type SignatureScheme,
  type SignatureSuccess,
  type SignedHeaders,
  type VerifySignatureOptions,
} from './signature-types.ts';
export { verifySignature } from './verify-signature.ts';
export { verifyToken, whichToken } from './verify-token.ts';
