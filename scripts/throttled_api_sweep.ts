// throttled_api_sweep: the GET-only, rate-limited sweep of an OpenAPI export (seed 001,
// "Throttled sweep runner"). The work lives in scripts/_sweep/; docs/sweep.md is the manual.

import { main } from '../src/kernel/index.ts';
import { createSweepCommand } from './_sweep/command.ts';

await main(createSweepCommand());
