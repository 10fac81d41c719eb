// Preloaded into every test process by npm test (--import), the runner included. Tests make
// their scratch directories with mkdtemp under os.tmpdir() and many do not remove them (a
// killed server, a failed assertion, or no cleanup at all): a full run left about a hundred
// directories in /tmp, NATS stores among them, and a day of runs on one host 2 GB. Each
// process here gets a directory of its own as TMPDIR, inherited by the processes it starts,
// and removes it, with everything left in it, when it exits. What test files share across a run
// (the bundles of shared-build.ts) stays in the temporary directory the run started with.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The temporary directory before any test process changed it: for what runs share (a build). */
export const SHARED_TMPDIR_VARIABLE = 'AIRLOCK_TEST_SHARED_TMPDIR';
process.env[SHARED_TMPDIR_VARIABLE] ??= tmpdir();

const scratch = mkdtempSync(join(tmpdir(), 'airlock-test-'));
process.env['TMPDIR'] = scratch;
process.on('exit', () => rmSync(scratch, { recursive: true, force: true, maxRetries: 2 }));
