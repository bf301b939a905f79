/**
 * The guided pass of the no-cell Castle games (docs/search.md §10): beams
 * from the start with no solution known (assembly/beam.ts `beamFindBegin`,
 * `Engine.beamFind`), a portfolio of cost weights and widths tried in turn.
 * It is not a complete search: a beam keeps only the cheapest positions of
 * each level, so finding nothing proves nothing. It can only add `solved`
 * verdicts, with a solution the independent checker (verify.ts) replayed;
 * `unsolvable` still comes only from complete searches.
 *
 * Where it runs (client-sdk/core/proof/writer.ts): with `limits.guided`
 * (the CLI's `--deep` and `--guided`), after a full search that ended
 * undecided, and first in the helper pass that runs beside the full search
 * on a second worker (server/pool.ts, `solve --threads 2`).
 */
import { layeredApplies, type BeamFindOptions, type Engine, type GuidedBeam } from './engine/index.js';
import type { Deal, Rules } from './rules.js';
import { elapsedMsSince, type SolveOutcome } from './solve-types.js';

/**
 * The beams of the pass, in order. Weights: cards not home, cards above the
 * bottom sorted run, occupied cells (none in these games), empty columns as
 * a bonus, blockers (the cards above each suit's next foundation card).
 * Every beam keeps a set of the positions it expanded over all its levels
 * (2^24 slots, 128 MiB): without it a beam in these games, where every
 * tableau move can be undone, refills its levels with positions it has been
 * through (Streets and Alleys 12, solvable, is found only with it). Chosen
 * on Streets and Alleys 226, 958, 211 (docs/benchmarks.md "The guided
 * pass"): (1,0,0,1,4) at 16,384 found 226 in 5 CPU s, (1,0,0,1,2) 958 in
 * 10 s; (2,4,0,2,1), the shortening's cost without cells, finds most easy
 * deals at 4,096.
 */
export const GUIDED_BEAMS: readonly GuidedBeam[] = [
  { width: 4096, weights: [2, 4, 0, 2, 1], maxLevels: 300, globalSeenLog2: 22 },
  { width: 16384, weights: [1, 0, 0, 1, 4], maxLevels: 300, globalSeenLog2: 24 },
  { width: 16384, weights: [1, 0, 0, 1, 2], maxLevels: 300, globalSeenLog2: 24 },
  { width: 65536, weights: [1, 0, 0, 1, 4], maxLevels: 300, globalSeenLog2: 25 },
  { width: 65536, weights: [1, 0, 0, 1, 2], maxLevels: 300, globalSeenLog2: 25 },
  { width: 65536, weights: [2, 4, 0, 2, 1], maxLevels: 300, globalSeenLog2: 25 },
];

/**
 * Longest the guided pass may run, wall ms: the portfolio above takes about
 * 2 CPU minutes when nothing is found; a deal none of its beams finds in that
 * time goes on to the complete passes.
 */
export const GUIDED_PASS_MAX_MS = 180_000;

/** Least time left, ms, for which the guided pass starts. */
export const GUIDED_PASS_MIN_MS = 1_000;

/** True for the games the guided pass runs in: the no-cell Castle games that build by rank (Beleaguered Castle, Streets and Alleys, Citadel). */
export function guidedApplies(rules: Rules): boolean {
  return layeredApplies(rules);
}

/**
 * Options of `guidedPass`: `Engine.beamFind`'s, where `beams` defaults to
 * GUIDED_BEAMS, `timeoutMs` is capped at GUIDED_PASS_MAX_MS, and
 * `maxExpanded` (the solve's state budget, which counts the beams' expanded
 * positions here) must be given.
 */
export interface GuidedPassOptions extends Omit<BeamFindOptions, 'beams' | 'maxExpanded'> {
  beams?: readonly GuidedBeam[];
  maxExpanded: number;
}

/**
 * Runs the guided pass on `deal` for at most `options.timeoutMs` (wall
 * clock, capped at GUIDED_PASS_MAX_MS) and `options.maxExpanded` positions
 * expanded. Returns a `solved` outcome with the checked solution (`stats`:
 * positions the beams expanded, none stored, the beams' memory), or
 * undefined when no beam found one, the time ran out or `stop` was set, or
 * less than GUIDED_PASS_MIN_MS was given. The engine's arena is taken: the
 * state table of its last solve is gone afterwards, and its solution buffer
 * holds the found solution (so `Engine.shorten` can follow).
 * @throws SolverError as `Engine.beamFind`.
 */
export function guidedPass(engine: Engine, deal: Deal, options: GuidedPassOptions): SolveOutcome | undefined {
  if (options.timeoutMs < GUIDED_PASS_MIN_MS) return undefined;
  const started = performance.now();
  const found = engine.beamFind(deal, { ...options, beams: options.beams ?? GUIDED_BEAMS, timeoutMs: Math.min(options.timeoutMs, GUIDED_PASS_MAX_MS) });
  if (found.verdict !== 'solved') return undefined;
  return {
    verdict: 'solved',
    moves: found.moves,
    stats: { statesExpanded: found.stats.statesExpanded, statesStored: 0, elapsedMs: elapsedMsSince(started), memoryBytes: found.stats.memoryBytes },
    guided: { beam: found.beams.length, width: found.beams[found.beams.length - 1].width, weights: found.beams[found.beams.length - 1].weights },
  };
}
