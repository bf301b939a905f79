/**
 * Hints: from any position of a game in progress (a board or layout with
 * cards in the free cells and on the foundations), the next move of a
 * solution, so that a game can offer a "hint" button.
 *
 * Works with anything that solves like the service: the remote client
 * (`createClient`) or the in-process solver (`createLocalSolver`).
 *
 *   const h = await hint(solver, { game: 'freecell', board: currentBoardText });
 *   if (h.move) highlight(h.move.from, h.move.fromIndex);   // h.notation: "3a"
 */
import type { Move } from '../core/moves.js';
import type { SolveResponse } from '../api/schemas.js';
import type { UnknownReason, Verdict } from '../core/solve-types.js';
import type { SolveRequestInput } from './client.js';
import { PLAYER_OPTIMIZE_MS } from '../core/shorten.js';

/** Anything with the service's `solve`. */
export interface Solver {
  solve(request: SolveRequestInput): Promise<SolveResponse>;
}

/** The answer of `hint`. */
export interface Hint {
  /** `solved`: the position can still be won and `move` leads on; `unsolvable`: it cannot; `unknown`: the budget ran out. */
  verdict: Verdict;
  /** Which budget ran out, with `unknown`. */
  reason?: UnknownReason;
  /** The next move of a solution; null unless `solved` (and null when the game is already won). */
  move: Move | null;
  /** `move` in standard notation (`"3a"`, `"a4"`, `"3h"`). */
  notation: string | null;
  /** `move` as fc-solve's line. */
  fcs: string | null;
  /**
   * Moves left in the solution found, this one included (a solution, not
   * necessarily the shortest; shortened for PLAYER_OPTIMIZE_MS unless the
   * request says `optimize: "none"`).
   */
  movesLeft: number;
  /** The whole answer of the solve. */
  solution: SolveResponse;
}

/**
 * The next move of a solution from the given position. Unless the request
 * sets `optimize`, the solution is shortened for a player's budget
 * (`optimize: "length"`, `limits.optimizeMs` PLAYER_OPTIMIZE_MS = 150 ms
 * unless given): a hint should lead the way a player would go, not wander.
 * @param solver the remote client or the local solver.
 * @param position a solve request: `game` and the position as `board`,
 *   `layout` or `deal`, optionally `rules` and `limits` (a short
 *   `timeoutMs` keeps a hint button responsive).
 * @throws SolverError for a position that is not valid (codes as `POST /v1/solve`).
 */
export async function hint(solver: Solver, position: SolveRequestInput): Promise<Hint> {
  const request: SolveRequestInput =
    position.optimize === undefined
      ? { ...position, optimize: 'length', limits: { ...position.limits, optimizeMs: position.limits?.optimizeMs ?? PLAYER_OPTIMIZE_MS } }
      : position;
  const solution = await solver.solve(request);
  const solved = solution.verdict === 'solved' && solution.moves.length > 0;
  return {
    verdict: solution.verdict,
    ...(solution.reason !== undefined ? { reason: solution.reason } : {}),
    move: solved ? solution.moves[0] : null,
    notation: solved ? solution.notation[0] : null,
    fcs: solved ? solution.fcsMoves[0] : null,
    movesLeft: solution.moves.length,
    solution,
  };
}
