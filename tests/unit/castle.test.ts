/**
 * The Beleaguered Castle family against the reference verdicts
 * (tests/fixtures/data/verdicts/, PySolFC deals 1..200).
 *
 * CI runs every deal with a small budget (200,000 positions): every decided
 * answer must match the reference and every solution must replay under the
 * independent checker; a budget cut may only answer `unknown`. Deciding all
 * 600 deals with the default budgets takes many minutes and is measured by
 * `npm run bench -- --game <game> ...` instead (docs/benchmarks.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { solveReferenceDeals } from '../helpers/reference-verdicts.js';

const BUDGET = { maxStates: 200_000, timeoutMs: 60_000 };

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

describe.each([
  // [game, decided at least this many of the 200 within the small budget]
  ['citadel', 200],
  ['beleaguered_castle', 195],
  ['streets_and_alleys', 188],
] as const)('%s deals 1..200', (game, leastDecided) => {
  it('never contradicts a reference verdict, and every solution replays', () => {
    const { decided, mismatches } = solveReferenceDeals(engine, game, BUDGET);
    expect(mismatches).toEqual([]);
    expect(decided).toBeGreaterThanOrEqual(leastDecided);
  });
});
