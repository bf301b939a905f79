/**
 * Types of one solve as the engine glue returns it (shared by the SDK's local
 * solver, the server's workers and the CLI).
 */
import type { Move } from './moves.js';
import type { ProofOutcome } from './proof/format.js';

/**
 * The three honest answers: `solved` (a solution the independent checker
 * replayed), `unsolvable` (a complete search found none), `unknown` (a
 * budget ran out first).
 */
export const VERDICTS = ['solved', 'unsolvable', 'unknown'] as const;
/** One of {@link VERDICTS}. */
export type Verdict = (typeof VERDICTS)[number];

/**
 * Which budget ended a search whose verdict is `unknown`: the state budget,
 * the deadline, the engine's memory, or a cancellation.
 */
export const UNKNOWN_REASONS = ['max_states', 'timeout', 'memory', 'cancelled'] as const;
/** One of {@link UNKNOWN_REASONS}. */
export type UnknownReason = (typeof UNKNOWN_REASONS)[number];

/** Budgets of one solve. */
export interface SolveLimits {
  /** Most distinct positions the search may store (the state budget). */
  maxStates: number;
  /** Wall-clock deadline in milliseconds from the start of the search. */
  timeoutMs: number;
  /**
   * The layered complete pass (assembly/layers.ts, docs/engine.md "The
   * layered pass"): positions expanded in increasing measure, the keys of
   * closed layers dropped, so a complete search needs far less memory. Only
   * in the compact layout (Beleaguered Castle, Streets and Alleys, Citadel:
   * `layeredApplies`); ignored elsewhere. `true`: the search is the layered
   * pass. `'after_memory'`: the best-first search, and when it ends for
   * memory, the layered pass with the time left (`solveWithProof` only; the
   * CLI's `--deep`). Default: neither. A layered answer has no certificate
   * (the keys of closed layers are gone: no `storedKeys`, no fingerprint).
   */
  layered?: boolean | 'after_memory';
  /**
   * The guided pass (client-sdk/core/guided.ts, docs/search.md §10): beams
   * that look for a solution, never a proof. With `true`, in the no-cell
   * Castle games (`guidedApplies`), `solveWithProof` runs it after a full
   * search that ended undecided (not cancelled) in the time left, and the
   * helper pass beside the full search (server/pool.ts) runs it before its
   * poolings. The CLI's `--deep` and `--guided` set it. Default: off.
   */
  guided?: boolean;
}

/** Counters of one solve. */
export interface SolveStats {
  /** Positions whose moves were generated. */
  statesExpanded: number;
  /** Distinct canonical positions stored in the state table. */
  statesStored: number;
  /** Wall-clock time of the search in milliseconds. */
  elapsedMs: number;
  /** Bytes of Wasm linear memory in use at the end of the search. */
  memoryBytes: number;
}

/** The engine's answer, after the independent checker has replayed any solution. */
export interface SolveOutcome {
  verdict: Verdict;
  /** Set when `verdict` is `unknown`. */
  reason?: UnknownReason;
  /** The solution from the given position to the end (empty unless solved). */
  moves: Move[];
  stats: SolveStats;
  /**
   * Set when `verdict` is `unsolvable` and the solve went through
   * `solveWithProof` (client-sdk/core/proof/writer.ts): positions, reductions,
   * fingerprint, and the certificate when one was asked for.
   */
  proof?: ProofOutcome;
  /** Set when the solve was asked to shorten its solution and it was solved (client-sdk/core/shorten.ts). */
  optimize?: ShortenReport;
  /** Set when the answer is the layered pass's (`SolveLimits.layered`, docs/engine.md "The layered pass"). */
  layered?: LayeredSummary;
  /** Set when the solution is the guided pass's (`SolveLimits.guided`): which beam found it (1-based, `GUIDED_BEAMS` order), its width and cost weights. */
  guided?: { beam: number; width: number; weights: readonly number[] };
}

/** What the shortening did (client-sdk/core/shorten.ts; the `optimize` part of an answer). */
export interface ShortenReport {
  /** Counted moves (without safe auto-moves) of the engine's first solution. */
  firstLength: number;
  /** Counted moves of the solution returned (≤ firstLength). */
  length: number;
  /** True when the time budget ended the shortening before its last beam finished. */
  budgetExhausted: boolean;
  /** Wall-clock milliseconds spent shortening. */
  elapsedMs: number;
  /** Widest beam that ran to its end (0 when none did). */
  beamWidth: number;
  /** The budget it was given, milliseconds. */
  budgetMs: number;
}

/** What the layered pass of a solve held and dropped. */
export interface LayeredSummary {
  /** Most positions whose keys were held at once (the rest of `statesStored` kept only parent and move, 8 bytes each). */
  peakLive: number;
  /** Times the keys of closed layers were dropped. */
  purges: number;
  /**
   * Set when the pass ran over several engines (client-sdk/core/sharded-layers.ts):
   * how many, and each one's peak live positions (`peakLive` is their sum, an
   * upper bound of the live set at any one time).
   */
  shards?: { count: number; peakLive: number[] };
}

/**
 * Milliseconds of `performance.now()` since `started` (a `performance.now()`
 * reading), rounded to the microsecond: the `elapsedMs` of the stats.
 */
export function elapsedMsSince(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
