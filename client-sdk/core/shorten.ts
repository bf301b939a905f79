/**
 * Shorter solutions: after the engine found a solution, spend a time budget
 * making it shorter (docs/short-solutions.md).
 *
 * Two passes:
 * 1. Beam search in the engine (assembly/beam.ts): beams of growing width
 *    from the start, each followed by re-searches of the best solution's
 *    suffixes, every one bounded by the best length so far.
 * 2. A peephole pass here, on the wire moves: a card moved A→B and later
 *    B→C becomes one move A→C, and a move whose later move puts the card back
 *    where it came from is dropped with it. The independent checker
 *    (verify.ts `checkSolution`) decides every change: a rewrite is kept only
 *    when the whole solution still replays to a win.
 *
 * Length is counted as players count it: moves that are not safe auto-moves
 * (the engine flags them `auto`; its rule, assembly/position.ts
 * `isSafeAutoMove`: for alternate-colour builds rank ≤ 2 or both
 * opposite-colour foundations at rank − 1 or more), a sequence move counts
 * one. That is what bench/solver.ts prints as "without auto-moves".
 *
 * The verdict never changes: this only runs on a solved deal and returns the
 * first solution unless a shorter one passed the checker.
 */
import { elapsedMsSince, type ShortenReport } from './solve-types.js';
import type { Move } from './moves.js';
import type { Layout, Rules } from './rules.js';
import { applyMove, checkSolution, cloneLayout } from './verify.js';

/** How long to shorten, and how wide the beams may grow. */
export interface ShortenOptions {
  /** Time budget of the shortening, milliseconds of wall clock after the first solution (1..). */
  budgetMs: number;
  /** Widest beam, positions per level (power of two, 1..65,536; default 16,384). */
  maxWidth?: number;
  /**
   * Count the budget in CPU time of this process instead of wall-clock time
   * (benchmarks on a shared machine; meaningful only when one thread
   * solves). Not offered by the API.
   */
  cpuClock?: boolean;
}

/** The engine's beam, as the Engine class exposes it to this file (assembly/beam.ts and beam-cost.ts document each). */
export interface BeamEngine {
  /** Starts a session from the solution in the engine's buffer; its counted length, or -1. */
  begin(maxWidth: number): number;
  /** One beam of `width` after `prefix` counted moves of the best path; the best length after it. */
  beam(width: number, prefix: number): number;
  /** Counted moves in the best path. */
  pathMoves(): number;
  /** Sets the cost weights of the next beams (cards not home, unsorted cards, occupied cells, empty columns as a bonus, blockers; assembly/beam-cost.ts `setBeamWeights`). */
  weights(notHome: number, unsorted: number, cells: number, emptyColumns: number, blockers: number): void;
  /** True once the deadline or a cancel stopped the session. */
  stopped(): boolean;
  /** Writes the best path into the solution buffer and returns it as moves; null on an internal inconsistency. */
  read(): Move[] | null;
  /** The clock the budget runs on, ms. */
  now(): number;
  /** The value of `now()` at which the budget ends. */
  deadline: number;
}

/**
 * The shortening budget players get by default, ms: single solves from the
 * page (web/), the CLI (server/cli/solve.ts) and the SDK's `hint()`.
 * Batches keep the first solution.
 */
export const PLAYER_OPTIMIZE_MS = 150;

/** Default widest beam. */
export const DEFAULT_MAX_BEAM_WIDTH = 16384;
/** Width of the first beam of a session, which also times the engine. */
const FIRST_WIDTH = 64;
/**
 * Share of the time left that the one wide beam after the first may be
 * expected to take. A beam stopped by the deadline returns nothing, and the
 * estimate from the first, small beam is noisy (a warm engine, another job
 * on the core: up to 2x either way), so a wide beam aimed at all of the
 * time left was stopped often enough to lose the whole budget. On MS
 * 1..1000, CPU clock: aiming at all of it left 16 deals unimproved at 57 ms
 * (mean 36.34) and 18 at 480 ms (34.74); aiming at half left 4 (36.47) and
 * 1 (34.52). docs/short-solutions.md, "Method".
 */
const JUMP_SHARE = 0.5;
/** Counted moves between two prefixes whose suffixes are searched again. */
const PREFIX_STEP = 16;
/**
 * Cost weights of the beams (cards not home, cards above the bottom sorted
 * run, occupied free cells, empty columns as a bonus; assembly/beam-cost.ts),
 * the first for the main beam, the others in turn afterwards: two beams with
 * different costs of one width found shorter solutions than one beam twice
 * as wide (docs/short-solutions.md).
 */
export const WEIGHTS: readonly BeamCost[] = [
  [2, 4, 8, 2, 1],
  [1, 1, 4, 0, 1],
];

/** Cost weights of one beam: cards not home, cards above the bottom sorted run, occupied free cells, empty columns (a bonus), blockers (assembly/beam-cost.ts `setBeamWeights`). */
export type BeamCost = readonly [notHome: number, unsorted: number, cells: number, emptyColumns: number, blockers: number];

/** Counted moves of a solution: every move not flagged as a safe auto-move (a sequence move counts one). */
export function countedMoves(moves: readonly Move[]): number {
  let n = 0;
  for (const m of moves) if (!m.auto) n++;
  return n;
}

/**
 * Runs the beams until the engine reports the deadline (`engine.stopped()`)
 * or the widest beam is done:
 * 1. one beam of FIRST_WIDTH from the start, timed on the budget's clock;
 * 2. one beam of the widest power-of-two width w ≤ maxWidth that this time
 *    (a beam's cost grows with its width) says fits into JUMP_SHARE of the
 *    time left;
 * 3. with time left: a beam of w for each other cost of WEIGHTS, then the
 *    suffixes after every PREFIX_STEP counted moves of the best path, costs
 *    in turn; then all of it again with twice the width.
 * Each beam is bounded by the best length so far, so a later one can only
 * make the solution shorter. Returns the widest width whose beam ran to its end.
 * `costs` (default WEIGHTS) are the cost weights, the first for the main beams.
 */
export function runBeams(engine: BeamEngine, maxWidth: number, costs: readonly BeamCost[] = WEIGHTS): number {
  const left = () => engine.deadline - engine.now();
  let done = 0;
  const first = Math.min(FIRST_WIDTH, maxWidth);
  const t0 = engine.now();
  engine.weights(...costs[0]);
  engine.beam(first, 0);
  if (engine.stopped()) return done;
  done = first;
  const perWidth = Math.max(engine.now() - t0, 0.01) / first;
  let width = first;
  while (width * 2 <= maxWidth && perWidth * width * 2 <= left() * JUMP_SHARE) width *= 2;
  if (width > first) {
    engine.beam(width, 0);
    if (engine.stopped()) return done;
    done = width;
  }
  let turn = 1;
  for (;;) {
    for (const w of costs.slice(1)) {
      if (perWidth * width > left() * 1.5) break;
      engine.weights(...w);
      engine.beam(width, 0);
      if (engine.stopped()) return done;
    }
    for (let prefix = PREFIX_STEP; prefix < engine.pathMoves(); prefix += PREFIX_STEP) {
      engine.weights(...costs[turn++ % costs.length]);
      engine.beam(width, prefix);
      if (engine.stopped()) return done;
    }
    if (width * 2 > maxWidth) return done;
    width *= 2;
    engine.weights(...costs[0]);
    engine.beam(width, 0);
    if (engine.stopped()) return done;
    done = width;
  }
}

/** Where a move leaves its card(s) and where it takes them from, as comparable strings. */
function target(m: Move): string {
  return `${m.to}:${m.toIndex}`;
}
function source(m: Move): string {
  return `${m.from}:${m.fromIndex}`;
}

/**
 * The peephole pass: repeatedly, for a counted move i of card X that is not
 * to a foundation, finds the next move j of the same card with the same
 * count from where i put it; tries "i goes straight to j's target, j
 * dropped" (or both dropped when j's target is i's source) and keeps the
 * rewrite when the checker accepts the whole solution. Foundation moves are
 * never moved or dropped, so the foundations grow in the same order and every
 * `auto` flag stays true to the auto-move rule (it depends on the
 * foundations only). Never returns a solution the checker rejects: the input
 * comes back unchanged when it is itself rejected.
 * @param rules, start the game and the start position of `moves`.
 * @returns the rewritten moves (a new array).
 */
export function peephole(rules: Rules, start: Layout, moves: readonly Move[]): Move[] {
  let best = [...moves];
  if (!checkSolution(rules, start, best).ok) return best;
  let changed = true;
  while (changed) {
    changed = false;
    // prefix layouts: before[i] is the position before move i
    let layout = cloneLayout(start);
    for (let i = 0; i < best.length; i++) {
      const a = best[i];
      if (!a.auto && a.to !== 'foundation') {
        let j = i + 1;
        while (j < best.length && best[j].card !== a.card) j++;
        if (j < best.length && best[j].count === a.count && source(best[j]) === target(a) && best[j].to !== 'foundation' && !best[j].auto) {
          const b = best[j];
          const merged: Move[] =
            b.to === a.from && b.toIndex === a.fromIndex
              ? [...best.slice(i + 1, j), ...best.slice(j + 1)]
              : [{ ...a, to: b.to, toIndex: b.toIndex }, ...best.slice(i + 1, j), ...best.slice(j + 1)];
          if (checkSolution(rules, layout, merged).ok) {
            best = [...best.slice(0, i), ...merged];
            changed = true;
          }
        }
      }
      if (i < best.length) layout = applyMove(rules, layout, best[i]);
    }
  }
  return best;
}

/**
 * Shortens `first` (a checked solution of `start` under `rules`) with the
 * engine's beams within the time the engine enforces, then the peephole
 * pass; returns the shorter of the two, each checked by `checkSolution`.
 * Never throws for a solution the engine gets wrong: such a result is
 * dropped and `first` kept.
 */
export function shortenSolution(
  rules: Rules,
  start: Layout,
  first: Move[],
  engine: BeamEngine,
  options: ShortenOptions,
): { moves: Move[]; report: ShortenReport } {
  const started = performance.now();
  const firstLength = countedMoves(first);
  let best = first;
  let beamWidth = 0;
  const maxWidth = options.maxWidth ?? DEFAULT_MAX_BEAM_WIDTH;
  if (engine.begin(maxWidth) >= 0) {
    beamWidth = runBeams(engine, maxWidth);
    const found = engine.read();
    if (found !== null && countedMoves(found) < firstLength && checkSolution(rules, start, found).ok) best = found;
  }
  const polished = peephole(rules, start, best);
  if (countedMoves(polished) < countedMoves(best) && checkSolution(rules, start, polished).ok) best = polished;
  return {
    moves: best,
    report: {
      firstLength,
      length: countedMoves(best),
      budgetExhausted: engine.stopped(),
      elapsedMs: elapsedMsSince(started),
      beamWidth,
      budgetMs: options.budgetMs,
    },
  };
}
