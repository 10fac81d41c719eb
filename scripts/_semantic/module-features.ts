// The checks of check_module_features_contract over the QA feature registry
// (contracts/qa_feature_registry_v1.json): its shape; every test it lists exists under that name
// in that file; and each module it declares is covered: every capability its service publishes
// in governance-manifest.json, every command and file surface the module lists, each by at least
// one feature with tests. Commands must exist; file surfaces must exist unless the build makes them.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check } from './check-report.ts';
import type { Check } from './check-report.ts';
import { listCommands } from './command-inventory.ts';
import { isObject, listOf, objectOf } from './json-file.ts';
import { manifestServices } from './install-root.ts';
import { declaredTests, declares } from './test-names.ts';
import type { DeclaredTests } from './test-names.ts';

export const REGISTRY_PATH = 'contracts/qa_feature_registry_v1.json';
export const FEATURE_KINDS = ['capability', 'command', 'file_surface', 'contract'] as const;
/** File surfaces the build makes; they need not exist in a checkout that was not built. */
const BUILD_OUTPUT = /^dist\//;

interface TestRef {
  file: string;
  name: string;
}

interface Feature {
  id: string;
  module: string;
  kind: string;
  subject: string;
  tests: TestRef[];
}

interface Module {
  module: string;
  service: string | undefined;
  commands: string[];
  file_surfaces: string[];
}

function modulesOf(registry: unknown): Module[] {
  return listOf(objectOf(registry)['modules']).map(objectOf).map((m) => ({
    module: String(m['module']),
    service: typeof m['service'] === 'string' ? m['service'] : undefined,
    commands: listOf(m['commands']).map(String),
    file_surfaces: listOf(m['file_surfaces']).map(String),
  }));
}

function featuresOf(registry: unknown): Feature[] {
  return listOf(objectOf(registry)['features']).map(objectOf).map((f) => ({
    id: String(f['id']),
    module: String(f['module']),
    kind: String(f['kind']),
    subject: String(f['subject']),
    tests: listOf(f['tests']).map(objectOf).map((t) => ({ file: String(t['file']), name: String(t['name']) })),
  }));
}

/** Shape: registry kind and version, modules, features with a known kind, a known module, a unique id and tests. */
export function shapeReasons(registry: unknown): string[] {
  const doc = objectOf(registry);
  const reasons: string[] = [];
  if (doc['registry'] !== 'qa_feature_registry' || doc['version'] !== 1) reasons.push('the registry must say "registry": "qa_feature_registry" and "version": 1');
  const modules = modulesOf(registry).map((m) => m.module);
  if (modules.length === 0) reasons.push('the registry declares no module');
  const ids = new Set<string>();
  listOf(doc['features']).forEach((raw, index) => {
    const f = objectOf(raw);
    const where = typeof f['id'] === 'string' ? `feature "${f['id']}"` : `features[${index}]`;
    if (!isObject(raw) || typeof f['id'] !== 'string' || typeof f['subject'] !== 'string') reasons.push(`${where} needs a string id and subject`);
    if (typeof f['id'] === 'string' && ids.has(f['id'])) reasons.push(`${where} is listed twice`);
    if (typeof f['id'] === 'string') ids.add(f['id']);
    if (!(FEATURE_KINDS as readonly string[]).includes(String(f['kind']))) reasons.push(`${where} has kind ${JSON.stringify(f['kind'] ?? null)}: use ${FEATURE_KINDS.join(', ')}`);
    if (!modules.includes(String(f['module']))) reasons.push(`${where} names module ${JSON.stringify(f['module'] ?? null)}, which the registry does not declare`);
    const tests = listOf(f['tests']);
    if (tests.length === 0) reasons.push(`${where} lists no test`);
    if (tests.some((t) => !isObject(t) || typeof t['file'] !== 'string' || typeof t['name'] !== 'string')) reasons.push(`${where} lists a test without a string file and name`);
  });
  return reasons;
}

/** Every listed test exists: its file, and a test of that name in it. */
export function testReasons(root: string, registry: unknown): string[] {
  const parsed = new Map<string, DeclaredTests | undefined>();
  const reasons: string[] = [];
  for (const feature of featuresOf(registry)) {
    for (const ref of feature.tests) {
      if (!parsed.has(ref.file)) {
        const file = join(root, ref.file);
        parsed.set(ref.file, existsSync(file) ? declaredTests(readFileSync(file, 'utf8')) : undefined);
      }
      const tests = parsed.get(ref.file);
      if (tests === undefined) reasons.push(`feature "${feature.id}": test file "${ref.file}" does not exist`);
      else if (!declares(tests, ref.name)) reasons.push(`feature "${feature.id}": "${ref.file}" declares no test named "${ref.name}"`);
    }
  }
  return reasons;
}

function coverage(kind: string, module: Module, features: Feature[], wanted: readonly string[], known: (subject: string) => string | undefined): string[] {
  const reasons: string[] = [];
  const mine = features.filter((f) => f.module === module.module && f.kind === kind);
  for (const subject of wanted) if (!mine.some((f) => f.subject === subject)) reasons.push(`module "${module.module}": ${kind.replace("_", " ")} "${subject}" has no feature`);
  for (const f of mine) {
    const problem = known(f.subject);
    if (problem !== undefined) reasons.push(`feature "${f.id}": ${problem}`);
  }
  return reasons;
}

/** Coverage of each module: capabilities of its service, its commands and its file surfaces. */
export function coverageChecks(root: string, registry: unknown, manifest: unknown): Check[] {
  const features = featuresOf(registry);
  const commands = new Set(listCommands(root).map((c) => c.name));
  const capabilities: string[] = [];
  const commandReasons: string[] = [];
  const fileReasons: string[] = [];
  for (const module of modulesOf(registry)) {
    const entry = manifestServices(manifest).find((s) => s['service'] === module.service);
    const published = listOf(entry?.['capabilities']).map(String);
    if (module.service !== undefined && entry === undefined) capabilities.push(`module "${module.module}": service "${module.service}" is not in governance-manifest.json`);
    capabilities.push(...coverage('capability', module, features, published, (s) => (published.includes(s) ? undefined : `capability "${s}" is not published by service "${module.service ?? '(none)'}"`)));
    commandReasons.push(...coverage('command', module, features, module.commands, (s) => (commands.has(s) ? undefined : `command "${s}" does not exist`)));
    for (const name of module.commands) if (!commands.has(name)) commandReasons.push(`module "${module.module}": command "${name}" does not exist`);
    fileReasons.push(...coverage('file_surface', module, features, module.file_surfaces, (s) => (module.file_surfaces.includes(s) ? undefined : `file surface "${s}" is not listed by module "${module.module}"`)));
    for (const path of module.file_surfaces) if (!BUILD_OUTPUT.test(path) && !existsSync(join(root, path))) fileReasons.push(`module "${module.module}": file surface "${path}" does not exist`);
  }
  return [check('capabilities_covered', capabilities), check('commands_covered', [...new Set(commandReasons)]), check('file_surfaces_covered', fileReasons)];
}
