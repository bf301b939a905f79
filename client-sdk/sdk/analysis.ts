/**
 * The live verdict of a game in play: after every move, can the position
 * still be won (with a short solution from it), is it lost (with the size of
 * the proof), or did the budget run out; and when it is lost, which move
 * lost it and what could have been played instead.
 *
 * Both work with anything that answers like the service: the in-process
 * solver (`createLocalSolver`, also inside a Web Worker through
 * `analysis-worker.ts` and `analyser.ts`) or the remote client
 * (`createClient`), so an app can ask the service when the browser's budget
 * cannot decide.
 *
 *   const analysis = await analysePosition(solver, 'freecell', game.position, { limits: PLAY_LIMITS });
 *   if (analysis.verdict === 'lost') {
 *     const loss = await findLosingMove(solver, 'freecell', game);   // as POST /v1/review finds it
 *   }
 *
 * Every verdict is the engine's, as the service gives it: `winnable` rests
 * on a solution the independent checker replayed, `lost` on a complete
 * search (its positions counted in `proofPositions`), `unknown` names the
 * budget that ran out.
 */
import type { ReviewResponse } from '../api/apps-schemas.js';
import type { SolveResponse } from '../api/schemas.js';
import { layoutToJson } from '../core/layout.js';
import type { Move } from '../core/moves.js';
import type { Game, Position } from '../core/play.js';
import type { UnknownReason } from '../core/solve-types.js';
import type { ReviewRequestInput } from './client.js';
import { hint, type Solver } from './hints.js';

/**
 * The budget of one analysis in a player's browser: 1,000,000 positions
 * (about 70 MB of engine memory) or 4 s, whichever runs out first, then the
 * shortening of a solution found (PLAYER_OPTIMIZE_MS, 150 ms). Most
 * positions of a FreeCell game are decided in a small part of it
 * (docs/web.md, "Sizes and analysis time").
 */
export const PLAY_LIMITS: Readonly<{ maxStates: number; timeoutMs: number }> = Object.freeze({ maxStates: 1_000_000, timeoutMs: 4_000 });

/** Budgets of a search: states stored and milliseconds (either may be left to the solver's defaults). */
export interface AnalysisLimits {
  maxStates?: number;
  timeoutMs?: number;
}

/** Counters of the search behind an analysis. */
export interface AnalysisStats {
  statesExpanded: number;
  statesStored: number;
  /** Search time in the solver, ms (the shortening not included). */
  elapsedMs: number;
  /** The budgets the search had. */
  limits: { maxStates: number; timeoutMs: number };
}

/**
 * The verdict on one position:
 * - `winnable`: a checked solution from here; `movesLeft` is its length (0
 *   when the game is won), `moves`/`notation` the solution (shortened for a
 *   player, PLAYER_OPTIMIZE_MS), its first move the hint;
 * - `lost`: a complete search found no solution; `proofPositions` is the
 *   number of distinct positions it covered (the proof's `positions`);
 * - `unknown`: the budget named by `reason` ran out first.
 */
export type Analysis =
  | { verdict: 'winnable'; movesLeft: number; moves: Move[]; notation: string[]; stats: AnalysisStats }
  | { verdict: 'lost'; proofPositions: number; stats: AnalysisStats }
  | { verdict: 'unknown'; reason: UnknownReason; stats: AnalysisStats };

/** Options of {@link analysePosition}. */
export interface AnalysisOptions {
  /** The search's budget; absent fields take the solver's defaults (the service's: 5,000,000 states, 30 s). */
  limits?: AnalysisLimits;
  /**
   * Called with the verdict as soon as the search has it, before a solution
   * found is shortened: the analysis then asks twice (`optimize: "none"`,
   * then the hint's shortening, which the local solver starts from the
   * solution it just found; a remote solver searches again). The promise
   * still resolves with the shortened analysis.
   */
  onDecided?: (analysis: Analysis) => void;
}

/** The request that describes `position` of a game `game` to the solver: the preset, the rules as played, the layout as JSON. */
function positionRequest(game: string, position: Position) {
  return { game, rules: { ...position.rules }, layout: layoutToJson(position.layout) };
}

/**
 * The verdict on `position` of a game of preset `game` (an id of `GET
 * /v1/games`), with a short solution when it can be won (the SDK's `hint`:
 * `optimize: "length"` for PLAYER_OPTIMIZE_MS). A won position is
 * `winnable` with no moves left, without a search.
 * @throws SolverError as the solver's `solve` (`unknown_game`, `bad_rules`,
 *   `bad_limits`, ...; the remote client's `ServiceError` for a service
 *   that cannot be reached).
 */
export async function analysePosition(solver: Solver, game: string, position: Position, options: AnalysisOptions = {}): Promise<Analysis> {
  if (position.isWon()) {
    return { verdict: 'winnable', movesLeft: 0, moves: [], notation: [], stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, limits: { maxStates: 0, timeoutMs: 0 } } };
  }
  const request = { ...positionRequest(game, position), ...(options.limits ? { limits: options.limits } : {}) };
  if (options.onDecided) {
    const decided = toAnalysis(await solver.solve({ ...request, optimize: 'none' }));
    options.onDecided(decided);
    if (decided.verdict !== 'winnable') return decided;
  }
  return toAnalysis((await hint(solver, request)).solution);
}

/** An answer of `solve` as an analysis. */
function toAnalysis(answer: SolveResponse): Analysis {
  const stats: AnalysisStats = {
    statesExpanded: answer.stats.statesExpanded,
    statesStored: answer.stats.statesStored,
    elapsedMs: answer.stats.elapsedMs,
    limits: { maxStates: answer.stats.limits.maxStates, timeoutMs: answer.stats.limits.timeoutMs },
  };
  if (answer.verdict === 'solved') return { verdict: 'winnable', movesLeft: answer.moves.length, moves: answer.moves as Move[], notation: answer.notation, stats };
  if (answer.verdict === 'unsolvable') return { verdict: 'lost', proofPositions: answer.proof?.positions ?? answer.stats.statesStored, stats };
  return { verdict: 'unknown', reason: answer.reason ?? 'max_states', stats };
}

/** Anything with the service's `review` (`POST /v1/review`): the local solver or the remote client. */
export interface Reviewer {
  review(request: ReviewRequestInput): Promise<ReviewResponse>;
}

/**
 * Where a game was lost, as `POST /v1/review` finds it (move indices count
 * every move from the game's start, 0-based):
 * - `lost`: move `moveIndex` (`notation`) turned a winnable position into a
 *   lost one; `proofPositions` counts the complete search of the position
 *   after it; `alternative` is the first move of a checked solution from the
 *   position before it (`line`: that solution in notation);
 * - `lost_at_start`: the deal itself cannot be won;
 * - `unknown`: the positions `from`..`to` (numbered by the moves played)
 *   could not be decided within the budget (`reasons`);
 * - `winnable` / `won`: the game's last position can still be won (or is).
 * `searches` counts the review's searches.
 */
export type LossReport =
  | {
      result: 'lost';
      moveIndex: number;
      notation: string;
      proofPositions: number;
      alternative: { moveIndex: number; notation: string; line: string[] };
      searches: number;
    }
  | { result: 'lost_at_start'; proofPositions: number; searches: number }
  | { result: 'unknown'; from: number; to: number; reasons: string[]; searches: number }
  | { result: 'winnable' | 'won'; searches: number };

/** Options of {@link findLosingMove}. */
export interface LossOptions {
  /**
   * A position known winnable (numbered by the moves played): the review
   * starts there, so that it decides only the positions after it. Default 0.
   */
  from?: number;
  /** Budget of each search (absent: the reviewer's defaults). */
  limits?: AnalysisLimits;
}

/**
 * The move that lost `played` (a game of preset `game`), found by the
 * reviewer's `review` (`POST /v1/review`'s search for the flip from
 * winnable to lost, docs/apps.md) on the moves from position `options.from`
 * on; its indices are shifted back to count from the game's start. When
 * the review finds position `from` itself lost, it is asked again from the
 * start.
 * @throws SolverError as the reviewer's `review` (`bad_limits`, ...); a
 *   RangeError when `from` is not a position of the game.
 */
export async function findLosingMove(reviewer: Reviewer, game: string, played: Game, options: LossOptions = {}): Promise<LossReport> {
  const from = options.from ?? 0;
  const start = played.positionAfter(from);
  const answer = await reviewer.review({
    ...positionRequest(game, start),
    moves: played.moves.slice(from),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const searches = answer.stats.searches;
  switch (answer.result) {
    case 'lost': {
      const lost = answer.lost!;
      const alternative = answer.alternative!;
      return {
        result: 'lost',
        moveIndex: from + lost.moveIndex!,
        notation: lost.notation!,
        proofPositions: lost.proof.positions,
        alternative: { moveIndex: from + alternative.moveIndex, notation: alternative.notation, line: alternative.line.notation },
        searches,
      };
    }
    case 'lost_at_start':
      if (from > 0) {
        const again = await findLosingMove(reviewer, game, played, { ...options, from: 0 });
        return { ...again, searches: again.searches + searches };
      }
      return { result: 'lost_at_start', proofPositions: answer.lost!.proof.positions, searches };
    case 'unknown':
      return { result: 'unknown', from: from + answer.unknown!.from, to: from + answer.unknown!.to, reasons: answer.unknown!.reasons, searches };
    default:
      return { result: answer.result, searches };
  }
}
