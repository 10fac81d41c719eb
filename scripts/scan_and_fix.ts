// scan_and_fix: the bundle behind scripts/scan_and_fix.sh; the command is in
// scripts/_scan/command.ts.

import { main } from '../src/kernel/index.ts';
import { scanAndFixCommand } from './_scan/command.ts';

await main(scanAndFixCommand);
