// The synthetic-fixtures contract (contracts/semantic_fixtures_v1.json), compiled into every
// bundle: the admitted fixture ids, scenarios, labels and the assertion text of each receipt.

import CONTRACT from '../../contracts/semantic_fixtures_v1.json' with { type: 'json' };
import { digestOf } from './digest.ts';

export const FIXTURES_CONTRACT = CONTRACT;
export type FixturesContract = typeof CONTRACT;
export type FixtureName = keyof FixturesContract['fixtures'];

/** Fixture names in contract order; each is served at /api/v1/semantic/fixtures/<name>. */
export const FIXTURE_NAMES = Object.keys(CONTRACT.fixtures) as FixtureName[];

/** What every receipt cites: the contract's name, version and canonical hash. */
export const FIXTURES_CONTRACT_REF = Object.freeze({
  name: CONTRACT.contract,
  version: CONTRACT.version,
  sha256: digestOf(CONTRACT),
});
