// The files generated from the services' manifests and route tables, with their text, so that
// `npm run contracts` writes them and a test fails when the committed copies drift.

import { globSync } from 'node:fs';
import { join } from 'node:path';
import { buildGovernanceManifest, buildOpenApi, buildStackContract } from '../src/kernel/index.ts';
import type { ServiceManifest } from '../src/kernel/index.ts';
import { WORKFLOW_SURFACE_PATH, workflowSurface } from '../src/erp/workflows/surface-contract.ts';

export const ROOT = join(import.meta.dirname, '..');

/** Every src/<service>/manifest.ts, loaded. */
export async function loadManifests(root = ROOT): Promise<ServiceManifest[]> {
  const manifests: ServiceManifest[] = [];
  for (const path of globSync('src/*/manifest.ts', { cwd: root }).sort()) {
    if (path === join('src', 'kernel', 'manifest.ts')) continue; // the kernel's manifest types, not a service
    const file = join(root, path);
    const module = (await import(file)) as { manifest?: ServiceManifest };
    if (!module.manifest) throw new TypeError(`${file} does not export "manifest"`);
    manifests.push(module.manifest);
  }
  return manifests;
}

/** Path (relative to the root) -> the exact text it must hold. */
export async function generatedFiles(root = ROOT): Promise<Map<string, string>> {
  const manifests = await loadManifests(root);
  const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const files = new Map<string, string>();
  files.set('governance-manifest.json', text(buildGovernanceManifest(manifests)));
  files.set('configs/stack-contract.json', text(buildStackContract(manifests)));
  for (const manifest of manifests) files.set(manifest.openapiPath, text(buildOpenApi(manifest)));
  // Seed 002: the ERP service's workflow-surface contract, from its route table.
  const erp = manifests.find((m) => m.service === 'erp');
  if (erp) files.set(WORKFLOW_SURFACE_PATH, text(workflowSurface(erp.routes as Parameters<typeof workflowSurface>[0])));
  return files;
}
