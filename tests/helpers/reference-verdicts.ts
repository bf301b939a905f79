/**
 * The engine against the reference verdicts of a game
 * (tests/fixtures/data/verdicts/<game>.tsv: a header, then `deal<TAB>verdict<TAB>…`
 * rows, verdict `solvable`, `unsolvable` or `unknown`), as the family tests
 * check it: every deal solved within a small budget, where a budget cut
 * may only answer `unknown` (`max_states`), every solution replays under
 * the independent checker, and no decided answer contradicts a decided
 * reference verdict.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Engine } from '../../client-sdk/core/engine/index.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { REFERENCE_VERDICTS } from './paths.js';

/**
 * Solves every PySolFC deal of `game`'s reference file with `limits` and
 * asserts what the module comment says of each; `each` may assert more of
 * a deal and its outcome. Returns how many the engine decided and the
 * contradictions (`"<deal>: want <verdict>, got <verdict>"`), for the
 * caller to assert.
 */
export function solveReferenceDeals(
  engine: Engine,
  game: string,
  limits: SolveLimits,
  each?: (deal: Deal, outcome: SolveOutcome) => void,
): { decided: number; mismatches: string[] } {
  const rows = readFileSync(join(REFERENCE_VERDICTS, `${game}.tsv`), 'utf8').trim().split('\n').slice(1);
  const mismatches: string[] = [];
  let decided = 0;
  for (const row of rows) {
    const [deal, want] = row.split('\t');
    const d = resolveDeal({ game, deal: Number(deal), numbering: 'pysolfc' });
    const outcome = engine.solve(d, { limits });
    each?.(d, outcome);
    if (outcome.verdict === 'unknown') {
      expect(outcome.reason).toBe('max_states');
      continue;
    }
    decided++;
    if (outcome.verdict === 'solved') expect(checkSolution(d.rules, d.layout, outcome.moves)).toMatchObject({ ok: true });
    const got = outcome.verdict === 'solved' ? 'solvable' : 'unsolvable';
    if (want !== 'unknown' && got !== want) mismatches.push(`${deal}: want ${want}, got ${got}`);
  }
  return { decided, mismatches };
}
