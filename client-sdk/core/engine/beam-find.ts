/**
 * The guided pass's engine side (docs/search.md §10): beams from the start
 * of a deal with no solution known (assembly/beam.ts `beamFindBegin`), run
 * one after the other until one reaches a goal. `Engine.beamFind` is the
 * entry; the portfolio and when the pass runs are client-sdk/core/guided.ts's.
 */
import type { Deal } from '../rules.js';
import type { Move } from '../moves.js';
import { SolverError } from '../errors.js';
import { elapsedMsSince } from '../solve-types.js';
import { MAX_ENGINE_MEMORY_BYTES, type EngineExports } from './abi.js';
import type { EngineMemory } from './memory.js';
import { DEFAULT_PROGRESS_INTERVAL_MS, wallClock, type ProgressOptions, type SearchPoll } from './poll.js';
import { requireCheckedSolution } from './checked.js';

/**
 * One beam of a guided pass (`Engine.beamFind`): its width (positions per
 * level) and cost weights (assembly/beam-cost.ts `setBeamWeights`: cards not
 * home, cards above the bottom sorted run, occupied cells, empty columns as
 * a bonus, blockers).
 */
export interface GuidedBeam {
  width: number;
  /** Deepest level the beam may reach, counted moves (2..512; default 512, assembly/beam.ts MAX_LEVELS). */
  maxLevels?: number;
  /**
   * log2 of the slots (8 bytes each, 10..28) of a duplicate set over all the
   * beam's levels; 0 or absent: per-level sets only, as the shortening.
   */
  globalSeenLog2?: number;
  weights: readonly [notHome: number, unsorted: number, cells: number, emptyColumns: number, blockers: number];
}

/** What one beam of a guided pass did (`GuidedOutcome.beams`). */
export interface GuidedBeamReport extends GuidedBeam {
  /** The beam reached a goal (its solution is the outcome's, once the checker passed it). */
  found: boolean;
  /** The deadline or a cancel stopped it before its end. */
  stopped: boolean;
  /** The memory cap left no room for its next level: it ended there. */
  outOfMemory: boolean;
  /** Positions it expanded. */
  expanded: number;
  /** Deepest level it expanded (counted moves from the start). */
  levels: number;
  /** Most cards on the foundations in a position it expanded (52 = won). */
  mostHome: number;
  /** Wall-clock ms it ran. */
  elapsedMs: number;
}

/**
 * What `Engine.beamFind` found: `solved` with a solution the independent
 * checker replayed, or `not_found` (which proves nothing: the beams are not
 * complete searches; `reason` says whether they ran to their ends or the
 * deadline, a cancel, the memory or the cap on expanded positions stopped them).
 */
export interface GuidedOutcome {
  verdict: 'solved' | 'not_found';
  reason?: 'exhausted' | 'timeout' | 'cancelled' | 'memory' | 'max_states';
  moves: Move[];
  beams: GuidedBeamReport[];
  stats: { elapsedMs: number; memoryBytes: number; statesExpanded: number };
}

/** Options of `Engine.beamFind`. */
export interface BeamFindOptions {
  /** Widths (1..2,097,152) and cost weights, tried in order. */
  beams: readonly GuidedBeam[];
  /** Deadline of the whole pass, ms of wall clock from the call. */
  timeoutMs: number;
  /** Cancel flag (nonzero at index 0 stops the running beam: `reason: 'cancelled'`). */
  stop?: Int32Array;
  /**
   * Cap on the engine's linear memory, bytes (default and at most
   * MAX_ENGINE_MEMORY_BYTES); a beam that cannot get its level arrays ends
   * there (`reason: 'memory'`).
   */
  memoryLimitBytes?: number;
  /**
   * Most positions all the beams together may expand (the solve's state
   * budget; `reason: 'max_states'` when it ends them); default no cap.
   */
  maxExpanded?: number;
  /** Progress reports as `Engine.solve`'s, with the positions the beams expanded as both counts and the beams' memory. */
  progress?: ProgressOptions;
}

/** The parts of an engine instance the guided pass drives (engine.ts). */
interface BeamFindParts {
  exports: EngineExports;
  io: EngineMemory;
  poll: SearchPoll;
}

/**
 * Runs the guided pass of `deal` on one engine instance (see `Engine.beamFind`).
 * @throws SolverError `solution_check_failed` when the checker rejects a
 *   beam's solution, `engine_error` on an internal inconsistency.
 */
export function beamFind(engine: BeamFindParts, deal: Deal, options: BeamFindOptions): GuidedOutcome {
  const { exports: e, io, poll } = engine;
  const memoryLimitBytes = Math.min(options.memoryLimitBytes ?? MAX_ENGINE_MEMORY_BYTES, MAX_ENGINE_MEMORY_BYTES);
  const maxExpanded = options.maxExpanded ?? Infinity;
  const started = performance.now();
  io.writeInput(deal, undefined);
  poll.stop = options.stop;
  poll.startProgress(options.progress, started, options.progress?.intervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
  poll.beamRunning = true;
  poll.beamBefore = 0;
  poll.clock = wallClock;
  poll.deadline = started + options.timeoutMs;
  const reports: GuidedBeamReport[] = [];
  let memoryBytes = 0;
  let statesExpanded = 0;
  let reason: GuidedOutcome['reason'] = 'exhausted';
  let moves: Move[] = [];
  try {
    for (const beam of options.beams) {
      const t0 = performance.now();
      if (statesExpanded >= maxExpanded) {
        reason = 'max_states';
        break;
      }
      // polled every 256 expansions (assembly/beam.ts POLL_INTERVAL), so a beam may pass its cap by that many
      poll.beamCap = Number.isFinite(maxExpanded) ? Math.max(1, maxExpanded - statesExpanded) : 0;
      if (e.beamFindBegin(beam.width, memoryLimitBytes, beam.maxLevels ?? 512, beam.globalSeenLog2 ?? 0) < 0) {
        if (reports.length === 0) reason = 'memory';
        break;
      }
      e.setBeamWeights(...beam.weights);
      e.shortenBeam(beam.width, 0);
      const found = e.shortenPathMoves() > 0;
      const stopped = e.shortenStopped() !== 0;
      const outOfMemory = Number(e.beamOutOfMemory.value) !== 0;
      memoryBytes = Math.max(memoryBytes, e.shortenMemoryBytes());
      const expanded = Number(e.beamExpanded.value) >>> 0;
      statesExpanded += expanded;
      poll.beamBefore = statesExpanded;
      reports.push({
        ...beam, found, stopped, outOfMemory, expanded,
        levels: Number(e.beamLevelsReached.value), mostHome: Number(e.beamMostHome.value),
        elapsedMs: elapsedMsSince(t0),
      });
      if (found) {
        if (e.shortenWrite() === 0) throw new SolverError('engine_error', 'the beam could not write its solution');
        moves = io.readSolution(deal.rules.foundationBase);
        requireCheckedSolution(deal, moves, "the guided pass's solution");
        break;
      }
      if (outOfMemory) reason = 'memory';
      if (stopped) {
        reason = poll.stop && Atomics.load(poll.stop, 0) !== 0 ? 'cancelled' : statesExpanded >= maxExpanded ? 'max_states' : 'timeout';
        break;
      }
    }
  } finally {
    poll.stop = undefined;
    poll.beamCap = 0;
    poll.beamRunning = false;
    poll.progress = undefined;
  }
  const stats = { elapsedMs: elapsedMsSince(started), memoryBytes, statesExpanded };
  if (moves.length > 0) return { verdict: 'solved', moves, beams: reports, stats };
  return { verdict: 'not_found', reason, moves: [], beams: reports, stats };
}
