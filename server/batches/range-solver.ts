/**
 * Solving a sub-range of a batch's deals as one piece of work, for the
 * batches that keep exceptions only (census.ts): the answer is the
 * sub-range's census summary and the results to store one by one, or why
 * the sub-range has no answer (stopped, refused, lost as a whole). Both
 * batch backends call a `RangeSolver`: the embedded scheduler for each
 * sub-range it hands out, a `redis` worker for each group of a job's deals.
 *
 * `poolRangeSolver` is the one over the pool (chunks.ts `BatchPool`): with
 * `pool.solveCensus` (the solver pool's), the workers deal the sub-range,
 * solve it and count it themselves, sending back the summary and the
 * exceptions only, so the calling thread does no work a deal; a pool
 * without it (the tests' fakes) answers each deal (`solveIndices`) and the
 * answers are summarised here. `RangeAnswer` is the shape both give.
 */
import { SolverError } from '../../client-sdk/core/errors.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import type { CensusPart, PackedOutcome } from '../pool.js';
import { summariseRange, type CensusSummary, type ResultsMode } from './census.js';
import { rangeSource, solveIndices, sourceOf, type BatchPool } from './chunks.js';
import { failedResult, outcomeResult, type BatchSpec, type ResultInput } from './model.js';

/** A sub-range of a batch to solve: the deal indices [lo, hi) of `spec`. */
export interface RangeJob {
  spec: BatchSpec;
  lo: number;
  hi: number;
  mode: ResultsMode;
}

/**
 * How a sub-range's solve ended:
 * - `done`: every deal has a verdict (or failed on its own: an `error`
 *   result); `summary` counts them all, `kept` are the results to store one
 *   by one (census.ts `summariseRange`);
 * - `stopped`: a deal was stopped (cancel, shutdown) before its verdict;
 *   nothing of the sub-range counts, it is solved again later;
 * - `overloaded`: the pool refused work (full or closing); try again later;
 * - `failed`: the task failed as a whole (a worker lost): solve each of its
 *   deals again alone, so that one bad deal cannot fail the others.
 */
export type RangeAnswer =
  | { kind: 'done'; summary: CensusSummary; kept: ResultInput[] }
  | { kind: 'stopped' }
  | { kind: 'overloaded' }
  | { kind: 'failed'; error: unknown };

/** Solves a sub-range; stopped through `signal`. Never rejects: a failure is an answer. */
export type RangeSolver = (job: RangeJob, signal: AbortSignal) => Promise<RangeAnswer>;

/**
 * One deal's answer from the pool (an outcome, packed or not, or the error
 * of its solve) as the result to count, or why it has none: `stopped` (its
 * solve was stopped: `aborted`, or the engine's reason `cancelled`) or
 * `overloaded` (the pool refused it). An error of the solve itself is an
 * `error` result of the deal.
 */
export function answerResult(index: number, answer: PackedOutcome | SolveOutcome | unknown, aborted: boolean): ResultInput | 'stopped' | 'overloaded' {
  const packed = isPackedOutcome(answer) ? answer : undefined;
  const given = packed !== undefined ? packed.outcome : answer;
  if (given instanceof SolverError || !isOutcome(given)) {
    if (aborted) return 'stopped';
    if (given instanceof SolverError && given.code === 'overloaded') return 'overloaded';
    return failedResult(index, given);
  }
  // A stopped solve is not a verdict on the deal.
  if (aborted || given.reason === 'cancelled') return 'stopped';
  return outcomeResult(index, given, packed?.moves);
}

/** The range solver over `pool` (see the module comment). */
export function poolRangeSolver(pool: BatchPool): RangeSolver {
  return async (job, signal) => {
    const indices = Array.from({ length: job.hi - job.lo }, (_, k) => job.lo + k);
    // a numbered range crosses as its first number and count; a list's deals or boards as their requests
    const source = pool.solveCensus && job.mode === 'exceptions' ? (rangeSource(job.spec, job.lo, job.hi) ?? sourceOf(job.spec, indices)) : undefined;
    let part: CensusPart | undefined;
    let answers: readonly unknown[] = [];
    try {
      if (source !== undefined) part = await pool.solveCensus!(source, job.spec.limits, signal);
      else answers = await solveIndices(pool, job.spec, indices, signal);
    } catch (err) {
      if (signal.aborted) return { kind: 'stopped' };
      if (err instanceof SolverError && err.code === 'overloaded') return { kind: 'overloaded' };
      // one deal alone: its failure is its result (as for a deal of a batch that keeps all)
      if (indices.length > 1) return { kind: 'failed', error: err };
      answers = [err];
    }
    if (part !== undefined) {
      if (signal.aborted || part.stopped > 0) return { kind: 'stopped' };
      // the workers number a deal by its place in the sub-range
      for (const r of part.kept) r.index += job.lo;
      return { kind: 'done', summary: part.summary, kept: part.kept };
    }
    const results: ResultInput[] = [];
    let refused = false;
    for (let k = 0; k < answers.length; k++) {
      const result = answerResult(indices[k], answers[k], signal.aborted);
      if (result === 'stopped') return { kind: 'stopped' };
      if (result === 'overloaded') refused = true;
      else results.push(result);
    }
    if (refused) return { kind: 'overloaded' };
    const { summary, kept } = summariseRange(results, job.mode);
    return { kind: 'done', summary, kept };
  };
}

/** True for an answer of `solveManyPacked`: an outcome with its moves as bytes. */
function isPackedOutcome(value: unknown): value is PackedOutcome {
  return typeof value === 'object' && value !== null && 'outcome' in value && 'moves' in value && value.moves instanceof Uint8Array;
}

/** True for an engine outcome (as opposed to a thrown value). */
function isOutcome(value: unknown): value is SolveOutcome {
  return typeof value === 'object' && value !== null && 'verdict' in value && 'stats' in value;
}
