/**
 * The test oracle (tests/helpers/oracle.ts), a second exhaustive solver for
 * Baker's Dozen, Good Measure, Fan, King Albert, Siegecraft and Stronghold,
 * sharing no code with the engine or the checker: its move rules against the
 * checker's (client-sdk/core/verify.ts) on random walks, its solutions
 * replayed by the checker, and its verdicts against fc-solve's and the
 * reference verdicts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardToString, type Card } from '../../client-sdk/core/cards.js';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import type { Move } from '../../client-sdk/core/moves.js';
import { type Layout, type Rules } from '../../client-sdk/core/rules.js';
import { applyMove, checkMove, checkSolution } from '../../client-sdk/core/verify.js';
import { oracleMoves, oracleSolve } from '../helpers/oracle.js';
import { REFERENCE_VERDICTS } from '../helpers/paths.js';
import { rulesOf } from '../helpers/positions.js';

/** Every legal single-card move of `layout`, by asking the checker about every source and target. */
function checkerMoves(rules: Rules, layout: Layout): Move[] {
  const legal: Move[] = [];
  const sources: { from: 'column' | 'cell'; index: number; card: Card }[] = [];
  layout.columns.forEach((col, i) => col.length > 0 && sources.push({ from: 'column', index: i, card: col[col.length - 1] }));
  layout.freeCells.forEach((card, i) => card !== null && sources.push({ from: 'cell', index: i, card }));
  for (const { from, index, card } of sources) {
    const targets: [Move['to'], number][] = [
      ...layout.columns.map((_, t): [Move['to'], number] => ['column', t]),
      ...layout.freeCells.map((_, t): [Move['to'], number] => ['cell', t]),
      ...[0, 1, 2, 3].map((t): [Move['to'], number] => ['foundation', t]),
    ];
    for (const [to, toIndex] of targets) {
      const move: Move = { from, fromIndex: index, to, toIndex, count: 1, card: cardToString(card), auto: false };
      if (checkMove(rules, layout, move) === null) legal.push(move);
    }
  }
  return legal;
}

const text = (m: Move): string => `${m.from}${m.fromIndex}>${m.to}${m.toIndex}`;

/** A small deterministic generator (Park-Miller), so that a failure can be replayed. */
function prng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

const GAMES = ['bakers_dozen', 'good_measure', 'fan', 'king_albert', 'siegecraft', 'stronghold'];

describe('the oracle moves as the checker does', () => {
  // the six games, and served games of every build, cell count and empty-column rule
  it.each([...GAMES, 'freecell', 'seahaven_towers', 'eight_off', 'beleaguered_castle', 'citadel', 'fortress', 'kings_only_bakers_game'])(
    '%s: the same single-card moves along random walks',
    (game) => {
      const rules = rulesOf(game);
      let compared = 0;
      for (const deal of [1, 2, 3]) {
        const random = prng(deal * 7919);
        let layout = generateDeal(game, 'pysolfc', deal).layout;
        for (let step = 0; step < 80; step++) {
          const mine = oracleMoves(rules, layout).map(text).sort();
          const checker = checkerMoves(rules, layout);
          expect(mine, `${game} deal ${deal} step ${step}`).toEqual(checker.map(text).sort());
          compared++;
          if (checker.length === 0) break;
          layout = applyMove(rules, layout, checker[Math.floor(random() * checker.length)]);
        }
      }
      expect(compared).toBeGreaterThan(3);
    },
  );
});

describe('oracle verdicts', () => {
  it('solutions replay: solved deals of the six games, checked by the checker', () => {
    // small searches (PySolFC numbers); the verdicts agree with fc-solve's (below)
    for (const [game, deal] of [['fan', 3], ['king_albert', 2], ['king_albert', 8], ['good_measure', 7], ['siegecraft', 3], ['stronghold', 7]] as const) {
      const { layout } = generateDeal(game, 'pysolfc', deal);
      const result = oracleSolve(rulesOf(game), layout, 200_000);
      expect(result.verdict, `${game} ${deal}`).toBe('solved');
      expect(checkSolution(rulesOf(game), layout, result.moves!), `${game} ${deal}`).toMatchObject({ ok: true });
    }
  });

  it('unsolvable deals: the same number of positions as fc-solve stores', () => {
    // fc-solve 6.16 built with 20 stacks (so that it takes Fan), atomic moves only, a
    // complete search: `fc-solve -g fan -to 01ABCDE`, `-g good_measure -to 01ABCDE`, and
    // for King Albert `--freecells-num 7 --stacks-num 9 --sequences-are-built-by
    // alternate_color --empty-stacks-filled-by all -to 01ABDE` (no move into a cell);
    // "I could not solve this game", with "Total number of states checked is N".
    const FC_SOLVE: [string, number, number][] = [
      ['good_measure', 1, 988],
      ['fan', 5, 2996],
      ['fan', 7, 18819],
      ['king_albert', 1, 3783],
      ['king_albert', 9, 1132],
    ];
    for (const [game, deal, positions] of FC_SOLVE) {
      const result = oracleSolve(rulesOf(game), generateDeal(game, 'pysolfc', deal).layout, 1_000_000);
      expect([game, deal, result.verdict, result.positions]).toEqual([game, deal, 'unsolvable', positions]);
    }
  });

  it('agrees with the reference verdicts of the Castle games where its search is small', () => {
    let agreed = 0;
    for (const game of ['beleaguered_castle', 'streets_and_alleys', 'citadel']) {
      const rows = readFileSync(join(REFERENCE_VERDICTS, `${game}.tsv`), 'utf8').trim().split('\n').slice(1);
      for (const row of rows.slice(0, 60)) {
        const [deal, verdict] = row.split('\t');
        const result = oracleSolve(rulesOf(game), generateDeal(game, 'pysolfc', deal).layout, 3_000);
        if (result.verdict === 'unknown' || verdict === 'unknown') continue;
        expect(`${game} ${deal} ${result.verdict === 'solved' ? 'solvable' : 'unsolvable'}`).toBe(`${game} ${deal} ${verdict}`);
        agreed++;
      }
    }
    expect(agreed).toBeGreaterThan(30); // 43 of the first 60 deals of each game are decided within 3,000 positions
  }, 120_000);

  it('refuses rules it cannot search', () => {
    const { layout } = generateDeal('penguin', 'pysolfc', 1);
    expect(() => oracleSolve({ ...rulesOf('penguin'), foundationBase: 11 }, layout, 10)).toThrow(/wrapping/);
    expect(() => oracleSolve(rulesOf('relaxed_freecell'), generateDeal('freecell', 'pysolfc', 1).layout, 10)).toThrow(/unlimited/);
  });
});
