/**
 * How both batch backends hand a batch's deals to the pool (the embedded
 * scheduler, embedded/scheduler.ts; the `redis` workers' consumer,
 * redis/consumer.ts), in either results mode:
 * - the chunk rule (`DealTimes`): as many consecutive deals a pool job as
 *   fit in `chunkMs` of one worker by the batch's running mean time a deal
 *   (one until a deal has been timed, at most MAX_CHUNK);
 * - the source (`sourceOf`, `rangeSource`): each job named by what the
 *   workers deal themselves (a numbered range, or the requests of a list or
 *   boards), so that no deal is dealt on the calling thread;
 * - the pool call (`solveIndices` for the deals of a batch that keeps every
 *   result; range-solver.ts for a sub-range of one that keeps exceptions).
 * Which job runs first (interactive solves before batches) is the pool's to
 * decide, for both alike (server/pool/queue.ts).
 */
import type { SolverError } from '../../client-sdk/core/errors.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import type { BatchSource, CensusPart, PackedOutcome, SolveFn } from '../pool.js';
import { dealAt, requestAt } from './positions.js';
import type { BatchSpec } from './model.js';

/** Most deals in one pool job of a batch (a chunk of deals, or a census sub-range). */
export const MAX_CHUNK = 1024;
/** Weight of the newest deal in a batch's running mean time a deal. */
const DEAL_MS_WEIGHT = 0.1;

/** What the batch backends need of the pool (server/pool.ts `SolverPool`; tests give fakes). */
export interface BatchPool {
  /** One deal, as batch work (`pool.solve` with `BATCH_SOLVE`). */
  solve: SolveFn;
  /** `pool.solveBatch`: several deals as one shared run that the workers deal themselves, each solution left as bytes. */
  solveBatch?: (source: BatchSource, limits: SolveLimits, signal?: AbortSignal) => Promise<(PackedOutcome | SolverError)[]>;
  /**
   * Several deals dealt by the caller as one shared run: for a pool without
   * `solveBatch` (the tests' fakes). Absent with `solveBatch`: one deal a task.
   */
  solveManyPacked?: (deals: readonly Deal[], limits: SolveLimits, signal?: AbortSignal) => Promise<(PackedOutcome | SolverError)[]>;
  /** `pool.solveCensus`: a census sub-range dealt and counted by the workers (range-solver.ts). */
  solveCensus?: (source: BatchSource, limits: SolveLimits, signal?: AbortSignal) => Promise<CensusPart>;
}

/** True when `pool` takes several deals in one call. */
export function takesChunks(pool: BatchPool): boolean {
  return pool.solveBatch !== undefined || pool.solveManyPacked !== undefined || pool.solveCensus !== undefined;
}

/** Running mean of the engine's time a deal, by batch (at most `memory` batches remembered). */
export class DealTimes {
  readonly #mean = new Map<string, number>();
  readonly #memory: number;

  constructor(memory = 256) {
    this.#memory = memory;
  }

  /** Adds `n` decided deals of mean engine time `ms` to batch `id`'s mean (n deals weigh n times one, up to replacing it). */
  observe(id: string, ms: number, n = 1): void {
    const before = this.#mean.get(id);
    if (before === undefined && this.#mean.size >= this.#memory) this.#mean.delete(this.#mean.keys().next().value!);
    this.#mean.set(id, before === undefined ? ms : before + Math.min(1, DEAL_MS_WEIGHT * n) * (ms - before));
  }

  /** Deals in batch `id`'s next job: as many as fit in `chunkMs` by its mean (1 until a deal is timed; `chunkMs` 0: always 1). */
  chunkSize(id: string, chunkMs: number): number {
    const ms = this.#mean.get(id);
    if (chunkMs === 0 || ms === undefined) return 1;
    return Math.max(1, Math.min(MAX_CHUNK, Math.floor(chunkMs / Math.max(ms, 0.01))));
  }

  forget(id: string): void {
    this.#mean.delete(id);
  }
}

/** The numbered range of deal indices [lo, hi) of a batch of a range, for the workers to deal. */
export function rangeSource(spec: BatchSpec, lo: number, hi: number): BatchSource | undefined {
  const p = spec.positions;
  if (p.kind !== 'range' || spec.numbering === null || hi <= lo) return undefined;
  return {
    kind: 'range',
    template: { game: spec.game, numbering: spec.numbering, ...(spec.rulesOverride !== undefined ? { rules: spec.rulesOverride } : {}) },
    first: String(BigInt(p.from) + BigInt(lo)),
    count: hi - lo,
  };
}

/**
 * The pool job's deals for deal indices `indices` of a batch: the range
 * `first..first+count-1` when they are consecutive indices of a numbered
 * range, else one request each (a list's deal numbers, boards), in order.
 */
export function sourceOf(spec: BatchSpec, indices: readonly number[]): BatchSource {
  const consecutive = indices.every((index, k) => k === 0 || index === indices[k - 1] + 1);
  const range = consecutive && indices.length > 0 ? rangeSource(spec, indices[0], indices[indices.length - 1] + 1) : undefined;
  return range ?? { kind: 'requests', requests: indices.map((index) => requestAt(spec, index)) };
}

/**
 * Solves deals `indices` of a batch as one pool call: the workers deal them
 * (`solveBatch`), or, for a pool without it, they are dealt here and go as
 * one shared run (`solveManyPacked`) or alone (`solve`).
 * @returns one answer a deal of `indices`, in order: its outcome (packed or
 *   not), or that deal's own error (a deal that cannot be dealt: its error).
 * @throws what the pool call throws (`overloaded`, a lost worker's error).
 */
export async function solveIndices(pool: BatchPool, spec: BatchSpec, indices: readonly number[], signal: AbortSignal): Promise<unknown[]> {
  if (pool.solveBatch) return pool.solveBatch(sourceOf(spec, indices), spec.limits, signal);
  const answers: unknown[] = new Array(indices.length);
  const deals: Deal[] = [];
  const at: number[] = [];
  indices.forEach((index, k) => {
    try {
      deals.push(dealAt(spec, index));
      at.push(k);
    } catch (err) {
      // validated when the batch was created; only a changed preset could get here
      answers[k] = err;
    }
  });
  let solved: readonly (PackedOutcome | SolveOutcome | SolverError)[] = [];
  if (deals.length === 1) solved = [await pool.solve(deals[0], spec.limits, signal)];
  else if (deals.length > 1) {
    if (!pool.solveManyPacked) throw new RangeError('several deals a call need pool.solveBatch or pool.solveManyPacked');
    solved = await pool.solveManyPacked(deals, spec.limits, signal);
  }
  at.forEach((k, j) => (answers[k] = solved[j]));
  return answers;
}
