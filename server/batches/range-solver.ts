/**
 * Solving a sub-range of a batch's deals as one piece of work, for the
 * batches that keep exceptions only (census.ts): the answer is the
 * sub-range's census summary and the results to store one by one, or why
 * the sub-range has no answer (stopped, refused, lost as a whole). Both
 * batch backends call a `RangeSolver`: the embedded scheduler for each
 * sub-range it hands out, a `redis` worker for each group of a job's deals.
 *
 * `perDealRangeSolver` is the solver over today's pool: it deals the deals
 * on the calling thread, hands them to `pool.solveManyPacked` (a shared
 * run; one deal goes through `pool.solve`), reads each deal's answer, and
 * summarises them here (`summariseRange`). The worker pool's range task
 * does the same on a worker thread, dealing the deals itself and sending
 * back the summary and the exceptions only; then the calling thread does
 * no per-deal work. `RangeAnswer` is the shape both give.
 */
import { SolverError } from '../../client-sdk/core/errors.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import type { PackedOutcome, SolveFn } from '../pool.js';
import { summariseRange, type CensusSummary, type ResultsMode } from './census.js';
import { failedResult, outcomeResult, type BatchSpec, type ResultInput } from './model.js';
import { dealAt } from './positions.js';

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

/** What `perDealRangeSolver` needs from the pool. */
export interface PerDealPool {
  /** `pool.solve`. */
  solve: SolveFn;
  /** `pool.solveManyPacked`; absent: the sub-ranges must be of one deal. */
  solveManyPacked?: (deals: readonly Deal[], limits: SolveLimits, signal?: AbortSignal) => Promise<(PackedOutcome | SolverError)[]>;
}

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

/**
 * The range solver over a per-deal pool (see the module comment): deals
 * [lo, hi) here, solves them as one shared run, summarises the answers here.
 */
export function perDealRangeSolver(pool: PerDealPool): RangeSolver {
  return async (job, signal) => {
    const deals: Deal[] = [];
    const indices: number[] = [];
    const results: ResultInput[] = [];
    for (let index = job.lo; index < job.hi; index++) {
      try {
        deals.push(dealAt(job.spec, index));
        indices.push(index);
      } catch (err) {
        // Validated when the batch was created; only a changed preset could get here.
        results.push(failedResult(index, err));
      }
    }
    let answers: readonly (PackedOutcome | SolveOutcome | SolverError)[] = [];
    try {
      if (deals.length === 1) answers = [await pool.solve(deals[0], job.spec.limits, signal)];
      else if (deals.length > 1) {
        if (!pool.solveManyPacked) throw new RangeError('a sub-range of several deals needs pool.solveManyPacked');
        answers = await pool.solveManyPacked(deals, job.spec.limits, signal);
      }
    } catch (err) {
      if (signal.aborted) return { kind: 'stopped' };
      if (err instanceof SolverError && err.code === 'overloaded') return { kind: 'overloaded' };
      // one deal alone: its failure is its result (as for a deal of a batch that keeps all)
      if (deals.length === 1) answers = [err as SolverError];
      else return { kind: 'failed', error: err };
    }
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
