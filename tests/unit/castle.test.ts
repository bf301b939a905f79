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
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { pathToFileURL } from 'node:url';
import { REFERENCE_VERDICTS } from '../helpers/paths.js';

const VERDICTS = pathToFileURL(REFERENCE_VERDICTS + '/');
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
    const rows = readFileSync(new URL(`${game}.tsv`, VERDICTS), 'utf8').trim().split('\n').slice(1);
    const mismatches: string[] = [];
    let decided = 0;
    for (const row of rows) {
      const [deal, want] = row.split('\t');
      const d = resolveDeal({ game, deal: Number(deal), numbering: 'pysolfc' });
      const outcome = engine.solve(d, { limits: BUDGET });
      if (outcome.verdict === 'unknown') {
        expect(outcome.reason).toBe('max_states');
        continue;
      }
      decided++;
      if (outcome.verdict === 'solved') {
        expect(checkSolution(d.rules, d.layout, outcome.moves)).toMatchObject({ ok: true });
      }
      const got = outcome.verdict === 'solved' ? 'solvable' : 'unsolvable';
      if (want !== 'unknown' && got !== want) mismatches.push(`${deal}: want ${want}, got ${got}`);
    }
    expect(mismatches).toEqual([]);
    expect(decided).toBeGreaterThanOrEqual(leastDecided);
  });
});
