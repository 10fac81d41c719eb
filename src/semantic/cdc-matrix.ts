// The consumer-driven contract of the runtime-status surface (ts01_consumer_matrix), read from
// contracts/api/semantic_cdc_v1.json, which is compiled into every bundle. Three current
// consumers are admitted; four entries are downstream-gated and admit nothing.

import CONTRACT from '../../contracts/api/semantic_cdc_v1.json' with { type: 'json' };
import { isObject } from './_json.ts';

export type ConsumerStatus = 'admitted' | 'downstream_gated';

export interface CdcSurface {
  method: string;
  path: string;
}

export interface CdcConsumer {
  consumer: string;
  status: ConsumerStatus;
  description: string;
  surfaces: readonly CdcSurface[];
  claims_green: boolean;
}

export const CDC_CONTRACT: unknown = CONTRACT;
export const CONSUMER_MATRIX: readonly CdcConsumer[] = CONTRACT.ts01_consumer_matrix.consumers as CdcConsumer[];

export const ADMITTED_CONSUMER_COUNT = 3;
export const GATED_CONSUMER_COUNT = 4;

export type Admission =
  | { admitted: true; consumer: string }
  | { admitted: false; reason: 'unknown_consumer' | 'downstream_gated' | 'surface_not_admitted'; consumer: string };

/** Whether `consumer` may call `method path` under the matrix. */
export function consumerAdmission(consumer: string, surface: CdcSurface, matrix: readonly CdcConsumer[] = CONSUMER_MATRIX): Admission {
  const entry = matrix.find((c) => c.consumer === consumer);
  if (entry === undefined) return { admitted: false, reason: 'unknown_consumer', consumer };
  if (entry.status !== 'admitted') return { admitted: false, reason: 'downstream_gated', consumer };
  const listed = entry.surfaces.some((s) => s.method === surface.method && s.path === surface.path);
  return listed ? { admitted: true, consumer } : { admitted: false, reason: 'surface_not_admitted', consumer };
}

/**
 * Checks a CDC contract document: exactly three admitted consumers, four downstream-gated
 * entries that admit no endpoint and claim no green result, unique ids, and (when `routes` is
 * given) every admitted surface served by a route.
 */
export function checkCdcMatrix(doc: unknown, routes?: readonly CdcSurface[]): { ok: boolean; reasons: string[] } {
  const reasons: string[] = [];
  const matrix = isObject(doc) ? doc['ts01_consumer_matrix'] : undefined;
  const consumers = isObject(matrix) && Array.isArray(matrix['consumers']) ? (matrix['consumers'] as unknown[]) : undefined;
  if (consumers === undefined) return { ok: false, reasons: ['ts01_consumer_matrix.consumers is missing or not a list'] };
  const ids: string[] = [];
  let admitted = 0;
  let gated = 0;
  consumers.forEach((entry, index) => {
    const where = `consumers[${index}]`;
    if (!isObject(entry) || typeof entry['consumer'] !== 'string' || entry['consumer'] === '') {
      reasons.push(`${where} has no consumer id`);
      return;
    }
    const id = entry['consumer'];
    ids.push(id);
    const surfaces = Array.isArray(entry['surfaces']) ? (entry['surfaces'] as unknown[]) : undefined;
    if (surfaces === undefined) reasons.push(`consumer "${id}" has no surfaces list`);
    if (entry['status'] === 'admitted') {
      admitted++;
      if (entry['claims_green'] !== true) reasons.push(`admitted consumer "${id}" must claim its green result`);
      if (surfaces !== undefined && surfaces.length === 0) reasons.push(`admitted consumer "${id}" lists no surface`);
      for (const surface of surfaces ?? []) {
        const served = isObject(surface) && routes?.some((r) => r.method === surface['method'] && r.path === surface['path']);
        if (!isObject(surface) || typeof surface['method'] !== 'string' || typeof surface['path'] !== 'string') {
          reasons.push(`consumer "${id}" lists a surface without method and path`);
        } else if (routes !== undefined && !served) {
          reasons.push(`consumer "${id}" lists ${surface['method']} ${surface['path']}, which no route serves`);
        }
      }
    } else if (entry['status'] === 'downstream_gated') {
      gated++;
      if (surfaces !== undefined && surfaces.length > 0) reasons.push(`downstream-gated consumer "${id}" must admit no endpoint, but lists ${surfaces.length}`);
      if (entry['claims_green'] !== false) reasons.push(`downstream-gated consumer "${id}" must not claim a green result`);
    } else {
      reasons.push(`consumer "${id}" has status ${JSON.stringify(entry['status'])}: use "admitted" or "downstream_gated"`);
    }
  });
  for (const id of new Set(ids.filter((id, index) => ids.indexOf(id) !== index))) reasons.push(`consumer "${id}" is listed twice`);
  if (admitted !== ADMITTED_CONSUMER_COUNT) reasons.push(`${admitted} consumers are admitted, expected exactly ${ADMITTED_CONSUMER_COUNT}`);
  if (gated !== GATED_CONSUMER_COUNT) reasons.push(`${gated} consumers are downstream-gated, expected exactly ${GATED_CONSUMER_COUNT}`);
  return { ok: reasons.length === 0, reasons };
}
