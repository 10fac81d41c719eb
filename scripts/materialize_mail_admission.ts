// materialize_mail_admission: preview by default, --apply to write, and only for an exact
// 40-character commit of main (seed 001 "Limits"). The work lives in scripts/_materialize/;
// docs/sweep.md is the manual.

import { main } from '../src/kernel/index.ts';
import { createMaterializeCommand } from './_materialize/command.ts';

await main(createMaterializeCommand());
