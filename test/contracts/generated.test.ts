import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedFiles, ROOT } from '../../scripts/_generated-contracts.ts';

test('generated contracts match their committed copies (run "npm run contracts" after changing a route table)', async () => {
  for (const [path, text] of await generatedFiles()) {
    const file = join(ROOT, path);
    assert.ok(existsSync(file), `${path} is missing: run npm run contracts`);
    assert.equal(readFileSync(file, 'utf8'), text, `${path} drifted from the route tables: run npm run contracts`);
  }
});
