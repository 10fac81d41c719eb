// Products: the catalog is contract truth from governance-manifest.json; POST
// /api/v1/products/register records a product the operator registers for a service the manifest
// declares, only while the drift list is empty. A registration is an observation: where it
// contradicts the manifest, the contradiction is recorded and the catalog keeps the manifest's
// values.

import { json, problem, readRows, writeReply } from '../../kernel/index.ts';
import type { JsonValue, Reply, RequestContext } from '../../kernel/index.ts';
import { productRegistrations } from '../database.ts';
import { computeDrift } from '../contracts/drift.ts';
import { withManifest } from '../contracts/matrix.ts';
import type { GovernanceRuntime, ManifestService } from '../runtime.ts';

interface Registration {
  product: string;
  service: string;
  title: string;
  owner: string;
  version: string;
  executables?: string[];
}

interface RegistrationPayload extends Registration {
  contradictions: string[];
  recorded_by_lane: string;
}

function registrations(runtime: GovernanceRuntime): { product: string; payload: RegistrationPayload; recorded_at: string; seq: number }[] {
  return readRows(runtime.store.sqlite, productRegistrations, { where: { verdict: 'registered' } }).map((row) => ({
    product: row.product,
    payload: row.payload as unknown as RegistrationPayload,
    recorded_at: row.recorded_at,
    seq: row.seq,
  }));
}

/** Product names governance knows: the manifest's services and the registered products. */
export function knownProducts(runtime: GovernanceRuntime): string[] {
  const declared = runtime.manifest.ok ? runtime.manifest.document.services.map((s) => s.service) : [];
  return [...new Set([...declared, ...registrations(runtime).map((r) => r.product)])].sort();
}

/** Where a registration disagrees with the manifest entry of its service. */
function contradictionsOf(registration: Registration, service: ManifestService): string[] {
  const out: string[] = [];
  const owner = service.identity?.owner;
  if (owner !== undefined && owner !== registration.owner) out.push(`owner "${registration.owner}" contradicts the manifest's "${owner}"`);
  const declared = [...new Set(service.executables ?? [])].sort();
  const claimed = [...new Set(registration.executables ?? declared)].sort();
  if (claimed.join(',') !== declared.join(',')) out.push(`executables ${claimed.join(', ') || 'none'} contradict the manifest's ${declared.join(', ') || 'none'}`);
  return out;
}

export async function registerProductReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const body = context.body as Registration;
  if (!runtime.manifest.ok) return problem(503, 'Contract truth unavailable', { type: 'contract-truth-unavailable', detail: `Cannot register: ${runtime.manifest.detail}`, extensions: { projection_state: 'fail_closed', reason: `manifest_${runtime.manifest.reason}` } });
  const service = runtime.manifest.document.services.find((s) => s.service === body.service);
  const refuse = async (reason: string, detail: string) => {
    return writeReply(context, {
      store: runtime.store,
      work: (_sqlite, tx) => tx.append(productRegistrations, { product: body.product, verdict: 'refused', payload: { ...body, reason, recorded_by_lane: String(context.principal) } as unknown as JsonValue }),
      reply: (row) => problem(409, 'Registration refused', { type: `product-registration-${reason.replaceAll('_', '-')}`, detail, extensions: { reason, registered: false, evidence: { table: productRegistrations.name, seq: row.seq, sha256: row.sha256 } } }),
    });
  };
  if (!service) return refuse('service_undeclared', `Service "${body.service}" has no entry in governance-manifest.json: declare it there first`);
  const drift = computeDrift(runtime);
  if (drift.length > 0) return refuse('drift_not_empty', `The drift list has ${drift.length} ${drift.length === 1 ? 'entry' : 'entries'}: registration waits for an empty /api/v1/contracts/drift`);
  if (registrations(runtime).some((r) => r.product === body.product)) return refuse('already_registered', `Product "${body.product}" is already registered`);
  const contradictions = contradictionsOf(body, service);
  const payload: RegistrationPayload = { ...body, contradictions, recorded_by_lane: String(context.principal) };
  return writeReply(context, {
    store: runtime.store,
    work: (_sqlite, tx) => tx.append(productRegistrations, { product: body.product, verdict: 'registered', payload: payload as unknown as JsonValue }),
    reply: (row) => json({
    registered: true,
    product: body.product,
    service: body.service,
    contradictions,
    overrides_contract: false,
    contract_readback: { service: service.service, owner: service.identity?.owner ?? null, executables: [...new Set(service.executables ?? [])] },
    evidence: { table: productRegistrations.name, seq: row.seq, sha256: row.sha256 },
  }, { status: 201 }),
  });
}

/** GET /api/v1/products/catalog: the manifest's services, then the registered products beside them. */
export function productCatalogReply(runtime: GovernanceRuntime): Reply {
  return withManifest(runtime, (manifest) => {
    const registered = registrations(runtime);
    return {
      member: 'catalog',
      projection_state: 'published',
      source: 'governance-manifest.json',
      products: manifest.services.map((s) => ({ product: s.service, title: s.identity?.title ?? s.service, owner: s.identity?.owner ?? 'unknown', executables: [...new Set(s.executables ?? [])], registration: 'declared in the manifest' })),
      registered: registered.map((r) => ({ product: r.product, service: r.payload.service, title: r.payload.title, version: r.payload.version, registered_at: r.recorded_at, contradictions: r.payload.contradictions, overrides_contract: false })),
      registered_through_api: registered.length,
    };
  });
}
