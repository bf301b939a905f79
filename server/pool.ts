/**
 * The solver pool: Piscina worker threads, each holding one Wasm engine,
 * and one scheduler for every kind of work (server/pool/scheduler.ts).
 *
 * - Sizing: `threads` workers (default `os.availableParallelism()`), all kept
 *   alive so every solve meets a warm engine (or only `minThreads` of them,
 *   the rest started on demand: the CLI's solve on two threads), and with
 *   `lane` one more for interactive solves while long searches hold the
 *   others (scheduler.ts). The engine's module is compiled once on the main
 *   thread and handed to every worker in `workerData`, with the pool's
 *   shared flags (server/pool/flags.ts).
 * - Everything is a job (server/pool/job.ts) of a class: `interactive`
 *   (`solve`, `solveRequest`: a person waits), `background` (the app
 *   routes' searches: `solve` with `priority`), `batch` (`solveMany`,
 *   `solveManyPacked`, `solveBatch`). Waiting jobs start by class, then by
 *   age; a batch's share gives its worker up after its deal when a job of a
 *   higher class waits. At most `threads + maxQueue` interactive (and as
 *   many background) jobs are in flight: the next is refused `overloaded`
 *   (503) at once. With `startWaitMs`, an interactive job that has not
 *   started within it is refused then.
 * - A job's searches end by its deadline: a request's time budget counts
 *   from its arrival, its wait included; the engine enforces it, and a deal
 *   still running `stopGraceMs` past its allowance has its worker
 *   terminated (`engine_unresponsive`).
 * - Single solves waiting behind busy workers share a task (grouping, up to
 *   `groupMax` and to their fair share of the queue), so that the thread
 *   hand-off is paid once for several; each keeps its own flags, answer and
 *   event. A batch's deals go as a shared run: every worker that frees up
 *   while nothing else waits claims them one at a time.
 * - A request of `POST /v1/solve` or `/v1/proofs` (`solveRequest`) crosses
 *   as the validated request: the worker deals it, solves it, and builds
 *   the answer's bytes, which the caller writes as they are.
 * - Cancellation is cooperative (a stop flag the engine polls); terminating
 *   the worker is the last resort, `stopGraceMs` after the flag was set.
 *   Faults fail only their own job, with a code that says what happened
 *   (`engine_trap`, `engine_unresponsive`, `worker_crashed`,
 *   `out_of_memory`); Piscina replaces a lost worker.
 * - Memory given back: a worker whose engine grew past
 *   `recycleMemoryBytes` asks, in its flags, to be retired; it gets no
 *   further task and is terminated once its task answered (Piscina starts a
 *   fresh one).
 * - The helper pass (`helperPassAfterMs`): server/pool/helper-pass.ts.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ResourceLimits } from 'node:worker_threads';
import type { SolveRequest } from '../client-sdk/api/schemas.js';
import { SolverError } from '../client-sdk/core/errors.js';
import type { ProofRequest } from '../client-sdk/core/proof/format.js';
import { poolingApplies } from '../client-sdk/core/pools.js';
import { findPreset, type Deal, type Rules } from '../client-sdk/core/rules.js';
import type { ShortenOptions } from '../client-sdk/core/shorten.js';
import type { SolveLimits, SolveOutcome } from '../client-sdk/core/solve-types.js';
import type { Cancellation, JobClass, JobResult, JobSpec } from './pool/job.js';

export type { Cancellation } from './pool/job.js';
import { packDeals } from './pool/packing.js';
import { PROGRESS_FIELDS, progressSlot } from './pool/progress.js';
import { Scheduler, type PoolLog, type SolveEvent } from './pool/scheduler.js';
import type { CensusPart, DealSource, DealTemplate, WireResponse } from './pool/wire.js';

export type { PoolLog, SolveEvent } from './pool/scheduler.js';
export type { CensusPart, WireResponse } from './pool/wire.js';

/** The default `PoolOptions.log`: the console, with a line's detail and request fields when it has them. */
const CONSOLE_LOG: PoolLog = {
  warn: (message, detail, context) => console.warn(message, ...[detail, context].filter((x) => x !== undefined)),
  error: (message, detail, context) => console.error(message, ...[detail, context].filter((x) => x !== undefined)),
};

/** Default of `PoolOptions.groupMax`. */
export const DEFAULT_GROUP_MAX = 16;
/** Default of `PoolOptions.helperPassAfterMs`, ms. */
export const DEFAULT_HELPER_PASS_AFTER_MS = 2000;
/** Defaults of `PoolOptions.laneAfterMs` and `laneYieldMs`, ms. */
export const DEFAULT_LANE_AFTER_MS = 250;
export const DEFAULT_LANE_YIELD_MS = 100;

/** Options of `createPool`. */
export interface PoolOptions {
  /** The compiled engine module passed to every worker. Required by the real worker. */
  module?: WebAssembly.Module;
  /** Worker threads; default `os.availableParallelism()`. */
  threads?: number;
  /** Worker threads started with the pool and always kept (1..threads; default `threads`). */
  minThreads?: number;
  /** Interactive (and, apart, background) jobs that may wait beyond the running ones; default `4 * threads`. 0 = never queue. */
  maxQueue?: number;
  /** Worker file (absolute path); default `pool-worker.ts` or `pool-worker.js` beside this module. */
  filename?: string;
  /** How long a worker may take to honour its stop flag, or overrun a deal's allowance, before it is terminated, ms; default 2000. */
  stopGraceMs?: number;
  /** Cap on each search's engine memory, bytes; default: the engine's maximum (~4 GiB). */
  memoryLimitBytes?: number;
  /** A worker whose engine memory grew past this many bytes is replaced once its task ends. Absent or 0: never. */
  recycleMemoryBytes?: number;
  /** Called when a worker is retired for its memory. Must not throw. */
  onRecycle?: (event: { threadId: number }) => void;
  /** V8 heap limits of each worker thread (not the Wasm memory). */
  resourceLimits?: ResourceLimits;
  /** A Castle-family single solve still searching after this many ms may take an idle worker for its pooled pass; default 2000; 0 = never. Needs 2 threads or more. */
  helperPassAfterMs?: number;
  /** Most single solves one task carries when they wait together; default 16; 1 = never group. */
  groupMax?: number;
  /** One thread more, for interactive jobs while long searches hold the others (server/pool/scheduler.ts); default false. */
  lane?: boolean;
  /** An interactive job not started this many ms after it was submitted is refused `overloaded`; default: never. */
  startWaitMs?: number;
  /** A worker whose deal has run this long counts as held by a long search (the lane's rule), ms; default 250. */
  laneAfterMs?: number;
  /** A lane job that has run this long is stopped and refused when another interactive job waits for the lane, ms; default 100. */
  laneYieldMs?: number;
  /** Called once for every deal answered or failed (metrics). Must not throw. */
  onSettled?: (event: SolveEvent) => void;
  /** Where warnings and errors go; default `console`. */
  log?: PoolLog;
  /** Where pool-level errors (not tied to a job) are reported; default `log.error`. */
  onError?: (err: unknown) => void;
}

/** A deal's answer with its moves left packed (`packMoves`, 8 bytes a move; `unpackMoves` gives them back). `outcome.moves` is empty. */
export interface PackedOutcome {
  outcome: SolveOutcome;
  moves: Uint8Array;
}

/** Numbers for `/healthz`, `/metrics` and logs. */
export interface PoolStats {
  /** Live worker threads (the lane's included, `PoolOptions.lane`). */
  threads: number;
  /** Jobs running on a worker (a share of a shared run counts one; a single solve of a group once its search began). */
  running: number;
  /** Jobs waiting for a worker. */
  queued: number;
  /** Most interactive jobs that may wait. */
  maxQueue: number;
  /** Deals a worker answered since start. */
  completed: number;
  /** Workers retired for their memory since start. */
  recycled: number;
  /** Jobs accepted and not answered (running + queued). */
  inFlight: number;
  closing: boolean;
}

/** Who a solve serves (`SolveOptions.priority`): see `PoolOptions` and server/pool/job.ts. */
export type SolvePriority = Exclude<JobClass, 'helper'>;

/** What a solve may produce beyond the verdict, and how it is scheduled. */
export interface SolveOptions {
  /** Build the certificate of an `unsolvable` verdict (client-sdk/core/proof/writer.ts). */
  proof?: ProofRequest;
  /** Shorten a found solution within this budget (client-sdk/core/shorten.ts). */
  optimize?: ShortenOptions;
  /** Progress slots (server/pool/progress.ts `newProgressSlots(2)`): the search writes slot 0, its helper pass slot 1. */
  progress?: Float64Array;
  /** Default `interactive`. */
  priority?: SolvePriority;
  /** `Date.now()` by which the search must end; default its arrival plus its time budget. */
  deadline?: number;
}

/** How a batch's lone deal is solved (a deal alone, or again alone after its shared run failed): batch work, each deal with its own time budget. */
export const BATCH_SOLVE: SolveOptions = Object.freeze({ priority: 'batch', deadline: Infinity });

/** A solve function as the app routes take it. */
export type SolveFn = (deal: Deal, limits: SolveLimits, signal?: Cancellation, options?: SolveOptions) => Promise<SolveOutcome>;

/** A request of `POST /v1/solve` or `/v1/proofs`, validated, for `solveRequest`. */
export interface RequestJob {
  route: 'solve' | 'proofs';
  request: SolveRequest;
  limits: SolveLimits;
  proof?: ProofRequest;
  optimize?: ShortenOptions;
  progress?: Float64Array;
}

/** A batch's deals for `solveBatch`: a numbered range the workers deal, or requests (deal numbers of a list, boards). */
export type BatchSource = { kind: 'range'; template: DealTemplate; first: string; count: number } | { kind: 'requests'; requests: SolveRequest[] };

/** The worker file that matches how this module runs: `pool-worker.ts` under tsx/vitest, `pool-worker.js` in `dist/`. */
export function defaultWorkerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return join(dirname(here), `pool-worker${extname(here)}`);
}

/** Node options for a worker running `file`: tsx's loader for TypeScript, else none (never the parent's `execArgv`). */
export function workerExecArgv(file: string): string[] {
  if (!/\.[cm]?ts$/.test(file)) return [];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', tsx];
}

/** A positive integer option, else RangeError. */
function integer(name: string, value: number, min: number): number {
  if (!(Number.isInteger(value) && value >= min)) throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
  return value;
}

/** The source of deals the caller made: packed when they fit, else as they are. */
function givenSource(deals: readonly Deal[]): DealSource {
  let packed;
  try {
    packed = packDeals(deals);
  } catch (err) {
    throw new SolverError('engine_error', `the deals cannot be sent to a worker: ${err instanceof Error ? err.message : String(err)}`);
  }
  return packed ? { kind: 'packed', packed } : { kind: 'given', deals: [...deals] };
}

/** The rules a request names, as far as the helper pass needs them (the preset's, with the override's build and wrap). */
function requestRules(req: SolveRequest): Rules | undefined {
  const preset = findPreset(req.game);
  return preset && { ...preset.rules, ...(req.rules?.build ? { build: req.rules.build } : {}), ...(req.rules?.wrap !== undefined ? { wrap: req.rules.wrap } : {}) };
}

/** The pool of solver workers. Create with `createPool`. */
export class SolverPool {
  readonly #scheduler: Scheduler;
  readonly #threads: number;
  readonly #maxQueue: number;
  readonly #helpers: boolean;

  constructor(options: PoolOptions = {}) {
    const threads = integer('threads', options.threads ?? availableParallelism(), 1);
    const minThreads = options.minThreads ?? threads;
    if (!Number.isInteger(minThreads) || minThreads < 1 || minThreads > threads) throw new RangeError(`minThreads must be an integer from 1 to threads (${threads}), got ${minThreads}`);
    const maxQueue = integer('maxQueue', options.maxQueue ?? 4 * threads, 0);
    const memory = options.memoryLimitBytes;
    if (memory !== undefined) integer('memoryLimitBytes', memory, 1);
    const recycle = options.recycleMemoryBytes;
    if (recycle !== undefined) integer('recycleMemoryBytes', recycle, 0);
    const helperAfter = integer('helperPassAfterMs', options.helperPassAfterMs ?? DEFAULT_HELPER_PASS_AFTER_MS, 0);
    const groupMax = integer('groupMax', options.groupMax ?? DEFAULT_GROUP_MAX, 1);
    const startWaitMs = options.startWaitMs ?? Infinity;
    if (!(startWaitMs > 0)) throw new RangeError(`startWaitMs must be positive, got ${startWaitMs}`);
    const log = options.log ?? CONSOLE_LOG;
    const filename = options.filename ?? defaultWorkerFile();
    this.#threads = threads;
    this.#maxQueue = maxQueue;
    this.#helpers = threads >= 2 && helperAfter > 0;
    this.#scheduler = new Scheduler({
      filename,
      execArgv: workerExecArgv(filename),
      threads,
      minThreads,
      lane: options.lane ?? false,
      maxQueue,
      stopGraceMs: options.stopGraceMs ?? 2000,
      groupMax,
      helperPassAfterMs: helperAfter,
      startWaitMs,
      laneAfterMs: integer('laneAfterMs', options.laneAfterMs ?? DEFAULT_LANE_AFTER_MS, 1),
      laneYieldMs: integer('laneYieldMs', options.laneYieldMs ?? DEFAULT_LANE_YIELD_MS, 1),
      workerData: { module: options.module, memoryLimitBytes: memory, recycleMemoryBytes: recycle || undefined },
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
      onRecycle: options.onRecycle,
      onSettled: options.onSettled,
      log,
      onError: options.onError ?? ((err: unknown) => log.error('solver pool error', err)),
    });
  }

  /**
   * Solves one deal on a worker. Resolves with the engine's outcome
   * (`unknown`/`cancelled` when `signal` fired first).
   * @throws SolverError `overloaded` when its class is full or the pool is
   *   closing (or, interactive, it could not start within `startWaitMs`);
   *   `engine_trap`, `engine_unresponsive`, `worker_crashed`,
   *   `out_of_memory` when the solve failed; any `SolverError` the engine
   *   raised (e.g. `solution_check_failed`).
   */
  solve: SolveFn = async (deal, limits, signal, options) => {
    const helper = this.#helpers && poolingApplies(deal.rules);
    const plain = !options?.proof && !options?.optimize && !options?.progress && !helper;
    const result = await this.#scheduler.submit({
      ...this.#single(limits, signal, options),
      source: givenSource([deal]),
      answer: 'outcomes',
      groupable: plain,
      ...(helper ? { helperRules: deal.rules } : {}),
    });
    return single(result).outcome;
  };

  /**
   * Runs a request of `POST /v1/solve` or `/v1/proofs` as an interactive
   * job: the worker resolves its position, solves it and builds the
   * answer's bytes (server/pool/response.ts).
   * @throws SolverError as `solve`, and the 4xx of a position the worker
   *   could not resolve (`malformed_board`, `deal_out_of_range`, ...).
   */
  async solveRequest(job: RequestJob, signal?: Cancellation): Promise<WireResponse> {
    const rules = this.#helpers ? requestRules(job.request) : undefined;
    const helper = rules !== undefined && poolingApplies(rules);
    const options = { proof: job.proof, optimize: job.optimize, progress: job.progress };
    const result = await this.#scheduler.submit({
      ...this.#single(job.limits, signal, options),
      source: { kind: 'requests', requests: [job.request] },
      answer: 'response',
      response: { route: job.route, game: job.request.game, limits: job.limits },
      groupable: !job.proof && !job.optimize && !job.progress && !helper,
      ...(helper ? { helperRules: rules } : {}),
    });
    single(result);
    const response = (result as Exclude<JobResult, SolverError>).response;
    // stopped before its search began (its client went away): no answer was built
    if (response === undefined) throw new SolverError('overloaded', 'the request was cancelled');
    return response;
  }

  /** What every single solve's spec shares. */
  #single(limits: SolveLimits, signal: Cancellation | undefined, options: SolveOptions | undefined): Omit<JobSpec, 'source' | 'answer' | 'groupable'> {
    const cls = options?.priority ?? 'interactive';
    const deadline = options?.deadline ?? Date.now() + limits.timeoutMs + (options?.optimize?.budgetMs ?? 0);
    return {
      cls,
      count: 1,
      limits,
      deadline,
      shared: false,
      ...(signal ? { signal } : {}),
      ...(options?.proof ? { proof: options.proof } : {}),
      ...(options?.optimize ? { optimize: options.optimize } : {}),
      ...(options?.progress ? { progress: progressSlot(options.progress, 0), ...(options.progress.length > PROGRESS_FIELDS ? { helperProgress: progressSlot(options.progress, 1) } : {}) } : {}),
    };
  }

  /**
   * Solves several deals with the same limits as one batch job, a shared
   * run over every worker that frees up while nothing else waits. A cancel
   * stops the deals being solved and skips the rest (`cancelled`).
   * @returns one entry per deal, in order: its outcome, or that deal's own `SolverError`.
   * @throws SolverError `overloaded` (closing), and the error of a task that
   *   lost its worker (`worker_crashed`, `out_of_memory`,
   *   `engine_unresponsive`): then no deal has an answer.
   */
  async solveMany(deals: readonly Deal[], limits: SolveLimits, signal?: AbortSignal): Promise<(SolveOutcome | SolverError)[]> {
    if (deals.length === 0) return [];
    const answers = await this.#batch(givenSource(deals), deals.length, limits, signal, false);
    return answers.map((a) => (a instanceof SolverError ? a : a.outcome));
  }

  /** `solveMany` with each solution's moves left packed (`PackedOutcome`), for a consumer that stores them as bytes. */
  async solveManyPacked(deals: readonly Deal[], limits: SolveLimits, signal?: AbortSignal): Promise<(PackedOutcome | SolverError)[]> {
    if (deals.length === 0) return [];
    return this.#batch(givenSource(deals), deals.length, limits, signal, true);
  }

  /**
   * A batch's deals that the workers deal themselves (a numbered range) or
   * resolve (requests), as `solveManyPacked` answers them.
   * @throws as `solveMany`.
   */
  async solveBatch(source: BatchSource, limits: SolveLimits, signal?: AbortSignal): Promise<(PackedOutcome | SolverError)[]> {
    const count = source.kind === 'range' ? source.count : source.requests.length;
    if (count === 0) return [];
    return this.#batch(source, count, limits, signal, true);
  }

  /**
   * A sub-range of a batch that keeps exceptions only (server/batches/census.ts),
   * dealt and counted by the workers as one batch job (`answer: 'census'`):
   * resolves with its census summary, its exceptions (each `index` the
   * deal's index in `source`) and how many deals were stopped or never
   * begun (`stopped`: a cancel or the pool closing; nonzero means the
   * sub-range has no complete count). The pool's thread does no work a deal.
   * @throws as `solveMany`.
   */
  async solveCensus(source: BatchSource, limits: SolveLimits, signal?: AbortSignal): Promise<CensusPart> {
    const count = source.kind === 'range' ? source.count : source.requests.length;
    const result = await this.#scheduler.submit({ cls: 'batch', source, count, limits, deadline: Infinity, answer: 'census', shared: true, groupable: false, ...(signal ? { signal } : {}) });
    if (result instanceof SolverError) throw result;
    return result.census!;
  }

  async #batch(source: DealSource, count: number, limits: SolveLimits, signal: AbortSignal | undefined, packedMoves: boolean): Promise<(PackedOutcome | SolverError)[]> {
    const result = await this.#scheduler.submit({
      cls: 'batch',
      source,
      count,
      limits,
      deadline: Infinity,
      answer: 'outcomes',
      shared: true,
      groupable: false,
      packedMoves,
      ...(signal ? { signal } : {}),
    });
    if (result instanceof SolverError) throw result;
    return result.deals;
  }

  /**
   * True when a job of `priority` submitted now would be accepted (not
   * closing, its class below its limit; an interactive one not bound to be
   * refused): lets the HTTP layer refuse a request before it reads it.
   */
  admits(priority: SolvePriority = 'interactive'): boolean {
    return this.#scheduler.admits(priority);
  }

  /** True when an interactive solve submitted now would be refused `overloaded`. */
  isFull(): boolean {
    return !this.#scheduler.admits('interactive');
  }

  /** Current numbers of the pool. */
  stats(): PoolStats {
    return { ...this.#scheduler.counts(), maxQueue: this.#maxQueue, closing: this.#scheduler.closing };
  }

  /** True once `close()` was called: new solves are refused. */
  get closing(): boolean {
    return this.#scheduler.closing;
  }

  /** Runs `deal` once on every worker (tiny budgets), so that each has its engine before real traffic; failures are logged, not thrown. */
  async warmUp(deal: Deal, log: Pick<PoolLog, 'warn'> = console): Promise<void> {
    const limits: SolveLimits = { maxStates: 1000, timeoutMs: 5000 };
    const runs = Array.from({ length: this.#threads }, () => this.solve(deal, limits, undefined, { priority: 'batch' }));
    for (const r of await Promise.allSettled(runs)) if (r.status === 'rejected') log.warn('solver pool: warm-up solve failed', r.reason);
  }

  /** Waits until no job is in flight, at most `timeoutMs`: true when the pool went idle. */
  drain(timeoutMs: number): Promise<boolean> {
    return this.#scheduler.drain(timeoutMs);
  }

  /** Stops accepting work, answers every job (`cancelled` when not done), and closes the workers. */
  close(): Promise<void> {
    return this.#scheduler.close();
  }
}

/** The one deal's answer of a single solve's result. @throws its SolverError. */
function single(result: JobResult): { outcome: SolveOutcome; moves: Uint8Array } {
  if (result instanceof SolverError) throw result;
  const answer = result.deals[0];
  if (answer instanceof SolverError) throw answer;
  return answer;
}

/** Creates a solver pool; see `SolverPool`. */
export function createPool(options: PoolOptions = {}): SolverPool {
  return new SolverPool(options);
}
