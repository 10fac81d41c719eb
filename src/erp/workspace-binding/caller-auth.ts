// Who may call workspace_binding.*: an ERP session or token caller (Frappe auth), or a guest /
// service caller that names an admitted id in X-Workspace-Caller and signs the raw body with the
// house scheme and WORKSPACE_SHARED_SECRET. The signature is checked before the body is parsed.
// Neither: PermissionError 403. A caller not admitted or a signature that does not verify: one
// fixed AuthenticationError 401.

import { verifySignature } from '../../kernel/index.ts';
import type { RequestContext } from '../../kernel/index.ts';
import type { ErpDeps } from '../erp-route.ts';
import { frappeAuthenticator } from '../frappe/authenticator.ts';
import type { Principal } from '../frappe/authenticator.ts';
import { FRAPPE_CHALLENGE, FrappeThrow, signatureChallenge } from '../frappe/envelope.ts';

export interface WorkspaceCaller {
  kind: 'token' | 'session' | 'workspace-caller';
  caller: string;
}

/** How the capability inventory names this lane's auth: Frappe token or session, or a signed workspace caller. */
export const WORKSPACE_AUTH_LABEL = 'frappe or signature:house with X-Workspace-Caller';

const REFUSED = 'The workspace caller could not be admitted: name an admitted X-Workspace-Caller and sign the body (X-Signature, X-Signature-Timestamp)';

export async function admitWorkspaceCaller(deps: ErpDeps, context: RequestContext): Promise<WorkspaceCaller> {
  const callerHeader = context.headers['x-workspace-caller'];
  if (callerHeader === undefined) {
    const outcome = await frappeAuthenticator(deps.config.apiKeys, deps.sessions)(context);
    if (!outcome.ok) {
      const body = outcome.reply.body as { exc_type: 'AuthenticationError' | 'PermissionError' };
      throw new FrappeThrow(body.exc_type, body.exc_type === 'PermissionError' ? 'Not permitted: log in, send token auth, or call as an admitted X-Workspace-Caller with a signed body' : 'Invalid credentials: send a valid token or session');
    }
    const principal = outcome.principal as Principal;
    return { kind: principal.kind, caller: principal.user };
  }
  const caller = Array.isArray(callerHeader) ? '' : callerHeader.trim();
  const secret = deps.config.secrets.WORKSPACE_SHARED_SECRET;
  const result = verifySignature('house', { rawBody: context.rawBody ?? Buffer.alloc(0), headers: context.headers, secrets: secret === undefined ? [] : [secret], now: Math.floor(deps.now() / 1000) });
  const admitted = deps.config.workspaceCallers.includes(caller);
  if (!result.ok || !admitted) {
    deps.log.warn('workspace caller refused', { reason: result.ok ? 'caller_not_admitted' : result.reason, requestId: context.requestId });
    throw new FrappeThrow('AuthenticationError', REFUSED, { 'www-authenticate': `${FRAPPE_CHALLENGE}, ${signatureChallenge('house')}` });
  }
  return { kind: 'workspace-caller', caller };
}
