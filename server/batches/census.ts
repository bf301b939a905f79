/**
 * What a batch keeps of its deals, and the census summary: counts by
 * verdict, sums and histograms, in a form that merges exactly.
 *
 * A batch keeps its results one of two ways (`ResultsMode`):
 * - `all`: every deal's result is stored one by one (with its solution);
 * - `exceptions`: only the deals that are not solved (unsolvable, unknown,
 *   error) are stored one by one; the solved deals are only counted, in
 *   the summary.
 * Both modes keep the same summary.
 *
 * The summary of a set of deals is a sum over its deals, so the summary of
 * a union of disjoint sets is the sum of their summaries (`mergeSummary`):
 * every field is an integer count or an integer sum, and every histogram
 * has fixed bucket edges, so merging is adding, exact and in any order.
 * This is what lets a sub-range of a batch be summarised where it was
 * solved (a worker thread, a worker machine) and merged into the batch's
 * summary on commit (the SQLite store, the Redis `RECORD_RANGE` script),
 * atomically with its exceptions and its "done" mark.
 *
 * Bucket edges (`positionBucket`, `timeBucket`):
 * - moves: one bucket per move count (`moves[94]` = solved deals of 94 moves);
 * - positions (the engine's `statesExpanded`): bucket 0 holds 0, bucket
 *   b ≥ 1 holds [2^(b-1), 2^b);
 * - time (the engine's `elapsedMs`, rounded to whole microseconds):
 *   bucket 0 holds 0 µs, bucket b ≥ 1 holds [2^(b-1), 2^b) µs.
 * The histograms describe the solved deals; the other deals are the
 * exceptions, listed one by one with their own numbers. `sumElapsedUs`
 * and `sumPositions` are over every counted deal.
 *
 * Pure: no I/O, no clock, no dependency but the types, so that a worker
 * thread can run `summariseRange` over the outcomes of a sub-range it
 * dealt and solved itself.
 */
import type { BatchVerdict } from '../../client-sdk/api/batch-schemas.js';
import { PACKED_MOVE_BYTES } from '../../client-sdk/core/moves.js';

/**
 * What the summary reads of one deal's result (model.ts `ResultInput` has
 * these and more): its verdict, its solution (moves, or packed 8 bytes a
 * move), positions expanded and engine time in ms.
 */
export interface CensusResult {
  verdict: BatchVerdict;
  moves: readonly unknown[];
  packedMoves?: Uint8Array;
  statesExpanded: number;
  elapsedMs: number;
}

/** What a batch keeps: every result (`all`), or only the deals not solved (`exceptions`). */
export type ResultsMode = 'all' | 'exceptions';

/** Every results mode, the default first. */
export const RESULTS_MODES: readonly ResultsMode[] = ['all', 'exceptions'];

/** The verdicts stored one by one in `exceptions` mode. */
export const EXCEPTION_VERDICTS: readonly BatchVerdict[] = ['unsolvable', 'unknown', 'error'];

/** A sparse histogram: bucket number → deals (buckets with no deal are absent). */
export type Histogram = Record<number, number>;

/**
 * The census summary of a set of deals (see the module comment): counts by
 * verdict, integer sums, and three fixed-edge histograms of the solved deals.
 */
export interface CensusSummary {
  solved: number;
  unsolvable: number;
  unknown: number;
  /** Deals whose solve failed (verdict `error`). */
  errors: number;
  /** Sum of the solved deals' move counts. */
  sumMoves: number;
  /** Sum of every counted deal's engine time, whole microseconds (each deal rounded). */
  sumElapsedUs: number;
  /** Sum of every counted deal's positions expanded (`statesExpanded`). */
  sumPositions: number;
  /** Solved deals by move count. */
  moves: Histogram;
  /** Solved deals by `positionBucket(statesExpanded)`. */
  positions: Histogram;
  /** Solved deals by `timeBucket(elapsedMs)`. */
  time: Histogram;
}

/** The summary of no deal. */
export function emptySummary(): CensusSummary {
  return { solved: 0, unsolvable: 0, unknown: 0, errors: 0, sumMoves: 0, sumElapsedUs: 0, sumPositions: 0, moves: {}, positions: {}, time: {} };
}

/** Deals a summary counts. */
export function summaryCount(s: CensusSummary): number {
  return s.solved + s.unsolvable + s.unknown + s.errors;
}

/**
 * The number of binary digits of a non-negative integer `n` below 2^53
 * (0 for 0): the histogram bucket of `n` (bucket b ≥ 1 holds [2^(b-1), 2^b)).
 * Exact for every safe integer (no floating-point logarithm).
 */
export function bitLength(n: number): number {
  if (n < 1) return 0;
  if (n < 2 ** 32) return 32 - Math.clz32(n);
  return 32 + (32 - Math.clz32(Math.floor(n / 2 ** 32)));
}

/** The positions bucket of `statesExpanded` (see the module comment). */
export function positionBucket(statesExpanded: number): number {
  return bitLength(Math.max(0, Math.floor(statesExpanded)));
}

/** `elapsedMs` as whole microseconds, as the summary sums and buckets it. */
export function elapsedUs(elapsedMs: number): number {
  return Math.max(0, Math.round(elapsedMs * 1000));
}

/** The time bucket of an engine time in ms (see the module comment). */
export function timeBucket(elapsedMs: number): number {
  return bitLength(elapsedUs(elapsedMs));
}

/** The half-open range [from, to) of values bucket `b` holds (positions, or µs for time). */
export function bucketRange(b: number): { from: number; to: number } {
  return b === 0 ? { from: 0, to: 1 } : { from: 2 ** (b - 1), to: 2 ** b };
}

/** Whether a deal of `verdict` is stored one by one in `mode`. */
export function keepsResult(mode: ResultsMode, verdict: BatchVerdict): boolean {
  return mode === 'all' || verdict !== 'solved';
}

function bump(h: Histogram, bucket: number, by = 1): void {
  h[bucket] = (h[bucket] ?? 0) + by;
}

/** The number of moves of `r`'s solution, packed or not. */
export function resultMoveCount(r: CensusResult): number {
  return r.packedMoves !== undefined ? r.packedMoves.length / PACKED_MOVE_BYTES : r.moves.length;
}

/** Adds one deal's result to `s` (in place) and returns `s`. */
export function addToSummary(s: CensusSummary, r: CensusResult): CensusSummary {
  const us = elapsedUs(r.elapsedMs);
  const positions = Math.max(0, Math.floor(r.statesExpanded));
  s.sumElapsedUs += us;
  s.sumPositions += positions;
  switch (r.verdict) {
    case 'solved': {
      const moves = resultMoveCount(r);
      s.solved++;
      s.sumMoves += moves;
      bump(s.moves, moves);
      bump(s.positions, bitLength(positions));
      bump(s.time, bitLength(us));
      break;
    }
    case 'unsolvable':
      s.unsolvable++;
      break;
    case 'unknown':
      s.unknown++;
      break;
    case 'error':
      s.errors++;
      break;
  }
  return s;
}

/** Adds `b` into `a` (in place) and returns `a`: the summary of the union of two disjoint sets of deals. */
export function mergeSummary(a: CensusSummary, b: CensusSummary): CensusSummary {
  a.solved += b.solved;
  a.unsolvable += b.unsolvable;
  a.unknown += b.unknown;
  a.errors += b.errors;
  a.sumMoves += b.sumMoves;
  a.sumElapsedUs += b.sumElapsedUs;
  a.sumPositions += b.sumPositions;
  for (const key of ['moves', 'positions', 'time'] as const) {
    for (const [bucket, n] of Object.entries(b[key])) bump(a[key], Number(bucket), n);
  }
  return a;
}

/** A sub-range's outcome as its solver hands it over: its summary and the results to store one by one. */
export interface RangeSummary<R extends CensusResult = CensusResult> {
  summary: CensusSummary;
  /** The results kept one by one (`keepsResult`), in the order given. */
  kept: R[];
}

/**
 * Summarises the results of the deals of one sub-range: every result is
 * counted in `summary`; those the mode keeps are returned in `kept` (all of
 * them in `all` mode, the unsolvable, unknown and error ones in
 * `exceptions` mode).
 */
export function summariseRange<R extends CensusResult>(results: Iterable<R>, mode: ResultsMode): RangeSummary<R> {
  const summary = emptySummary();
  const kept: R[] = [];
  for (const r of results) {
    addToSummary(summary, r);
    if (keepsResult(mode, r.verdict)) kept.push(r);
  }
  return { summary, kept };
}

/** A summary read back from JSON (`JSON.stringify` of a `CensusSummary`); a missing or partial one is completed with zeros. */
export function parseSummary(text: string | null | undefined): CensusSummary {
  const s = emptySummary();
  if (!text) return s;
  return mergeSummary(s, { ...emptySummary(), ...(JSON.parse(text) as Partial<CensusSummary>) });
}

// ------------------------------------------------------------ Redis form

/**
 * The summary as Redis hash increments: [field, increment, ...] for HINCRBY
 * (every field an integer), zero fields left out. Histogram buckets are
 * fields `m:<moves>`, `p:<bucket>`, `t:<bucket>`; the counts and sums keep
 * their names, with `errors` for the error count (the batch hash's fields).
 */
export function summaryIncrements(s: CensusSummary): (string | number)[] {
  const out: (string | number)[] = [];
  const put = (field: string, n: number) => {
    if (n !== 0) out.push(field, n);
  };
  put('solved', s.solved);
  put('unsolvable', s.unsolvable);
  put('unknown', s.unknown);
  put('errors', s.errors);
  put('sumMoves', s.sumMoves);
  put('sumElapsedUs', s.sumElapsedUs);
  put('sumPositions', s.sumPositions);
  for (const [prefix, h] of [['m', s.moves], ['p', s.positions], ['t', s.time]] as const) {
    for (const [bucket, n] of Object.entries(h)) put(`${prefix}:${bucket}`, n);
  }
  return out;
}

/** The summary held in a Redis hash (HGETALL as an object; the inverse of `summaryIncrements`, other fields ignored). */
export function summaryFromHash(h: Record<string, string>): CensusSummary {
  const s = emptySummary();
  const n = (field: string) => Number(h[field] ?? 0);
  s.solved = n('solved');
  s.unsolvable = n('unsolvable');
  s.unknown = n('unknown');
  s.errors = n('errors');
  s.sumMoves = n('sumMoves');
  s.sumElapsedUs = n('sumElapsedUs');
  s.sumPositions = n('sumPositions');
  for (const [field, value] of Object.entries(h)) {
    const m = /^([mpt]):(\d+)$/.exec(field);
    if (!m) continue;
    const h2 = m[1] === 'm' ? s.moves : m[1] === 'p' ? s.positions : s.time;
    h2[Number(m[2])] = Number(value);
  }
  return s;
}
