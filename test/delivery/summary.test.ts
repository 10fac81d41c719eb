// airlock --help's one line per command, taken from the command's own --help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summaryOf } from '../../delivery/airlock-bundle.ts';

test('a summary wrapped over several lines is read whole, up to its first sentence, never cut mid-phrase', () => {
  const wrapped = 'Usage: content-dev-oidc [--listen HOST:PORT]\n\nDEVELOPMENT ONLY: a minimal OpenID provider on loopback with one fixed account ("dev"), for\nnpm start. It refuses any non-loopback address.\n\nOptions:\n';
  assert.equal(summaryOf(wrapped), 'DEVELOPMENT ONLY: a minimal OpenID provider on loopback with one fixed account ("dev"), for npm start');
  const clause = 'Usage: agent-context-api\n\nServes the agent-context API: open /health, /openapi.json and\n/governance-manifest.json; internal reads behind a token.\n';
  assert.equal(summaryOf(clause), 'Serves the agent-context API: open /health, /openapi.json and /governance-manifest.json');
  const noEnd = 'Usage: content-api\n\nServes the content repository on loopback: the share UI (/share/), the OIDC bridge\n(/auth/oidc/login) and the repository API\n';
  assert.equal(summaryOf(noEnd), 'Serves the content repository on loopback: the share UI (/share/), the OIDC bridge (/auth/oidc/login) and the repository API');
});

test('a one-line summary stays as it is; a version number or file name is not a sentence end; no Usage line: empty', () => {
  assert.equal(summaryOf('Usage: x\n\nRuns the governance publication service (seed 001).\n'), 'Runs the governance publication service (seed 001).');
  assert.equal(summaryOf('Usage: x\n\nReads semantic.sqlite and prints v1.2 rows\n'), 'Reads semantic.sqlite and prints v1.2 rows');
  assert.equal(summaryOf('Checks things\n'), '');
});
