// n8n_expert (the seed's `python -m n8n_expert`): checks workflow automation exports that call
// our services; the command is in scripts/_n8n/command.ts.

import { main } from '../src/kernel/index.ts';
import { n8nExpertCommand } from './_n8n/command.ts';

await main(n8nExpertCommand);
