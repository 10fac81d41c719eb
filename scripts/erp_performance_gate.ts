// erp_performance_gate: the seed 002 load gate of a running ERP service (the command itself is
// scripts/_erp/performance-gate-command.ts, so tests can run it with their own terminal).

import { main } from '../src/kernel/index.ts';
import { performanceGateCommand } from './_erp/performance-gate-command.ts';

await main(performanceGateCommand);
