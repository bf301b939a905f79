/**
 * The one wire format between the pool (server/pool.ts) and its workers
 * (server/pool-worker.ts, and the tests' fixture workers, which run the same
 * `runWireTask`): structured-clonable plain data, no shared buffer but a
 * progress slot (the flags are in the pool's `SharedFlags`, handed to every
 * worker once).
 *
 * A task (`WireTask`) is one or more jobs (`WireJob`) run in turn on one
 * worker: a job alone, a group of single solves, or one share of a job
 * whose deals several workers claim. A job names its deals (`DealSource`):
 * deals the caller made (packed), a numbered range or list that the worker
 * deals itself, boards, or the one request of `POST /v1/solve`. Its answer
 * (`JobAnswer`) holds every deal the task ran, packed (packing.ts), and for
 * a request job the response's bytes, which the worker builds.
 *
 * Answer modes (`WireJob.answer`): `outcomes` (each deal's outcome, its
 * moves packed), `response` (the outcome and the HTTP answer's bytes) and
 * `census` (the job's deals counted where they were solved: a census
 * summary and the exceptions only, server/batches/census.ts, so that a
 * batch that keeps exceptions costs the pool's thread nothing a deal). The
 * worker's `runJob` (worker-run.ts) adds each deal's outcome to the job's
 * answer in its mode; the pool's `Job.take` (job.ts) merges the answers of
 * a job's shares.
 *
 * Errors travel as data (`DealFailure`): structured cloning keeps an
 * Error's message but drops its `code`, which chooses the HTTP status.
 */
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import { SolverError, type ErrorCode, type ErrorLocation } from '../../client-sdk/core/errors.js';
import type { ProofRequest } from '../../client-sdk/core/proof/format.js';
import type { RulesOverride } from '../../client-sdk/api/schemas.js';
import type { Numbering } from '../../client-sdk/core/rules.js';
import type { SuitPools } from '../../client-sdk/core/pools.js';
import type { ShortenOptions } from '../../client-sdk/core/shorten.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import type { FlagSizes } from './flags.js';
import type { DealFailure, PackedAnswers, PackedDeals } from './packing.js';

export type { DealFailure } from './packing.js';
import type { CensusSummary } from '../batches/census.js';
import type { ResultInput } from '../batches/model.js';

/** What the pool hands every worker once, in `workerData`. */
export interface PoolWorkerData {
  /** The engine's compiled module (structured-cloned, not recompiled). Absent for fixture workers. */
  module?: WebAssembly.Module;
  /** The pool's `SharedFlags` buffer and sizes. */
  flags: SharedArrayBuffer;
  sizes: FlagSizes;
  /** Cap on each search's engine memory, bytes; absent: the engine's maximum. */
  memoryLimitBytes?: number;
  /** Engine memory past which a worker asks to be retired once its deal ends, bytes; absent: never. */
  recycleMemoryBytes?: number;
}

/** A game, its numbering and rule overrides: what a numbered deal needs besides its number. */
export interface DealTemplate {
  game: string;
  numbering: Numbering;
  rules?: RulesOverride;
}

/** Where a job's deals come from; deal `i` is the i-th of the source. */
export type DealSource =
  /** Deals the caller made, packed (packing.ts); `given` when a deal does not fit the packing (a test fixture's fields). */
  | { kind: 'packed'; packed: PackedDeals }
  | { kind: 'given'; deals: unknown[] }
  /** Deal numbers `first`, `first + 1`, ... `first + count - 1` (decimal, may pass 2^53), dealt by the worker. */
  | { kind: 'range'; template: DealTemplate; first: string; count: number }
  /** Requests as `POST /v1/solve` takes them (deal numbers of a list, boards), resolved by the worker. */
  | { kind: 'requests'; requests: SolveRequest[] };

/** How the worker builds a request job's response (`answer: 'response'`). */
export interface ResponseSpec {
  /** `solve`: the JSON answer of `POST /v1/solve`; `proofs`: `POST /v1/proofs` (the certificate, or that JSON). */
  route: 'solve' | 'proofs';
  /** The game id the answer names. */
  game: string;
  /** The budgets the answer states (`stats.limits`). */
  limits: SolveLimits;
}

/** How a job's deals are answered (see the file comment). */
export type AnswerMode = 'outcomes' | 'response' | 'census';

/**
 * What a task's share of a `census` job counted: the summary of the deals
 * it decided (a failed deal counts as an `error`), those census.ts keeps
 * one by one (`index`: the deal's index in the job), and the deals that
 * were stopped before their verdict (counted nowhere).
 */
export interface CensusPart {
  summary: CensusSummary;
  kept: ResultInput[];
  stopped: number;
}

/** One job of a task. */
export interface WireJob {
  /** Its slot in the pool's `SharedFlags`: stop, claims, finished count, pooled-pass claim. */
  slot: number;
  source: DealSource;
  /** Deals in the source. */
  count: number;
  limits: SolveLimits;
  /**
   * `Date.now()` by which the job's searches end: a deal that begins later
   * than `deadline - limits.timeoutMs` gets only the time left (a request's
   * time counts from its arrival, its wait included); Infinity: each deal
   * has its own `limits.timeoutMs` only.
   */
  deadline: number;
  answer: AnswerMode;
  /** With `answer: 'response'`: what to build. */
  response?: ResponseSpec;
  /** True for a job several tasks share: each claims deals until none is left. */
  shared?: boolean;
  /** A batch job's share: gives its worker up after a deal when the pool says jobs above batches wait (`SharedFlags.yieldRequested`). */
  yields?: boolean;
  /** Build the certificate of an `unsolvable` verdict within these caps. */
  proof?: ProofRequest;
  /** Shorten a found solution within this budget. */
  optimize?: ShortenOptions;
  /** A progress slot (progress.ts) the worker writes the search's counters to. */
  progress?: Float64Array;
  /**
   * `pooled`: only the pooled pass of a Castle-family deal (the pool's
   * helper pass), within `limits`; default: the full search, then the
   * pooled pass unless another worker claimed it.
   */
  pass?: 'pooled';
  /** With `pass: 'pooled'`: the poolings to try, in this order (default `POOLINGS_TO_TRY`). */
  poolings?: SuitPools[];
  /** With `pass: 'pooled'`: job slots of the searches this pass runs beside, stopped the moment it proves or solves. */
  stopOnProof?: number[];
  /** With `pass: 'pooled'`: the job slot whose pooled pass this one runs (its claim is checked there). */
  helps?: number;
}

/** One task: jobs run in turn on one worker. `id` names it in the worker's flags while it runs. */
export interface WireTask {
  id: number;
  jobs: WireJob[];
}

/** The response a worker built for a request job. */
export interface WireResponse {
  /** The body: the JSON answer, or (`certificate` set) the certificate file. */
  body: Uint8Array;
  /** Set when the body is a certificate (`POST /v1/proofs`): what its headers say. */
  certificate?: { positions: number; fingerprint: string; filename: string };
}

/** A job's answer from one task. */
export interface JobAnswer {
  slot: number;
  /** The deals this task ran of the job, in the order it ran them. */
  packed: PackedAnswers;
  /** For a shared job: each answered deal's index in the job, in `packed`'s order. */
  claimed?: number[];
  /** With `answer: 'response'`: the response of the job's one deal (absent when it failed or was not run). */
  response?: WireResponse;
  /** With `answer: 'census'`: what this task counted (`packed` then holds no deal). */
  census?: CensusPart;
}

/** A task's answer: one entry a job, in the task's order. */
export interface WireAnswer {
  jobs: JobAnswer[];
}

/**
 * Classifies an error thrown while solving into the failure the worker
 * reports. The code says what happened; the message is safe to send (no
 * stack, no path); `detail` keeps the rest for the log.
 *
 * - `SolverError`: its own code and message (e.g. `solution_check_failed`,
 *   or a 4xx of a request's position);
 * - `WebAssembly.RuntimeError` (a trap): `engine_trap`, with V8's fixed trap text;
 * - an allocation failure: `out_of_memory`;
 * - anything else: `engine_error`.
 */
export function describeFailure(err: unknown): DealFailure {
  const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  if (err instanceof SolverError) {
    return { code: err.code, message: err.message, ...(err.location ? { location: err.location } : {}), ...(err.status >= 500 ? { detail } : {}) };
  }
  if (err instanceof WebAssembly.RuntimeError) {
    // V8's trap messages are fixed phrases ("memory access out of bounds", "unreachable").
    const trap = err.message.replace(/[^\w ,.()-]/g, '').slice(0, 80);
    return { code: 'engine_trap', message: `the engine trapped (${trap}); its instance was reset, retrying may succeed`, detail };
  }
  if (err instanceof RangeError && /allocation failed|out of memory|memory\.grow/i.test(err.message)) {
    return { code: 'out_of_memory', message: 'the solver ran out of memory on this position; try a smaller state budget', detail };
  }
  return { code: 'engine_error', message: 'the engine failed on this position', detail };
}

/** The `SolverError` of a worker's `DealFailure`. */
export function failureError(failure: DealFailure): SolverError {
  return new SolverError(failure.code, failure.message, failure.location);
}

/** The outcome of a deal stopped before its search began. */
export function cancelledOutcome(): SolveOutcome {
  return { verdict: 'unknown', reason: 'cancelled', moves: [], stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 } };
}
