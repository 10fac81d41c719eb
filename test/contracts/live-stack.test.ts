// The suites that need the whole dev stack (scripts/start.ts, eleven services), on one stack
// started once: each used to start its own, and a start of the stack is the dearest thing in npm
// test. They run in this order, one after the other: npm start's summary first (its printed lines
// are signed at start), then the contract answers and the documentation examples, then secret
// redaction (its requests carry wrong credentials everywhere, which must not lock out the good
// cases before it), and last npm start's stop on SIGTERM, which ends the stack.
//
// One suite alone: node --test --test-name-pattern='^docs examples' test/contracts/live-stack.test.ts

import { before, after } from 'node:test';
import { startLiveStack } from './_live-stack.ts';
import type { LiveStack } from './_live-stack.ts';
import { liveAnswers } from './_live-answers.ts';
import { secretRedaction } from './_secret-redaction.ts';
import { docsExamples } from '../scripts/_docs-examples.ts';
import { startSummary, startStopsOnSigterm } from '../scripts/_start-stack.ts';

let stack: LiveStack | undefined;
const live = (): LiveStack => {
  if (stack === undefined) throw new Error('the stack did not start (see the before hook)');
  return stack;
};

before(async () => {
  stack = await startLiveStack();
}, { timeout: 120_000 });
after(() => stack?.stop());

startSummary(live);
liveAnswers(live);
docsExamples(live);
secretRedaction(live);
startStopsOnSigterm(live);
