/**
 * Played games for the review tests: every legal move of a position (in
 * standard notation), and a losing game built from a real deal by playing
 * a prefix of a checked solution and then a blunder: a legal move whose
 * position a complete search proves lost.
 */
import { moveFromNotation } from '../../client-sdk/core/move-list.js';
import type { Move } from '../../client-sdk/core/moves.js';
import type { Layout, Rules } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { applyMove, checkMove } from '../../client-sdk/core/verify.js';

const CELLS = 'abcdefgi';

/** Every legal move of `layout` as a standard-notation token, in a fixed order (sources, then targets, `h` last). */
export function legalTokens(rules: Rules, layout: Layout): string[] {
  const columns = Array.from({ length: rules.columns }, (_, i) => (i === 9 ? '0' : String(i + 1)));
  const cells = CELLS.slice(0, rules.freeCells).split('').filter((c) => c !== '');
  const out: string[] = [];
  for (const from of [...columns, ...cells]) {
    for (const to of [...columns, ...cells, 'h']) {
      if (from === to) continue;
      try {
        const move = moveFromNotation(from + to, rules, layout, 0);
        if (checkMove(rules, layout, move) === null) out.push(from + to);
      } catch {
        // an empty source: no move
      }
    }
  }
  return out;
}

/** A losing game: the solution prefix, the blunder and some legal moves after it. */
export interface LosingGame {
  /** The whole game: the solution's first moves (JSON, as the solver gave them), then the blunder and the moves after it (notation). */
  entries: (string | Move)[];
  /** Index of the blunder in `entries` (= the number of solution moves played first). */
  blunder: number;
}

/**
 * Builds a losing game from `start`: for m = `from`, `from + step`, …, plays
 * the first m moves of `solution` and tries the legal moves there (each
 * decided by `decide`) until one leads to a position proven `unsolvable`
 * whose search stored at least `minPositions` (default 20) and that still
 * has legal moves;
 * then plays up to `after` further legal moves (the first legal one each
 * time). Null when no blunder was found.
 */
export async function buildLosingGame(
  rules: Rules,
  start: Layout,
  solution: Move[],
  decide: (layout: Layout, limits: SolveLimits) => Promise<SolveOutcome>,
  options: { from: number; step: number; after: number; limits: SolveLimits; minPositions?: number },
): Promise<LosingGame | null> {
  for (let m = options.from; m < solution.length - 2; m += options.step) {
    let layout = start;
    for (let i = 0; i < m; i++) layout = applyMove(rules, layout, solution[i]);
    for (const token of legalTokens(rules, layout)) {
      const next = applyMove(rules, layout, moveFromNotation(token, rules, layout, m));
      const outcome = await decide(next, options.limits);
      // a lost position with moves left and a search of some size, so that the game can go on after the blunder
      if (outcome.verdict !== 'unsolvable' || outcome.stats.statesStored < (options.minPositions ?? 20) || legalTokens(rules, next).length === 0) continue;
      const tokens: (string | Move)[] = [...solution.slice(0, m), token];
      let after = next;
      for (let k = 0; k < options.after; k++) {
        const more = legalTokens(rules, after);
        if (more.length === 0) break;
        after = applyMove(rules, after, moveFromNotation(more[0], rules, after, tokens.length));
        tokens.push(more[0]);
      }
      return { entries: tokens, blunder: m };
    }
  }
  return null;
}
