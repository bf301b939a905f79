/**
 * The solver pool: Piscina worker threads, each holding one Wasm engine.
 *
 * - Sizing: `threads` workers (default `os.availableParallelism()`), all kept
 *   alive so every solve meets a warm engine (or only `minThreads` of them,
 *   the rest started on demand: the CLI's solve on two threads); at most `maxQueue` solves wait
 *   beyond the running ones, and a full queue answers `overloaded` (503) at
 *   once instead of letting latency grow without bound.
 * - The engine's module is compiled once on the main thread and handed to
 *   every worker in `workerData` (structured-cloned, not recompiled).
 * - Budgets: every task carries the request's state budget and deadline and
 *   the pool's memory cap (`memoryLimitBytes`), which the engine enforces
 *   itself (verdict `unknown` with reason `max_states`, `timeout`, `memory`).
 * - The queue is the pool's own: a task goes to Piscina only when fewer than
 *   `threads` tasks are there (a worker is free), so a waiting task that is
 *   cancelled leaves the queue at once, and Piscina needs no AbortSignal a
 *   task (one cost less a solve: docs/engine.md "Pool scaling" as kept in
 *   git at 1eca5a0).
 * - Plain single solves waiting in that queue share tasks: when a worker
 *   frees up, the plain solves (`solve` with no options and no helper pass)
 *   at the head of the queue with the same limits go to it as one task, up
 *   to `groupMax` and to their fair share (the solves waiting divided by
 *   `threads`), so that Piscina's hand-off is paid once for several (on a
 *   busy server, MS FreeCell deals cost ~0.2 ms of engine against ~0.1 ms of
 *   main thread a task: docs/benchmarks.md, "Pool scaling"). Each deal of a
 *   group keeps its own flags (`SolveTask.stops`): its own stop (a cancelled
 *   one not yet begun is taken back and answered at once), deadline
 *   backstop, retire request, answer and `onSettled` event. A lone solve
 *   goes at once, alone. When a group's worker is lost, the deal at fault
 *   gets the error and the others run again, each alone.
 * - A task of several deals (`solveMany`, what batches hand the pool) is a
 *   shared run: its deals cross once a share with a cursor in shared
 *   memory, and each share (a task on one worker) claims the next deal no
 *   share has claimed, one at a time. It starts on one worker, and every
 *   worker that frees up while no other task waits joins it with a share
 *   of its own, so its deals spread over the workers as they free up and
 *   none idles while deals are left (one hand-off a share, not one a
 *   deal). A share gives its worker up after the deal it is on when other
 *   tasks wait (a single solve waits for one deal, not for the run); the
 *   rest of the run then waits in the queue behind them.
 * - Cancellation is cooperative: every task carries a stop flag in a
 *   SharedArrayBuffer that the engine polls, so a cancel stops the search
 *   within one poll and keeps the worker. Terminating the worker (its
 *   `threadId` is in the flags once it began the task) is the last resort,
 *   used only when the engine has not stopped `stopGraceMs` after the flag
 *   was set (on cancel), or after its own deadline (a hung engine). One
 *   deadline sweep serves every task (no timer a task).
 * - Faults fail only their own solve, with a code that says what happened:
 *   `engine_trap` (a Wasm trap; the worker resets its engine),
 *   `engine_unresponsive` (past its deadline and deaf to the stop flag; the
 *   worker is terminated), `worker_crashed` (the thread died), `out_of_memory`
 *   (the thread's JS heap ran out). Piscina replaces a lost worker; the other
 *   solves and the next ones run on.
 * - Memory given back: a Wasm memory grows and never shrinks, so a worker
 *   whose engine grew past `recycleMemoryBytes` in a solve asks (in the
 *   task's shared flags, before it answers) to be retired; the pool's load
 *   balancer gives it no further task, and once its answer is in the pool
 *   terminates that thread. Piscina starts a replacement (with a fresh,
 *   small engine) as it does for any lost worker, and the memory goes back
 *   to the operating system with the thread.
 * - Two workers for one hard Castle deal (`helperPassAfterMs`): a solve of a
 *   game whose tableau ignores suit that is still searching after that long
 *   takes one idle worker for its pooled pass (client-sdk/core/pools.ts,
 *   docs/search.md §9), run beside the full search instead of in the time
 *   the full search leaves; the first decisive answer wins and the other
 *   search is stopped. When the full search ends undecided while the helper
 *   still runs, its freed worker runs a second pooled pass, the poolings in
 *   reverse order, and the first of the two to prove stops the other. A
 *   solve takes at most two workers, and only an idle one: a helper gives
 *   its worker up the moment any other solve needs it, so it never delays
 *   another request.
 * - The worker runs from source under tsx in development and tests, and from
 *   `dist/` as plain JavaScript in production (`workerFile`).
 *
 * Public API used elsewhere (keep it backward compatible): `createPool`,
 * `pool.solve(deal, limits, signal)`, `pool.solveMany(deals, limits, signal)`,
 * `pool.stats()`, `pool.close()`.
 */
import { AsyncResource } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { SolverError } from '../client-sdk/core/errors.js';
import type { ProofRequest } from '../client-sdk/core/proof/format.js';
import { POOLED_PASS_MIN_MS } from '../client-sdk/core/proof/writer.js';
import { POOLINGS_TO_TRY, poolingApplies } from '../client-sdk/core/pools.js';
import type { ShortenOptions } from '../client-sdk/core/shorten.js';
import type { Deal } from '../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../client-sdk/core/solve-types.js';
import {
  cancelledOutcome,
  claimPooledPass,
  packDeals,
  unpackAnswers,
  ENDED_INDEX,
  FLAGS_BYTES,
  POOLED_CLAIM_INDEX,
  POOLED_ELSEWHERE,
  progressSlot,
  RETIRE_INDEX,
  RUNNING_ON_INDEX,
  STARTED_AT_BYTE,
  STOP_INDEX,
  withdraw,
  ANSWER_FIELDS,
  type SolveAnswer,
  type SolveTask,
  type SolveTaskResult,
  type SolverWorkerData,
  type TaskFailure,
} from './worker-protocol.js';
import { unpackMoves } from '../client-sdk/core/moves.js';

/** Default of `PoolOptions.groupMax`. */
export const DEFAULT_GROUP_MAX = 16;
/** Default of `PoolOptions.helperPassAfterMs`, ms. */
export const DEFAULT_HELPER_PASS_AFTER_MS = 2000;
/** How often a solve waiting for an idle worker for its helper pass looks again, ms. */
const HELPER_RECHECK_MS = 250;

/** A task's shared flags (stop, retire, start time, pooled-pass claim: worker-protocol.ts). */
function newFlags(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(FLAGS_BYTES));
}

/** Most spare flag buffers a pool keeps for reuse (`SolverPool.#takeFlags`). */
const SPARE_FLAGS = 64;
/** Shortest wait of the deadline sweep's timer, ms (as the per-task timers it replaced). */
const SWEEP_MIN_MS = 10;
/**
 * Longest wait of the deadline sweep's timer, ms: Node's longest timer
 * (2^31 - 1 ms, 24.8 days). A longer one fires after 1 ms (with a warning),
 * and a due time that far off (a shared run's allowance is `timeoutMs` times
 * its deals) would make the sweep run every millisecond; a sweep that wakes
 * early only arms again.
 */
const SWEEP_MAX_MS = 2 ** 31 - 1;

/**
 * What the pool keeps of an accepted task (in its queue, in Piscina's, or on
 * a worker): the deadline backstop's inputs and how to stop it, by the
 * task's flags. One deadline
 * sweep (`SolverPool.#sweep`) serves every task instead of a timer each.
 */
interface InFlight {
  /** The start time in the task's flags (`STARTED_AT_BYTE`; 0 while queued). */
  readonly startedAt: Float64Array;
  /** The task's allowance from its start, ms (the backstop fires `stopGraceMs` later). */
  readonly allowedMs: number;
  /** Sets the stop flag for `reason` (idempotent); a task still in the pool's queue leaves it at once. */
  readonly requestStop: (reason: StopReason) => void;
}

/**
 * A task in the pool's own queue: `go(true)` hands it to Piscina, `go(false)`
 * drops it (cancelled, closing). `member` is set for a plain single solve,
 * which may share its task with the plain solves behind it (`#nextWaiting`).
 */
interface Waiting {
  readonly go: (run: boolean) => void;
  readonly member?: Member;
  /** True for a share of a shared run (`SolverPool.solveMany`): the run's shares do not make each other yield (`SolveTask.yieldTo`). */
  readonly shared?: boolean;
}

/**
 * A `solveMany` in flight (`SolverPool.#solveShared`): its deals, once for
 * every share, the cursor its shares claim them with, and each deal's answer
 * as the shares bring them in.
 */
interface SharedRun {
  /** What every share's task carries besides its own flags (`stop`) and the cursor. */
  readonly base: Omit<SolveTask, 'stop'>;
  readonly count: number;
  /** The cursor (worker-protocol.ts `SolveTask.claim`): element 0, the next deal no share has claimed. */
  readonly claim: Int32Array;
  /** `Date.now()` at submission. */
  readonly submitted: number;
  /** When its first share began (0: none yet), for `SolveEvent.queuedMs`. */
  firstStart: number;
  /** Each deal's answer, by index, once a share brought it. */
  readonly answers: (SolveOutcome | SolverError | undefined)[];
  /** `solveManyPacked`: each answered deal's moves, packed, by index. */
  readonly movesOut: Uint8Array[] | undefined;
  /** Deals a worker answered (`PoolStats.completed`). */
  answered: number;
  /** Its shares running or waiting in the queue. */
  readonly shares: Set<Share>;
  /** Why the pool stopped it (cancel), once it did. */
  why: StopReason | undefined;
  /** The error of a share that lost its worker: the run's answer. */
  failure: SolverError | undefined;
  /** True once answered. */
  done: boolean;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  readonly resolve: (value: (SolveOutcome | SolverError)[] | SolverError) => void;
  /** The caller's async context, where its shares' log lines and its answer run. */
  readonly scope: AsyncResource;
}

/** One share of a `SharedRun`: a task on a worker (or waiting for one) with its own flags. */
interface Share {
  /** Its flags (worker-protocol.ts `FLAGS_BYTES`), the key of its `#inFlight` entry. */
  readonly flags: Int32Array;
  readonly startedAt: Float64Array;
  /** Why the pool set its stop flag, once it did. */
  why: StopReason | undefined;
  /** The last resort's timer, after a stop. */
  killTimer: NodeJS.Timeout | undefined;
  /** True once the pool terminated its worker. */
  killed: boolean;
  /** Its entry in `#waiting` while it is there. */
  waiting: Waiting | undefined;
  /** True once over (`#shareEnded`): a later answer of its task is ignored. */
  ended: boolean;
}

/**
 * A plain single solve (`pool.solve` with no options and no helper pass),
 * which `#nextWaiting` may hand to a worker in one task with other such
 * solves waiting behind it (a group, `#runGroup`). Everything else stays its
 * own: its flags (stop, start time, retire request, end mark), its deadline
 * backstop, its cancellation, its answer and its `onSettled` event.
 */
interface Member {
  readonly deal: Deal;
  readonly limits: SolveLimits;
  /** Its own flags (worker-protocol.ts `FLAGS_BYTES`), the key of its `#inFlight` entry. */
  readonly flags: Int32Array;
  /** Its start time in `flags` (0 until a worker begins it). */
  readonly startedAt: Float64Array;
  /** `Date.now()` when it was submitted. */
  readonly submitted: number;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  /** Settles the caller's promise: an outcome resolves it, a `SolverError` rejects it. */
  readonly answer: (value: SolveOutcome | SolverError) => void;
  /** Its entry in `#waiting` while it is there. */
  waiting: Waiting | undefined;
  /** Why the pool set its stop flag, once it did. */
  why: StopReason | undefined;
  /** The last resort's timer, after a stop of a deal a worker has begun. */
  killTimer: NodeJS.Timeout | undefined;
  /** True once the pool terminated its worker (deaf to its stop flag). */
  killed: boolean;
  /** True once answered; a later answer (its group's, for a deal withdrawn before it began) is ignored. */
  done: boolean;
  /** Handed to a worker again after a fault of another deal of its group: runs alone from then on. */
  retried: boolean;
  /**
   * The caller's async context (the request's id for the logger, server/logger.ts):
   * what the pool does for this solve, its log lines and its answer, runs in it,
   * even when another request's answer freed the worker that took it.
   */
  readonly scope: AsyncResource;
}

/** True when two plain solves have the same limits, so that they may share a task (`SolveTask.limits`). */
function sameLimits(a: SolveLimits, b: SolveLimits): boolean {
  return a === b || (a.maxStates === b.maxStates && a.timeoutMs === b.timeoutMs && a.layered === b.layered && a.guided === b.guided);
}

/** Piscina's load-balancer function (its type is not exported by name). */
type PiscinaLoadBalancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer']>;

/** Where the pool reports what an operator should know. Default: `console`. */
export interface PoolLog {
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

/** What happened to one solve, reported to `PoolOptions.onSettled` (metrics). */
export interface SolveEvent {
  /** The engine's answer, when there is one. */
  outcome?: SolveOutcome;
  /** The failure, when there is no answer (`overloaded` included). */
  error?: SolverError;
  /** Milliseconds the solve waited for a worker (0 when it never ran). */
  queuedMs: number;
  /** Milliseconds from submission to the answer. */
  totalMs: number;
}

/** Options of `createPool`. */
export interface PoolOptions {
  /** The compiled engine module passed to every worker. Required by the real worker. */
  module?: WebAssembly.Module;
  /** Worker threads; default `os.availableParallelism()`. */
  threads?: number;
  /**
   * Worker threads started with the pool and always kept (1..threads;
   * default `threads`, every solve meets a warm engine). The others start
   * when a task finds no idle worker and stop when idle: the CLI's solve on
   * two threads starts its second only for a helper pass, so a deal decided
   * at once pays for one thread's start.
   */
  minThreads?: number;
  /** Most solves waiting for a free worker; default `4 * threads`. 0 = never queue. */
  maxQueue?: number;
  /** Worker file (absolute path); default `pool-worker.ts` or `pool-worker.js` beside this module. */
  filename?: string;
  /** How long a worker may take to honour its stop flag before it is terminated, ms; default 2000. */
  stopGraceMs?: number;
  /** Cap on each solve's engine memory, bytes; default: the engine's maximum (~4 GiB). */
  memoryLimitBytes?: number;
  /**
   * A worker whose engine memory grew past this many bytes is replaced once
   * its solve ends, so the memory goes back to the system (see the module
   * comment). Absent or 0: never (a worker keeps its high-water mark).
   */
  recycleMemoryBytes?: number;
  /** Called when a worker is retired for its memory (metrics, logs). Must not throw. */
  onRecycle?: (event: { threadId: number }) => void;
  /** V8 heap limits of each worker thread (not the Wasm memory: see `memoryLimitBytes`). */
  resourceLimits?: ResourceLimits;
  /**
   * A Castle-family solve (rules whose tableau ignores suit, where the pooled
   * pass applies: client-sdk/core/pools.ts) still searching after this many
   * ms may take one idle worker for its pooled pass, run beside the full
   * search instead of after it; the first decisive answer wins and the other
   * search is stopped. The helper pass gives its worker up at once when
   * another solve needs one. Default 2000; 0 = never (the pooled pass then
   * runs only after the full search, in the time it left). Needs 2 threads or more.
   */
  helperPassAfterMs?: number;
  /**
   * Most plain single solves (`solve` with no options and no helper pass)
   * one task may carry: when a worker frees up while such solves wait in the
   * queue, it takes up to this many of them in one task (and no more than
   * its share, the waiting solves divided by `threads`), so that Piscina's
   * hand-off (~0.1 ms of CPU a task on each side) is paid once for them
   * all. Each keeps its own cancellation, deadline, answer and `onSettled`
   * event; its answer comes when its group's task ends. A lone solve still
   * goes alone at once. Default 16; 1 = never group.
   */
  groupMax?: number;
  /** Called once for every solve, answered or failed (metrics). Must not throw. */
  onSettled?: (event: SolveEvent) => void;
  /** Where warnings and errors go; default `console`. */
  log?: PoolLog;
  /** Where pool-level errors (not tied to a task) are reported; default `log.error`. */
  onError?: (err: unknown) => void;
}

/**
 * A deal's answer from `solveManyPacked`: the outcome with `moves` empty, and
 * the moves packed (`packMoves` of client-sdk/core/moves.ts, 8 bytes a move;
 * `unpackMoves` gives them back as objects). Empty bytes unless `solved`.
 */
export interface PackedOutcome {
  outcome: SolveOutcome;
  moves: Uint8Array;
}

/** The moves of an answer without a solution (`solveManyPacked`). */
const NO_MOVES = new Uint8Array(0);

/** Numbers for `/healthz`, `/metrics` and logs. */
export interface PoolStats {
  /** Live worker threads. */
  threads: number;
  /** Solves running on a worker (a solve of a group once its search has begun). */
  running: number;
  /** Solves waiting for a worker (a solve of a group until its search begins). */
  queued: number;
  /** Most solves that may wait. */
  maxQueue: number;
  /** Solves a worker answered since start (a deal of a `solveMany` task counts one; refused and never-started solves do not count). */
  completed: number;
  /** Workers retired since start because their engine memory grew past `recycleMemoryBytes`. */
  recycled: number;
  /** Solves accepted and not yet answered (running + queued). */
  inFlight: number;
  /** True once `close()` was called. */
  closing: boolean;
}

/** A solve function as `createApp` takes it. */
export type SolveFn = (deal: Deal, limits: SolveLimits, signal?: AbortSignal, options?: SolveOptions) => Promise<SolveOutcome>;

/** What a solve may produce beyond the verdict. */
export interface SolveOptions {
  /** Build the certificate of an `unsolvable` verdict (client-sdk/core/proof/writer.ts); the summary comes always. */
  proof?: ProofRequest;
  /** Shorten a found solution within this budget (client-sdk/core/shorten.ts); the deadline backstop allows for it. */
  optimize?: ShortenOptions;
  /**
   * Progress slots (worker-protocol.ts `newProgressSlots(2)`): the solve's
   * own search writes slot 0 about once a second, its helper pass (if one
   * runs) slot 1. Absent: no progress reports.
   */
  progress?: Float64Array;
}

/**
 * The worker file that matches how this module runs: `pool-worker.ts` beside
 * `pool.ts` under tsx/vitest, `pool-worker.js` beside `pool.js` in `dist/`.
 */
export function defaultWorkerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return join(dirname(here), `pool-worker${extname(here)}`);
}

/**
 * Node options for a worker running `file`: a TypeScript file needs tsx's
 * loader; anything else gets an empty list, so the worker never inherits the
 * parent's `process.execArgv` (which may re-run the server's entry point).
 */
export function workerExecArgv(file: string): string[] {
  if (!/\.[cm]?ts$/.test(file)) return [];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', tsx];
}

/** Why the pool set a task's stop flag. */
type StopReason = 'cancel' | 'deadline';

/**
 * Maps what Piscina rejected a task with to the error the client gets; `why`
 * is set when the pool itself terminated the task's worker, and for what.
 * The message is safe to send; the original goes to the log.
 */
function mapTaskError(err: unknown, why: StopReason | undefined): SolverError {
  if (err instanceof SolverError) return err;
  const e = err as (Error & { code?: string }) | undefined;
  if (why === 'deadline') {
    return new SolverError('engine_unresponsive', 'the engine did not stop at its deadline; its worker was terminated and replaced');
  }
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new SolverError('out_of_memory', 'the solver worker ran out of memory during this solve; it was replaced');
  }
  if (typeof e?.message === 'string' && /worker exited/i.test(e.message)) {
    return new SolverError('worker_crashed', 'the solver worker died during this solve; it was replaced, retrying may succeed');
  }
  return new SolverError('worker_crashed', 'the solver worker failed during this solve; it was replaced, retrying may succeed');
}

/** The pool of solver workers. Create with `createPool`. */
export class SolverPool {
  readonly #piscina: Piscina<SolveTask, SolveTaskResult>;
  readonly #stopGraceMs: number;
  readonly #threads: number;
  readonly #maxQueue: number;
  readonly #memoryLimitBytes: number | undefined;
  readonly #recycleMemoryBytes: number | undefined;
  readonly #onRecycle: ((event: { threadId: number }) => void) | undefined;
  /** Thread ids of workers being retired: the load balancer passes them over. */
  readonly #retiring = new Set<number>();
  #recycled = 0;
  /** Solves answered by a worker (see `PoolStats.completed`). */
  #completed = 0;
  readonly #onSettled: ((event: SolveEvent) => void) | undefined;
  readonly #log: PoolLog;
  /** Tasks accepted and not yet answered (in the pool's queue or handed to Piscina), by their flags. */
  readonly #inFlight = new Map<Int32Array, InFlight>();
  /**
   * The pool's own queue, oldest first: tasks go to Piscina only when fewer
   * than `threads` are there, so a waiting task is dropped at once when
   * cancelled and Piscina needs no AbortSignal a task (see `#run`).
   */
  readonly #waiting: Waiting[] = [];
  /** Tasks handed to Piscina and not yet settled (at most `threads` but for a worker's start). */
  #onWorkers = 0;
  /** Most plain solves a task (`PoolOptions.groupMax`). */
  readonly #groupMax: number;
  /** Plain solves handed to a worker in a group of two or more and not yet answered (those not begun count as queued in `stats`). */
  readonly #grouped = new Set<Member>();
  /** Flag buffers of answered tasks, zeroed, for the next tasks (see `#takeFlags`). */
  readonly #spareFlags: Int32Array[] = [];
  /** The deadline sweep's timer and when it fires (`Date.now()` ms; Infinity: none armed). */
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweepAt = Infinity;
  /** Running helper passes (see `PoolOptions.helperPassAfterMs`): each one's stop, called when another solve needs its worker. */
  readonly #helpers = new Set<() => void>();
  readonly #helperPassAfterMs: number;
  readonly #idleWaiters = new Set<() => void>();
  /** Shared runs (`solveMany`) not yet answered, oldest first: a worker that frees up with nothing waiting joins the first with deals left. */
  readonly #runs = new Set<SharedRun>();
  /** Element 0: the tasks other than shares waiting in the queue (`SolveTask.yieldTo`); shares give their workers up to them. */
  readonly #yieldTo = new Int32Array(new SharedArrayBuffer(4));
  #closing = false;

  constructor(options: PoolOptions = {}) {
    const threads = options.threads ?? availableParallelism();
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
    const minThreads = options.minThreads ?? threads;
    if (!Number.isInteger(minThreads) || minThreads < 1 || minThreads > threads) {
      throw new RangeError(`minThreads must be an integer from 1 to threads (${threads}), got ${minThreads}`);
    }
    const maxQueue = options.maxQueue ?? 4 * threads;
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError(`maxQueue must be a non-negative integer, got ${maxQueue}`);
    const memory = options.memoryLimitBytes;
    if (memory !== undefined && !(Number.isInteger(memory) && memory > 0)) {
      throw new RangeError(`memoryLimitBytes must be a positive integer, got ${memory}`);
    }
    const recycle = options.recycleMemoryBytes;
    if (recycle !== undefined && !(Number.isInteger(recycle) && recycle >= 0)) {
      throw new RangeError(`recycleMemoryBytes must be a non-negative integer, got ${recycle}`);
    }
    const helperAfter = options.helperPassAfterMs ?? DEFAULT_HELPER_PASS_AFTER_MS;
    if (!(Number.isInteger(helperAfter) && helperAfter >= 0)) {
      throw new RangeError(`helperPassAfterMs must be a non-negative integer, got ${helperAfter}`);
    }
    this.#helperPassAfterMs = threads >= 2 ? helperAfter : 0;
    const groupMax = options.groupMax ?? DEFAULT_GROUP_MAX;
    if (!(Number.isInteger(groupMax) && groupMax >= 1)) throw new RangeError(`groupMax must be a positive integer, got ${groupMax}`);
    this.#groupMax = groupMax;
    this.#threads = threads;
    this.#maxQueue = maxQueue;
    this.#memoryLimitBytes = memory;
    this.#recycleMemoryBytes = recycle || undefined;
    this.#onRecycle = options.onRecycle;
    this.#onSettled = options.onSettled;
    this.#log = options.log ?? console;
    const filename = options.filename ?? defaultWorkerFile();
    const workerData: SolverWorkerData = { module: options.module };
    this.#stopGraceMs = options.stopGraceMs ?? 2000;
    this.#piscina = new Piscina<SolveTask, SolveTaskResult>({
      filename,
      execArgv: workerExecArgv(filename),
      minThreads,
      maxThreads: threads,
      workerData,
      loadBalancer: this.#balancer,
      // Piscina's run/wait-time histograms: nobody reads them, and they cost a clock read and a record a task on both threads
      recordTiming: false,
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
    });
    const onError = options.onError ?? ((err: unknown) => this.#log.error('solver pool error', err));
    // Unhandled, a pool error event would end the process.
    this.#piscina.on('error', onError);
    this.#piscina.on('workerDestroy', (worker: { id: number }) => this.#retiring.delete(worker.id));
  }

  /**
   * Piscina's least-busy choice (one task per worker), passing over workers
   * being retired: those in `#retiring`, and those that asked in the flags of
   * a task still in flight (the ask is read here before the pool has seen the
   * answer, as Piscina hands the next queued task out as soon as a worker
   * answers).
   */
  readonly #balancer: PiscinaLoadBalancer = (_task, workers) => {
    for (const worker of workers) {
      if (worker.currentUsage !== 0 || worker.terminating || worker.destroyed) continue;
      if (this.#retiring.has(worker.id) || this.#askedToRetire(worker.id)) continue;
      return worker;
    }
    return null;
  };

  #askedToRetire(threadId: number): boolean {
    if (this.#recycleMemoryBytes === undefined) return false;
    for (const stop of this.#inFlight.keys()) if (Atomics.load(stop, RETIRE_INDEX) === threadId) return true;
    return false;
  }

  /** The live worker thread `threadId` (as a task's flags name it: `RUNNING_ON_INDEX`), or undefined (0, `WITHDRAWN`, or gone). */
  #workerOf(threadId: number) {
    return threadId > 0 ? this.#piscina.threads.find((w) => w.threadId === threadId) : undefined;
  }

  /**
   * The `overloaded` error for a solve submitted now when the queue is full,
   * else undefined. The queue limit is kept here rather than by Piscina's
   * `maxQueue`, whose count also depends on workers still starting:
   * waiting = in flight - threads.
   */
  #queueFull(): SolverError | undefined {
    if (this.#inFlight.size < this.#threads + this.#maxQueue) return undefined;
    return new SolverError('overloaded', `the solver is busy (${this.#threads} solves running, ${this.#inFlight.size - this.#threads} waiting); retry later`);
  }

  /** Terminates the worker `threadId` (idle: its solve has answered); Piscina replaces it. */
  #retire(threadId: number): void {
    if (this.#retiring.has(threadId)) return;
    const worker = this.#workerOf(threadId);
    if (!worker) return;
    this.#retiring.add(threadId);
    this.#recycled++;
    try {
      this.#onRecycle?.({ threadId });
    } catch (err) {
      this.#log.error('solver pool: onRecycle failed', err);
    }
    void worker.terminate();
  }

  /**
   * Solves one deal on a worker. Resolves with the engine's outcome (verdict
   * `unknown` with reason `cancelled` when `signal` fired first).
   * @throws SolverError `overloaded` when the queue is full or the pool is
   *   closing; `engine_trap`, `engine_unresponsive`, `worker_crashed`,
   *   `out_of_memory` when the solve failed (only this solve: the worker is
   *   reset or replaced); any `SolverError` the engine raised (e.g.
   *   `solution_check_failed`).
   */
  solve: SolveFn = async (deal, limits, signal, options) => {
    const allowedMs = limits.timeoutMs + (options?.optimize?.budgetMs ?? 0);
    if (this.#helperPassAfterMs > 0 && poolingApplies(deal.rules)) {
      // fresh flags: a helper pass may still write them (stopOnProof) after the full search has answered
      const task: SolveTask = { deal, limits, stop: newFlags() };
      this.#withOptions(task, options);
      return this.#solveWithHelperPass(task, allowedMs, signal, options?.progress && progressSlot(options.progress, 1));
    }
    if (options === undefined || (options.proof === undefined && options.optimize === undefined && options.progress === undefined)) {
      return this.#solvePlain(deal, limits, signal);
    }
    // a plain deal crosses packed (worker-protocol.ts `packDeals`), anything else as it is
    const packed = packDeals([deal], false);
    const task: SolveTask = packed ? { packed, limits, stop: this.#takeFlags() } : { deal, limits, stop: this.#takeFlags() };
    this.#withOptions(task, options);
    const answer = await this.#run(task, allowedMs, signal, 1);
    this.#giveBackFlags(task.stop);
    const only = answer instanceof SolverError ? answer : answer[0];
    if (only instanceof SolverError) throw only;
    return only;
  };

  /** Copies what `options` asks for beyond the verdict into `task`. */
  #withOptions(task: SolveTask, options: SolveOptions | undefined): void {
    if (options?.proof) task.proof = options.proof;
    if (options?.optimize) task.optimize = options.optimize;
    if (options?.progress) task.progress = progressSlot(options.progress, 0);
  }

  /**
   * Flags for a task that no other task refers to (no helper pass): a spare
   * buffer of an answered task when there is one, else a new one. A
   * SharedArrayBuffer costs a system allocation and, once a worker has seen
   * it, bookkeeping in two threads until both collect it.
   */
  #takeFlags(): Int32Array {
    return this.#spareFlags.pop() ?? newFlags();
  }

  /**
   * Returns the flags of an answered task (from `#takeFlags`) for reuse,
   * zeroed. Only once the task is settled: its worker wrote them last before
   * answering (start time, retire request) or is gone (terminated).
   */
  #giveBackFlags(stop: Int32Array): void {
    // a task that was stopped (cancel, deadline, close) may have lost its worker mid-write: its flags are not reused
    if (this.#inFlight.has(stop) || Atomics.load(stop, STOP_INDEX) !== 0 || this.#spareFlags.length >= SPARE_FLAGS) return;
    stop.fill(0);
    this.#spareFlags.push(stop);
  }

  /**
   * `solve` for a deal whose pooled pass applies: the full search on one
   * worker and, once it has run `helperPassAfterMs` with a worker idle and
   * time left, the pooled pass on that worker (`SolveTask.pass: 'pooled'`),
   * claimed through the task's flags so that the full search's worker skips
   * its own. The answer: the full search's when it decided (a checked
   * solution or its complete search), else the helper's `unsolvable` (a
   * pooled proof), else the full search's `unknown`. Whichever decides first
   * stops the other, and the answer comes once both have stopped. One
   * `onSettled` event and one `completed` count, as for any solve; the helper
   * writes its progress to `helperProgress` when given. When the full search
   * ends undecided (not cancelled) while the helper runs, a second helper on
   * the freed worker (if idle, with time left) runs the pooled pass with the
   * poolings in reverse order, writing to the full search's progress slot:
   * on Streets and Alleys 794 the two open poolings are ♣♠ (fifth) and ♦♠
   * (sixth), and the second round of one pass runs them in turn, each with
   * half the time left. A helper
   * that gives its worker up to another solve hands the claim back, so the
   * full search may still run the pass after it.
   */
  async #solveWithHelperPass(task: SolveTask, allowedMs: number, signal: AbortSignal | undefined, helperProgress: Float64Array | undefined): Promise<SolveOutcome> {
    const submitted = Date.now();
    const startedAt = new Float64Array(task.stop.buffer, STARTED_AT_BYTE, 1);
    const stopFull = new AbortController();
    const stopHelper = new AbortController();
    const stopSecond = new AbortController();
    const onAbort = () => {
      stopFull.abort();
      stopHelper.abort();
      stopSecond.abort();
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });

    let helper: Promise<SolveOutcome | SolverError> | undefined;
    let helperRunning = false;
    let firstHelperFlags: Int32Array | undefined;
    let second: Promise<SolveOutcome | SolverError> | undefined;
    let helperProof: SolveOutcome | undefined;
    // the second helper's flags, made now so that the first helper's proof can stop it (SolveTask.stopOnProof)
    const secondFlags = newFlags();
    let timer: NodeJS.Timeout | undefined;
    const yieldWorker = () => {
      // another solve needs the worker: give it up, and the claim with it
      Atomics.compareExchange(task.stop, POOLED_CLAIM_INDEX, POOLED_ELSEWHERE, 0);
      stopHelper.abort();
    };
    const tryHelper = () => {
      timer = undefined;
      if (stopFull.signal.aborted || this.#closing) return;
      const started = startedAt[0];
      const left = started === 0 ? task.limits.timeoutMs : task.limits.timeoutMs - (Date.now() - started);
      if (left < POOLED_PASS_MIN_MS) return;
      if (started === 0 || this.#inFlight.size >= this.#threads) {
        timer = setTimeout(tryHelper, HELPER_RECHECK_MS);
        return;
      }
      if (!claimPooledPass(task.stop, POOLED_ELSEWHERE)) return; // its own worker runs the pass already
      const helperFlags = newFlags();
      // the guided pass (limits.guided) runs first in this helper, not in the second one
      const helperTask: SolveTask = { deal: task.deal, limits: { maxStates: task.limits.maxStates, timeoutMs: left, ...(task.limits.guided ? { guided: true } : {}) }, stop: helperFlags, pass: 'pooled' };
      firstHelperFlags = helperFlags;
      if (task.proof) helperTask.proof = task.proof;
      // a guided solution is shortened as the full search's would be
      if (task.optimize && task.limits.guided) helperTask.optimize = task.optimize;
      if (helperProgress) helperTask.progress = helperProgress;
      // a pooled proof stops the full search (and a second helper) at once, before the helper builds its certificate
      helperTask.stopOnProof = [task.stop, secondFlags];
      this.#helpers.add(yieldWorker);
      helperRunning = true;
      helper = this.#run(helperTask, left + (helperTask.optimize?.budgetMs ?? 0), stopHelper.signal, 1, 'helper').then((answer) => {
        helperRunning = false;
        this.#helpers.delete(yieldWorker);
        const only = answer instanceof SolverError ? answer : answer[0];
        // a pooled proof, or a checked solution of the guided pass (limits.guided)
        if (!(only instanceof SolverError) && (only.verdict === 'unsolvable' || only.verdict === 'solved')) {
          helperProof ??= only;
          stopFull.abort();
          stopSecond.abort();
        }
        return only;
      });
    };
    /**
     * The full search ended undecided while the helper pass runs: its worker
     * is free, so (when idle and with time left) a second helper runs the
     * pooled pass from the other end (the poolings in reverse order), and
     * the first of the two to prove stops the other. It gives its worker up
     * to another solve as the first helper does.
     */
    const trySecond = () => {
      if (!helperRunning || helperProof !== undefined || stopHelper.signal.aborted || this.#closing) return;
      const started = startedAt[0];
      const left = task.limits.timeoutMs - (Date.now() - started);
      if (started === 0 || left < POOLED_PASS_MIN_MS || this.#inFlight.size >= this.#threads) return;
      const secondTask: SolveTask = {
        deal: task.deal,
        limits: { maxStates: task.limits.maxStates, timeoutMs: left },
        stop: secondFlags,
        pass: 'pooled',
        poolings: [...POOLINGS_TO_TRY].reverse(),
      };
      if (firstHelperFlags) secondTask.stopOnProof = [firstHelperFlags];
      if (task.proof) secondTask.proof = task.proof;
      // the full search's progress slot is free now
      if (task.progress) secondTask.progress = task.progress;
      const yieldSecond = () => stopSecond.abort();
      this.#helpers.add(yieldSecond);
      second = this.#run(secondTask, left, stopSecond.signal, 1, 'helper').then((answer) => {
        this.#helpers.delete(yieldSecond);
        const only = answer instanceof SolverError ? answer : answer[0];
        if (!(only instanceof SolverError) && only.verdict === 'unsolvable') {
          helperProof ??= only;
          stopHelper.abort();
        }
        return only;
      });
    };
    timer = setTimeout(tryHelper, this.#helperPassAfterMs);

    let result: SolveOutcome | SolverError;
    try {
      const answer = await this.#run(task, allowedMs, stopFull.signal, 1, 'unsettled');
      clearTimeout(timer);
      const full = answer instanceof SolverError ? answer : answer[0];
      const decided = !(full instanceof SolverError) && full.verdict !== 'unknown';
      let helperFault: SolverError | undefined;
      if (!decided && helper !== undefined && !signal?.aborted) {
        const cancelled = !(full instanceof SolverError) && full.reason === 'cancelled';
        if (!cancelled) trySecond();
        for (const answer of await Promise.all([helper, second])) if (answer instanceof SolverError) helperFault ??= answer;
      }
      if (decided && helperProof !== undefined && !(full instanceof SolverError) && helperProof.verdict !== full.verdict) {
        // both cannot be right: keep the real game's verdict (a replayed solution or a complete search) and say so
        this.#log.error('solver pool: the pooled pass proved a deal unsolvable that the full search decided', { verdict: full.verdict });
      }
      // a helper that stopped the full search with its proof (stopOnProof) and then failed (building its certificate): its error, not a cancel nobody asked for
      const stoppedByHelper = !decided && !signal?.aborted && !(full instanceof SolverError) && full.reason === 'cancelled';
      result = decided || helperProof === undefined ? (stoppedByHelper && helperFault ? helperFault : full) : helperProof;
    } finally {
      clearTimeout(timer);
      stopHelper.abort();
      stopSecond.abort();
      signal?.removeEventListener('abort', onAbort);
      // the answer comes once every search has stopped (a helper stops within one poll of its flag)
      if (helper !== undefined) await helper.catch(() => undefined);
      if (second !== undefined) await second.catch(() => undefined);
    }
    const queuedMs = startedAt[0] === 0 ? 0 : Math.max(0, startedAt[0] - submitted);
    if (result instanceof SolverError) {
      this.#settled({ error: result, queuedMs, totalMs: Date.now() - submitted });
      throw result;
    }
    this.#settled({ outcome: result, queuedMs, totalMs: Date.now() - submitted });
    return result;
  }

  /**
   * Solves several deals with the same limits as one task on one worker, in
   * order: the pool's per-task costs (messages, clones, timers, Piscina's
   * bookkeeping, about 0.2 ms CPU a task on this machine) are paid once for
   * all of them, which matters when a solve itself takes well under a
   * millisecond (batches of MS FreeCell deals). A cancel stops the deal being
   * solved and skips the rest (each answers `unknown`/`cancelled`); the
   * deadline backstop allows `limits.timeoutMs` for every deal.
   * @returns one entry per deal, in order: its outcome, or the `SolverError`
   *   of that deal alone (e.g. `engine_trap`; the worker resets its engine and
   *   goes on with the next deal).
   * @throws SolverError `overloaded` (queue full or closing), and the errors
   *   of a task that lost its worker (`worker_crashed`, `out_of_memory`,
   *   `engine_unresponsive`): then no deal of the task has an answer.
   */
  async solveMany(deals: readonly Deal[], limits: SolveLimits, signal?: AbortSignal): Promise<(SolveOutcome | SolverError)[]> {
    if (deals.length === 0) return [];
    const answer = await this.#solveShared(deals, limits, signal);
    if (answer instanceof SolverError) throw answer;
    return answer;
  }

  /**
   * `solveMany` with each solution's moves left packed (`packMoves` of
   * client-sdk/core/moves.ts, 8 bytes a move), for a consumer that stores
   * or counts them rather than reading them as objects (the batch stores
   * pack them again): no move object is made on this thread. Each solution
   * was replayed by the checker in the worker, as for `solve`.
   * @returns per deal, in order: `{outcome, moves}` (`outcome.moves` empty,
   *   `moves` empty unless solved), or that deal's `SolverError`.
   * @throws as `solveMany`.
   */
  async solveManyPacked(deals: readonly Deal[], limits: SolveLimits, signal?: AbortSignal): Promise<(PackedOutcome | SolverError)[]> {
    if (deals.length === 0) return [];
    const movesOut: Uint8Array[] = [];
    const answer = await this.#solveShared(deals, limits, signal, movesOut);
    if (answer instanceof SolverError) throw answer;
    return answer.map((outcome, i) => (outcome instanceof SolverError ? outcome : { outcome, moves: movesOut[i] ?? NO_MOVES }));
  }

  /**
   * A shared run (`solveMany`): the deals cross once a share, with a cursor
   * in shared memory; each share (a task on a worker) claims the next deal
   * no share has claimed until none is left (worker-protocol.ts
   * `SolveTask.claim`). The run starts with one share on a free worker (or
   * waits in the queue as one task) and every worker that frees up while
   * nothing else waits joins it with a share of its own (`#nextWaiting`), so
   * the run's deals spread over the workers one deal at a time and no
   * worker idles while one has deals left: one hand-off a share, not one a
   * deal or a fixed slice. A
   * share stops claiming when other tasks wait for a worker
   * (`SolveTask.yieldTo`), so a single solve waits for one deal, not for
   * the run; the rest of the run then queues again behind it.
   * Resolves with every deal's answer in order (`cancelled` for a deal no
   * share began: a cancel, `close`), or with the one error of a share that
   * lost its worker (then no deal has an answer, as for a task of several
   * deals: the other shares are stopped). With `movesOut`, each answered
   * deal's moves stay packed there, by index.
   */
  #solveShared(deals: readonly Deal[], limits: SolveLimits, signal: AbortSignal | undefined, movesOut?: Uint8Array[]): Promise<(SolveOutcome | SolverError)[] | SolverError> {
    const submitted = Date.now();
    const count = deals.length;
    const refuse = (error: SolverError) => {
      for (let i = 0; i < count; i++) this.#settled({ error, queuedMs: 0, totalMs: Date.now() - submitted });
      return Promise.resolve(error);
    };
    if (this.#closing) return refuse(new SolverError('overloaded', 'the service is shutting down'));
    if (signal?.aborted) return Promise.resolve(Array.from({ length: count }, cancelledOutcome));
    const full = this.#queueFull();
    if (full !== undefined) return refuse(full);
    let base: SharedRun['base'];
    try {
      const packed = packDeals(deals, true);
      base = packed ? { packed, limits } : { deals: [...deals], limits };
    } catch (err) {
      return refuse(new SolverError('engine_error', `the deals cannot be sent to a worker: ${err instanceof Error ? err.message : String(err)}`));
    }
    if (this.#memoryLimitBytes !== undefined) base.memoryLimitBytes = this.#memoryLimitBytes;
    if (this.#recycleMemoryBytes !== undefined) base.recycleMemoryBytes = this.#recycleMemoryBytes;
    return new Promise((resolve) => {
      const run: SharedRun = {
        base,
        count,
        claim: new Int32Array(new SharedArrayBuffer(4)),
        submitted,
        firstStart: 0,
        answers: new Array(count),
        movesOut,
        answered: 0,
        shares: new Set(),
        why: undefined,
        failure: undefined,
        done: false,
        signal,
        onAbort: () => this.#stopRun(run, 'cancel'),
        resolve,
        scope: new AsyncResource('SolverPool.solveMany'),
      };
      signal?.addEventListener('abort', run.onAbort, { once: true });
      // a helper pass only has a worker nobody else wants
      if (this.#inFlight.size >= this.#threads) for (const yieldWorker of this.#helpers) yieldWorker();
      this.#runs.add(run);
      this.#addShare(run, this.#onWorkers < this.#threads);
      // the other free workers join it at once
      this.#nextWaiting();
    });
  }

  /**
   * A new share of `run`: handed to a worker now (`onWorker`, counted in
   * `#onWorkers` here), or put at the end of the queue.
   */
  #addShare(run: SharedRun, onWorker: boolean): void {
    const flags = this.#takeFlags();
    const share: Share = { flags, startedAt: new Float64Array(flags.buffer, STARTED_AT_BYTE, 1), why: undefined, killTimer: undefined, killed: false, waiting: undefined, ended: false };
    run.shares.add(share);
    // the deadline backstop of a task of several deals: the deals' time together, from the share's start
    const allowedMs = run.base.limits.timeoutMs * run.count;
    this.#inFlight.set(flags, { startedAt: share.startedAt, allowedMs, requestStop: (reason) => this.#stopShare(run, share, reason) });
    this.#armSweep(Date.now() + allowedMs + this.#stopGraceMs);
    if (onWorker) {
      this.#onWorkers++;
      this.#startShare(run, share);
      return;
    }
    const waiting: Waiting = {
      shared: true,
      go: (go) => {
        share.waiting = undefined;
        if (go) this.#startShare(run, share);
        else this.#shareEnded(run, share);
      },
    };
    share.waiting = waiting;
    this.#waiting.push(waiting);
  }

  /**
   * Hands `share` to Piscina (the caller counted it in `#onWorkers`) and
   * takes its answer in: its worker gets its next task first, then the
   * answers are read (a share's answers take the main thread ~5 µs a deal,
   * which its worker would otherwise wait for).
   */
  #startShare(run: SharedRun, share: Share): void {
    run.scope.runInAsyncScope(() => {
      const task: SolveTask = { ...run.base, stop: share.flags, claim: run.claim, yieldTo: this.#yieldTo };
      const freed = () => {
        // a retire request first, so that the balancer passes the worker over (its flags are still in #inFlight)
        const retire = Atomics.load(share.flags, RETIRE_INDEX);
        if (retire !== 0 && !this.#closing) this.#retire(retire);
        this.#onWorkers--;
        this.#nextWaiting();
      };
      this.#piscina
        .run(task)
        .then(
          (result) => {
            freed();
            this.#shareAnswered(run, share, result);
          },
          (err: unknown) => {
            freed();
            this.#shareFailed(run, share, err);
          },
        )
        .catch((err: unknown) => this.#shareFailed(run, share, err))
        .finally(() => {
          if (!share.ended) this.#shareEnded(run, share);
          this.#checkIdle();
        })
        // none expected (the handlers above answer every case), but never an unhandled rejection
        .catch((err: unknown) => this.#log.error('solver pool: a share of a shared run failed', err));
    });
  }

  /** A share's answer: each deal it claimed gets its outcome (or failure) at its index in the run. */
  #shareAnswered(run: SharedRun, share: Share, result: SolveTaskResult): void {
    if (share.ended) return;
    if (run.firstStart === 0 || (share.startedAt[0] !== 0 && share.startedAt[0] < run.firstStart)) run.firstStart = share.startedAt[0];
    if (!('packed' in result) || result.packed === undefined || result.claimed === undefined) throw new Error('a share of a shared run answered without the deals it claimed');
    const claimed = result.claimed;
    let timedOut = false;
    const index = (i: number): number => {
      const at = claimed[i];
      if (!(Number.isInteger(at) && at >= 0 && at < run.count) || run.answers[at] !== undefined) throw new RangeError(`a share answered deal ${at} of ${run.count} twice or out of range`);
      return at;
    };
    unpackAnswers(
      result.packed,
      (i, outcome, moves) => {
        const at = index(i);
        // A stop the pool requested for the deadline is a timeout, not a cancel.
        if (share.why === 'deadline' && !timedOut && outcome.verdict === 'unknown' && outcome.reason === 'cancelled') {
          outcome.reason = 'timeout';
          timedOut = true;
        }
        if (run.movesOut !== undefined) run.movesOut[at] = moves;
        else outcome.moves = unpackMoves(moves);
        run.answers[at] = outcome;
        run.answered++;
      },
      (i, failure) => {
        const at = index(i);
        const { code, message, location, detail } = failure;
        const error = new SolverError(code, message, location);
        if (error.status >= 500) this.#log.error(`solver pool: solve failed (${code})`, detail ?? message);
        run.answers[at] = error;
        run.answered++;
      },
    );
    if (claimed.length !== result.packed.head.length / ANSWER_FIELDS) throw new RangeError('a share answered a different number of deals than it claimed');
  }

  /**
   * A share that lost its worker (or answered malformed): the run fails as
   * a whole with the share's error (its claimed deals' answers are lost), and
   * its other shares stop; a share the pool terminated after a cancel only
   * leaves its deals `cancelled`, and so does one that no worker began when
   * the pool closed (Piscina's close fails the tasks still in its queue).
   */
  #shareFailed(run: SharedRun, share: Share, err: unknown): void {
    if (share.ended) return;
    if (share.killed && share.why === 'cancel') {
      this.#log.warn('solver pool: a cancelled solve did not stop in time; its worker was terminated');
    } else if (this.#closing && Atomics.load(share.flags, RUNNING_ON_INDEX) === 0) {
      // dropped while it waited for a worker (one still starting): it began no deal, so no answer was lost; the run's deals not done answer `cancelled`
    } else if (run.failure === undefined) {
      const error = mapTaskError(err, share.killed ? share.why : undefined);
      if (!(err instanceof SolverError)) this.#log.error(`solver pool: solve failed (${error.code})`, err);
      run.failure = error;
      for (const other of run.shares) if (other !== share) this.#stopShare(run, other, 'cancel');
    }
  }

  /**
   * A share is over (answered, failed, or dropped from the queue): out of
   * `#inFlight`; when the run still has deals nobody claimed (its shares
   * gave their workers to other tasks, or a worker retired) and no share
   * left, a new share waits in the queue for them; with none left, the run
   * is answered.
   */
  #shareEnded(run: SharedRun, share: Share): void {
    if (share.ended) return;
    share.ended = true;
    clearTimeout(share.killTimer);
    run.shares.delete(share);
    this.#inFlight.delete(share.flags);
    this.#giveBackFlags(share.flags);
    if (run.shares.size === 0 && !run.done && run.why === undefined && run.failure === undefined && !this.#closing && Atomics.load(run.claim, 0) < run.count) {
      this.#addShare(run, false);
      // at once if a worker is free
      this.#nextWaiting();
      return;
    }
    this.#finishRun(run);
    // a share given up or dropped from the queue ends with no task settling after it (whose end checks too): drain() must hear of it here
    this.#checkIdle();
  }

  /**
   * Stops a run for `reason`: no more shares, each running one's stop flag
   * (its deal answers `cancelled`, the deals after it are never claimed),
   * a waiting one out of the queue.
   */
  #stopRun(run: SharedRun, reason: StopReason): void {
    if (run.done || run.why !== undefined) return;
    run.why = reason;
    this.#runs.delete(run);
    for (const share of [...run.shares]) this.#stopShare(run, share, reason);
  }

  /** Stops one share: out of the queue if it waits there, else its stop flag, and its worker terminated `stopGraceMs` later unless it has answered. */
  #stopShare(run: SharedRun, share: Share, reason: StopReason): void {
    if (share.ended || share.why !== undefined) return;
    share.why = reason;
    const waiting = share.waiting;
    if (waiting !== undefined) {
      const at = this.#waiting.indexOf(waiting);
      if (at >= 0) this.#waiting.splice(at, 1);
      share.waiting = undefined;
      this.#shareEnded(run, share);
      return;
    }
    Atomics.store(share.flags, STOP_INDEX, 1);
    Atomics.notify(share.flags, STOP_INDEX);
    share.killTimer = setTimeout(() => {
      share.killTimer = undefined;
      if (share.ended) return;
      const threadId = Atomics.load(share.flags, RUNNING_ON_INDEX);
      const worker = this.#workerOf(threadId);
      if (worker === undefined) {
        // never begun (its worker still starting, or never): given up; the task, if a worker ever takes it, sees its stop flag
        if (threadId === 0 && share.why === 'cancel') {
          this.#log.warn('solver pool: a cancelled solve had not begun on a worker in time; it was given up');
          this.#shareEnded(run, share);
        }
        return;
      }
      share.killed = true;
      void worker.terminate();
    }, this.#stopGraceMs);
  }

  /** Answers a run whose shares are all over (once): every deal's answer in order, or the run's failure. */
  #finishRun(run: SharedRun): void {
    if (run.done || run.shares.size > 0) return;
    run.done = true;
    this.#runs.delete(run);
    run.signal?.removeEventListener('abort', run.onAbort);
    run.scope.runInAsyncScope(() => {
      const started = run.firstStart;
      const queuedMs = started === 0 ? 0 : Math.max(0, started - run.submitted);
      const totalMs = Date.now() - run.submitted;
      if (run.failure !== undefined) {
        for (let i = 0; i < run.count; i++) this.#settled({ error: run.failure, queuedMs, totalMs });
        run.resolve(run.failure);
        return;
      }
      this.#completed += run.answered;
      const answers = run.answers;
      for (let i = 0; i < run.count; i++) {
        const answer = (answers[i] ??= cancelledOutcome());
        this.#settled(answer instanceof SolverError ? { error: answer, queuedMs, totalMs } : { outcome: answer, queuedMs, totalMs });
      }
      run.resolve(answers as (SolveOutcome | SolverError)[]);
    });
  }

  /**
   * Runs one task on a worker: the queue limit, the stop flag (cancel,
   * deadline backstop `allowedMs` from the task's start), the answer's
   * failures rebuilt as `SolverError`s, and one `onSettled` event per deal
   * (`count` deals). Resolves with the outcomes (or per-deal errors) in
   * order, or with the one error that ended the whole task. With
   * `movesOut`, each answered deal's moves stay packed: `movesOut[i]` gets
   * deal i's bytes (`packMoves` format) and its outcome's `moves` is empty.
   */
  async #run(
    task: SolveTask,
    allowedMs: number,
    signal: AbortSignal | undefined,
    count: number,
    role: 'solve' | 'unsettled' | 'helper' = 'solve',
    movesOut?: Uint8Array[],
  ): Promise<(SolveOutcome | SolverError)[] | SolverError> {
    const submitted = Date.now();
    // 'unsettled': the caller reports the solve itself; 'helper': a helper pass, neither reported nor counted
    const settle = role === 'solve' ? (event: SolveEvent) => this.#settled(event) : () => {};
    const settleAll = (event: Omit<SolveEvent, 'totalMs'>) => {
      for (let i = 0; i < count; i++) settle({ ...event, totalMs: Date.now() - submitted });
    };
    const refuse = (error: SolverError) => {
      settleAll({ error, queuedMs: 0 });
      return error;
    };
    if (this.#closing) return refuse(new SolverError('overloaded', 'the service is shutting down'));
    if (signal?.aborted) return Array.from({ length: count }, cancelledOutcome);
    const full = this.#queueFull();
    if (full !== undefined) return refuse(full);

    const stop = task.stop;
    const startedAt = new Float64Array(stop.buffer, STARTED_AT_BYTE, 1);
    let why: StopReason | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    /** Set while the task is in the pool's queue: drops it from there. */
    let dequeue: (() => void) | undefined;
    /** True once the pool terminated the task's worker (deaf to its stop flag). */
    let killed = false;
    // The last resort: the worker that runs the task (its threadId is in the flags once it began) is terminated.
    // A task handed to Piscina that has not begun `stopGraceMs` after a cancel (its worker still starting, or
    // never) is given up: the solve answers `cancelled` now, and the task, if a worker ever takes it, sees its stop flag.
    let giveUp: ((value: 'given_up') => void) | undefined;
    const givenUp = new Promise<'given_up'>((resolve) => {
      giveUp = resolve;
    });
    const kill = () => {
      killTimer = undefined;
      const threadId = Atomics.load(stop, RUNNING_ON_INDEX);
      const worker = this.#workerOf(threadId);
      if (worker === undefined) {
        if (threadId === 0 && why === 'cancel') giveUp?.('given_up');
        return;
      }
      killed = true;
      void worker.terminate();
    };

    const requestStop = (reason: StopReason) => {
      if (why !== undefined) return;
      why = reason;
      Atomics.store(stop, STOP_INDEX, 1);
      Atomics.notify(stop, STOP_INDEX);
      if (dequeue !== undefined) dequeue();
      else killTimer = setTimeout(kill, this.#stopGraceMs);
    };
    const onAbort = () => requestStop('cancel');
    signal?.addEventListener('abort', onAbort, { once: true });


    if (this.#memoryLimitBytes !== undefined) task.memoryLimitBytes = this.#memoryLimitBytes;
    if (this.#recycleMemoryBytes !== undefined) task.recycleMemoryBytes = this.#recycleMemoryBytes;
    const queuedMs = () => (startedAt[0] === 0 ? 0 : Math.max(0, startedAt[0] - submitted));

    // a helper pass only has a worker nobody else wants
    if (role !== 'helper' && this.#inFlight.size >= this.#threads) for (const yieldWorker of this.#helpers) yieldWorker();
    this.#inFlight.set(stop, { startedAt, allowedMs, requestStop });
    // Deadline backstop (the engine keeps its own deadline; this only catches one that does not): the shared sweep
    this.#armSweep(submitted + allowedMs + this.#stopGraceMs);
    let onWorker = false;
    try {
      if (this.#onWorkers >= this.#threads) {
        // every worker has a task: wait in the pool's queue (FIFO), or leave it when cancelled
        const run = await new Promise<boolean>((resolve) => {
          const waiting: Waiting = { go: resolve };
          this.#waiting.push(waiting);
          this.#updateYield();
          dequeue = () => {
            const at = this.#waiting.indexOf(waiting);
            if (at >= 0) {
              this.#waiting.splice(at, 1);
              // one task fewer for the running shares to give their workers up to
              this.#updateYield();
              resolve(false);
            } else {
              // already handed on (its turn came in this tick): stopped like a running task
              killTimer = setTimeout(kill, this.#stopGraceMs);
            }
          };
        });
        dequeue = undefined;
        if (!run) {
          const outcomes = Array.from({ length: count }, cancelledOutcome);
          for (const outcome of outcomes) settle({ outcome, queuedMs: 0, totalMs: Date.now() - submitted });
          return outcomes;
        }
      } else {
        this.#onWorkers++;
      }
      onWorker = true;
      const result = await Promise.race([this.#piscina.run(task), givenUp]);
      if (result === 'given_up') {
        this.#log.warn('solver pool: a cancelled solve had not begun on a worker in time; it was given up');
        const outcomes = Array.from({ length: count }, cancelledOutcome);
        for (const outcome of outcomes) settle({ outcome, queuedMs: queuedMs(), totalMs: Date.now() - submitted });
        return outcomes;
      }
      // The backstop's stop ends the deal being solved (a timeout) and skips the rest (still cancelled: never tried).
      let timedOut = false;
      const out: (SolveOutcome | SolverError)[] = [];
      const onFailure = (_i: number, failure: TaskFailure['error']) => {
        const { code, message, location, detail } = failure;
        const error = new SolverError(code, message, location);
        if (error.status >= 500) this.#log.error(`solver pool: solve failed (${code})`, detail ?? message);
        settle({ error, queuedMs: queuedMs(), totalMs: Date.now() - submitted });
        out.push(error);
      };
      const onAnswer = (i: number, outcome: SolveOutcome, moves: Uint8Array) => {
        // A stop the pool requested for the deadline is a timeout, not a cancel.
        if (why === 'deadline' && !timedOut && outcome.verdict === 'unknown' && outcome.reason === 'cancelled') {
          outcome.reason = 'timeout';
          timedOut = true;
        }
        // the caller's consumer takes the bytes (solveManyPacked), else the moves as objects
        if (movesOut !== undefined) movesOut[i] = moves;
        else outcome.moves = unpackMoves(moves);
        settle({ outcome, queuedMs: queuedMs(), totalMs: Date.now() - submitted });
        out.push(outcome);
      };
      if ('packed' in result && result.packed !== undefined) {
        unpackAnswers(result.packed, onAnswer, onFailure);
      } else {
        const answers: SolveAnswer[] = 'many' in result && result.many !== undefined ? result.many : [result as SolveAnswer];
        answers.forEach((answer, i) => (answer.ok ? onAnswer(i, answer.outcome, answer.moves) : onFailure(i, answer.error)));
      }
      if (role !== 'helper') this.#completed += out.length;
      return out;
    } catch (err) {
      if (killed && why === 'cancel') {
        // Cancelled and the worker had to go.
        this.#log.warn('solver pool: a cancelled solve did not stop in time; its worker was terminated');
        const outcomes = Array.from({ length: count }, cancelledOutcome);
        for (const outcome of outcomes) settle({ outcome, queuedMs: queuedMs(), totalMs: Date.now() - submitted });
        return outcomes;
      }
      const error = mapTaskError(err, killed ? why : undefined);
      if (!(err instanceof SolverError)) this.#log.error(`solver pool: solve failed (${error.code})`, err);
      settleAll({ error, queuedMs: queuedMs() });
      return error;
    } finally {
      const retire = Atomics.load(stop, RETIRE_INDEX);
      if (retire !== 0 && !this.#closing) this.#retire(retire);
      this.#inFlight.delete(stop);
      if (onWorker) {
        this.#onWorkers--;
        // the next waiting task, now that the balancer knows of a retiring worker
        this.#nextWaiting();
      }
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      this.#checkIdle();
    }
  }

  /**
   * `solve` of a plain deal (no options, no helper pass): like `#run` for one
   * deal, but the solve may share its task with other plain solves waiting
   * in the queue (`#nextWaiting`, `#runGroup`). A lone solve (a worker free)
   * goes at once, alone, in the same task as before grouping existed.
   */
  #solvePlain(deal: Deal, limits: SolveLimits, signal: AbortSignal | undefined): Promise<SolveOutcome> {
    const submitted = Date.now();
    const refuse = (error: SolverError) => {
      this.#settled({ error, queuedMs: 0, totalMs: Date.now() - submitted });
      return Promise.reject(error);
    };
    if (this.#closing) return refuse(new SolverError('overloaded', 'the service is shutting down'));
    if (signal?.aborted) return Promise.resolve(cancelledOutcome());
    const full = this.#queueFull();
    if (full !== undefined) return refuse(full);
    return new Promise<SolveOutcome>((resolve, reject) => {
      const flags = this.#takeFlags();
      const member: Member = {
        deal,
        limits,
        flags,
        startedAt: new Float64Array(flags.buffer, STARTED_AT_BYTE, 1),
        submitted,
        signal,
        onAbort: () => this.#stopMember(member, 'cancel'),
        answer: (value) => (value instanceof SolverError ? reject(value) : resolve(value)),
        waiting: undefined,
        why: undefined,
        killTimer: undefined,
        killed: false,
        done: false,
        retried: false,
        scope: new AsyncResource('SolverPool.solve'),
      };
      signal?.addEventListener('abort', member.onAbort, { once: true });
      // a helper pass only has a worker nobody else wants
      if (this.#inFlight.size >= this.#threads) for (const yieldWorker of this.#helpers) yieldWorker();
      this.#inFlight.set(flags, { startedAt: member.startedAt, allowedMs: limits.timeoutMs, requestStop: (reason) => this.#stopMember(member, reason) });
      // Deadline backstop (the engine keeps its own deadline; this only catches one that does not): the shared sweep
      this.#armSweep(submitted + limits.timeoutMs + this.#stopGraceMs);
      if (this.#onWorkers < this.#threads) {
        this.#onWorkers++;
        this.#startGroup([member]);
      } else {
        this.#enqueue(member, false);
      }
    });
  }

  /** Puts `member` in the pool's queue: at its end, or (`first`) at its head (a deal handed back after its group's fault). */
  #enqueue(member: Member, first: boolean): void {
    const waiting: Waiting = {
      member,
      go: (run) => {
        member.waiting = undefined;
        if (run) this.#startGroup([member]);
        else this.#finishMember(member, cancelledOutcome(), false);
      },
    };
    member.waiting = waiting;
    if (first) this.#waiting.unshift(waiting);
    else this.#waiting.push(waiting);
    this.#updateYield();
  }

  /**
   * Stops one plain solve for `reason`: its stop flag, then, while it waits
   * in the queue, out of the queue with `cancelled` at once; handed to a
   * worker that has not begun it (in a group, behind other deals), taken
   * back (`withdraw`) and answered `cancelled` at once; begun, the worker
   * that runs it is terminated `stopGraceMs` later unless it has stopped.
   * A cancelled deal of a group, begun, is answered as soon as the worker
   * marks it ended (`ENDED_INDEX`), not when the whole group ends; one that
   * had ended already, whose answer would come with its group's, at once.
   * The deadline backstop leaves a deal of a group that has ended alone (it
   * stopped in time, and may have been solved).
   */
  #stopMember(member: Member, reason: StopReason): void {
    if (member.why !== undefined || member.done) return;
    const flags = member.flags;
    if (reason === 'deadline' && Atomics.load(flags, ENDED_INDEX) !== 0) return;
    member.why = reason;
    Atomics.store(flags, STOP_INDEX, 1);
    Atomics.notify(flags, STOP_INDEX);
    const waiting = member.waiting;
    if (waiting !== undefined) {
      const at = this.#waiting.indexOf(waiting);
      if (at >= 0) this.#waiting.splice(at, 1);
      member.waiting = undefined;
      // one task fewer for the running shares to give their workers up to
      this.#updateYield();
      this.#finishMember(member, cancelledOutcome(), false);
    } else if (withdraw(flags)) {
      this.#finishMember(member, cancelledOutcome(), false);
    } else {
      member.killTimer = setTimeout(() => this.#killMember(member), this.#stopGraceMs);
      // a cancelled deal's answer is of no use beyond its verdict; one stopped for its deadline may have solved it meanwhile: that waits for its group's answer
      if (reason === 'cancel' && this.#grouped.has(member)) this.#answerWhenEnded(member);
    }
  }

  /**
   * A begun deal of a group, cancelled: answered `cancelled` once the worker
   * marks it ended (worker-protocol.ts `forEachDealOfTask` notifies
   * `ENDED_INDEX`), at once if it has, while the rest of its group runs on;
   * its own answer, which comes with the group's, is dropped. Waits at most
   * `stopGraceMs`; after that `#killMember` decides.
   */
  #answerWhenEnded(member: Member): void {
    const ended = () => {
      if (!member.done && Atomics.load(member.flags, ENDED_INDEX) !== 0) this.#finishMember(member, cancelledOutcome(), true);
    };
    const wait = Atomics.waitAsync(member.flags, ENDED_INDEX, 0, this.#stopGraceMs);
    if (wait.async) void wait.value.then(ended);
    else ended();
  }

  /** The last resort for a begun plain solve deaf to its stop flag: its worker is terminated (its group's task then fails: `#groupFailed`). */
  #killMember(member: Member): void {
    member.killTimer = undefined;
    if (member.done || Atomics.load(member.flags, ENDED_INDEX) !== 0) return;
    const threadId = Atomics.load(member.flags, RUNNING_ON_INDEX);
    const worker = this.#workerOf(threadId);
    if (worker === undefined) return;
    member.killed = true;
    void worker.terminate();
  }

  /**
   * Answers one plain solve (once; later calls are ignored): out of
   * `#inFlight`, its `onSettled` event, its flags back for reuse (not those
   * of a stopped solve), the caller's promise settled. `answered`: a worker
   * answered it (`PoolStats.completed`).
   */
  #finishMember(member: Member, value: SolveOutcome | SolverError, answered: boolean): void {
    if (member.done) return;
    member.scope.runInAsyncScope(() => this.#answerMember(member, value, answered));
  }

  /** `#finishMember`'s work, in the solve's own async context. */
  #answerMember(member: Member, value: SolveOutcome | SolverError, answered: boolean): void {
    member.done = true;
    clearTimeout(member.killTimer);
    member.signal?.removeEventListener('abort', member.onAbort);
    this.#grouped.delete(member);
    this.#inFlight.delete(member.flags);
    if (answered) this.#completed++;
    const started = member.startedAt[0];
    const event: SolveEvent = { queuedMs: started === 0 ? 0 : Math.max(0, started - member.submitted), totalMs: Date.now() - member.submitted };
    if (value instanceof SolverError) event.error = value;
    else event.outcome = value;
    this.#settled(event);
    this.#giveBackFlags(member.flags);
    member.answer(value);
    this.#checkIdle();
  }

  /** `#runGroup`, whose failures (none expected: it answers every deal itself) are logged, never left unhandled. */
  #startGroup(group: Member[]): void {
    // in the context of its first solve (a lone solve's own), not of whatever freed the worker
    group[0].scope.runInAsyncScope(() => {
      this.#runGroup(group).catch((err: unknown) => this.#log.error('solver pool: a task of plain solves failed', err));
    });
  }

  /**
   * Runs plain solves (one, or a group from `#nextWaiting`) as one task on
   * a worker; the caller has counted the task in `#onWorkers`. A group's
   * task carries every deal's own flags (`SolveTask.stops`) and their common
   * limits; one solve's task is the same as before grouping. Each deal is
   * answered on its own (`#groupAnswered`, `#groupFailed`).
   */
  async #runGroup(group: Member[]): Promise<void> {
    let result: SolveTaskResult | undefined;
    let failure: unknown;
    try {
      // building the task may throw too (rules that do not serialise): then the group fails as a lost task would
      result = await this.#piscina.run(this.#groupTask(group));
    } catch (err) {
      failure = err;
    }
    // retire requests first: an answered deal's flags go back for reuse, zeroed
    for (const m of group) {
      const retire = Atomics.load(m.flags, RETIRE_INDEX);
      if (retire !== 0 && !this.#closing) this.#retire(retire);
    }
    if (result !== undefined) {
      try {
        this.#groupAnswered(group, result);
      } catch (err) {
        failure = err;
      }
    }
    try {
      if (failure !== undefined) this.#groupFailed(group, failure);
    } finally {
      this.#onWorkers--;
      // the next waiting task, now that the balancer knows of a retiring worker
      this.#nextWaiting();
      this.#checkIdle();
    }
  }

  /**
   * The task of plain solves `group` (one or more, with the same limits):
   * the deals packed when they can be (worker-protocol.ts `packDeals`), else
   * as they are; for a group, every deal's own flags (`SolveTask.stops`),
   * and its members marked grouped.
   * @throws what `packDeals` throws (rules that JSON cannot carry).
   */
  #groupTask(group: Member[]): SolveTask {
    const first = group[0];
    const deals = group.map((m) => m.deal);
    const packed = packDeals(deals, false);
    const task: SolveTask = packed
      ? { packed, limits: first.limits, stop: first.flags }
      : group.length === 1
        ? { deal: first.deal, limits: first.limits, stop: first.flags }
        : { deals, limits: first.limits, stop: first.flags };
    if (group.length > 1) {
      task.stops = group.map((m) => m.flags);
      for (const m of group) this.#grouped.add(m);
    }
    if (this.#memoryLimitBytes !== undefined) task.memoryLimitBytes = this.#memoryLimitBytes;
    if (this.#recycleMemoryBytes !== undefined) task.recycleMemoryBytes = this.#recycleMemoryBytes;
    return task;
  }

  /** The answers of a plain solves' task, each deal's to that deal (one withdrawn before it began has its answer already). */
  #groupAnswered(group: Member[], result: SolveTaskResult): void {
    const onFailure = (i: number, failure: TaskFailure['error']) => {
      const member = group[i];
      if (member === undefined || member.done) return;
      const { code, message, location, detail } = failure;
      const error = new SolverError(code, message, location);
      if (error.status >= 500) member.scope.runInAsyncScope(() => this.#log.error(`solver pool: solve failed (${code})`, detail ?? message));
      this.#finishMember(member, error, true);
    };
    const onAnswer = (i: number, outcome: SolveOutcome, moves: Uint8Array) => {
      const member = group[i];
      if (member === undefined || member.done) return;
      // A stop the pool requested for the deadline is a timeout, not a cancel.
      if (member.why === 'deadline' && outcome.verdict === 'unknown' && outcome.reason === 'cancelled') outcome.reason = 'timeout';
      outcome.moves = unpackMoves(moves);
      this.#finishMember(member, outcome, true);
    };
    if ('packed' in result && result.packed !== undefined) {
      unpackAnswers(result.packed, onAnswer, onFailure);
    } else {
      const answers: SolveAnswer[] = 'many' in result && result.many !== undefined ? result.many : [result as SolveAnswer];
      answers.forEach((answer, i) => (answer.ok ? onAnswer(i, answer.outcome, answer.moves) : onFailure(i, answer.error)));
    }
    // a task that answered fewer deals than it carried (a malformed answer): the rest fail as a lost task would
    if (group.some((m) => !m.done)) throw new Error(`a task of ${group.length} plain solves answered fewer`);
  }

  /**
   * A plain solves' task that lost its worker (or whose answer was
   * malformed): the deal at fault gets the error a lone solve would (for the
   * deal the pool terminated the worker for: `cancelled` or
   * `engine_unresponsive`; else the deal the worker was running, the one
   * begun and not ended: `worker_crashed`, `out_of_memory`, ...). The other
   * deals of the group, whose answers are lost with the task, go back to the
   * head of the queue, each to run alone (a deterministic search answers
   * again as it would have); one stopped before the fault answers as it
   * was asked to (`cancelled`; for its deadline `unknown`/`timeout`), and
   * while closing `cancelled`.
   * When no deal can be blamed, every deal runs again alone.
   */
  #groupFailed(group: Member[], err: unknown): void {
    const pending = group.filter((m) => !m.done);
    if (pending.length === 0) return;
    const fail = (member: Member) =>
      member.scope.runInAsyncScope(() => {
        if (member.killed && member.why === 'cancel') {
          this.#log.warn('solver pool: a cancelled solve did not stop in time; its worker was terminated');
          this.#finishMember(member, cancelledOutcome(), false);
          return;
        }
        const error = mapTaskError(err, member.killed ? member.why : undefined);
        if (!(err instanceof SolverError)) this.#log.error(`solver pool: solve failed (${error.code})`, err);
        this.#finishMember(member, error, false);
      });
    if (group.length === 1) {
      fail(pending[0]);
      return;
    }
    const running = (m: Member) => Atomics.load(m.flags, RUNNING_ON_INDEX) > 0 && Atomics.load(m.flags, ENDED_INDEX) === 0;
    const culprit = pending.find((m) => m.killed) ?? pending.find(running);
    if (culprit !== undefined) fail(culprit);
    const again: Member[] = [];
    for (const member of pending) {
      if (member === culprit) continue;
      if (this.#closing || member.why === 'cancel') this.#finishMember(member, cancelledOutcome(), false);
      // stopped by the backstop and ended (the deal running at the fault is the culprit): its deadline has passed
      else if (member.why === 'deadline') this.#finishMember(member, { ...cancelledOutcome(), reason: 'timeout' }, false);
      else again.push(member);
    }
    // handed back in their order, ahead of the queue: they had their turn
    for (let i = again.length - 1; i >= 0; i--) {
      const member = again[i];
      this.#grouped.delete(member);
      member.retried = true;
      // the lost task's marks (its worker is gone or done with them): the deal starts afresh
      member.startedAt[0] = 0;
      Atomics.store(member.flags, RUNNING_ON_INDEX, 0);
      Atomics.store(member.flags, ENDED_INDEX, 0);
      Atomics.store(member.flags, RETIRE_INDEX, 0);
      this.#enqueue(member, true);
    }
    if (again.length > 0) this.#log.warn(`solver pool: ${again.length} solves of a failed group run again, each alone`);
  }

  /** Ends the deadline sweep and wakes `drain` once nothing is in flight. */
  #checkIdle(): void {
    if (this.#inFlight.size !== 0) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    this.#sweepAt = Infinity;
    for (const wake of this.#idleWaiters) wake();
  }

  /**
   * Hands the oldest waiting tasks to Piscina while fewer than `threads` are
   * there. A plain solve at the head takes the plain solves right behind it
   * that have the same limits (not one handed back after a fault) into its
   * task, up to `groupMax` and to a fair share of the queue: the solves
   * waiting now divided by `threads`, so that a slow deal holds up few
   * others and every worker gets some.
   */
  #nextWaiting(): void {
    this.#nextWaitingTasks();
    // a worker still free with nothing waiting joins a shared run that has deals left
    while (!this.#closing && this.#onWorkers < this.#threads && this.#waiting.length === 0) {
      let join: SharedRun | undefined;
      for (const run of this.#runs) {
        if (run.why === undefined && run.failure === undefined && Atomics.load(run.claim, 0) < run.count) {
          join = run;
          break;
        }
      }
      if (join === undefined) break;
      this.#addShare(join, true);
    }
    this.#updateYield();
  }

  /**
   * Tells running shares how many other tasks wait for a worker (`#yieldTo`):
   * after every change of the queue's tasks other than shares, since a share
   * that sees a count left from a task gone gives its worker up to nobody.
   */
  #updateYield(): void {
    let others = 0;
    for (const waiting of this.#waiting) if (waiting.shared !== true) others++;
    Atomics.store(this.#yieldTo, 0, others);
  }

  /** `#nextWaiting`'s first part: the queue's tasks, oldest first, with the grouping of plain solves. */
  #nextWaitingTasks(): void {
    const fairShare = Math.ceil(this.#waiting.length / this.#threads);
    while (this.#onWorkers < this.#threads && this.#waiting.length > 0) {
      this.#onWorkers++;
      const head = this.#waiting.shift()!;
      const member = head.member;
      const cap = Math.min(this.#groupMax, fairShare);
      if (member === undefined || member.retried || cap <= 1) {
        head.go(true);
        continue;
      }
      member.waiting = undefined;
      const group = [member];
      while (group.length < cap) {
        const next = this.#waiting[0]?.member;
        if (next === undefined || next.retried || !sameLimits(next.limits, member.limits)) break;
        this.#waiting.shift();
        next.waiting = undefined;
        group.push(next);
      }
      this.#startGroup(group);
    }
  }

  /** Makes the deadline sweep run at `at` (`Date.now()` ms) or earlier. */
  #armSweep(at: number): void {
    if (at >= this.#sweepAt) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepAt = at;
    this.#sweepTimer = setTimeout(() => this.#sweep(), Math.min(Math.max(at - Date.now(), SWEEP_MIN_MS), SWEEP_MAX_MS));
  }

  /**
   * The deadline backstop of every task in flight, one timer for all: a task
   * that began more than its `allowedMs` + `stopGraceMs` ago is asked to
   * stop (`deadline`; its worker is terminated `stopGraceMs` later if it
   * does not stop). Time waiting in the queue does not count: a task not begun is
   * looked at again after its `allowedMs`. The sweep re-arms for the
   * earliest next due time; the tasks' own clocks are the workers' start
   * times (`STARTED_AT_BYTE`).
   */
  #sweep(): void {
    this.#sweepTimer = undefined;
    this.#sweepAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const task of this.#inFlight.values()) {
      const started = task.startedAt[0];
      if (started === 0) {
        next = Math.min(next, now + task.allowedMs);
        continue;
      }
      const due = started + task.allowedMs + this.#stopGraceMs;
      if (due <= now) task.requestStop('deadline');
      else next = Math.min(next, due);
    }
    if (next !== Infinity) this.#armSweep(next);
  }

  #settled(event: SolveEvent): void {
    try {
      this.#onSettled?.(event);
    } catch (err) {
      this.#log.error('solver pool: onSettled failed', err);
    }
  }

  /** Current numbers of the pool. */
  stats(): PoolStats {
    const p = this.#piscina;
    // a deal of a group its worker has not begun yet still waits
    let lined = 0;
    for (const member of this.#grouped) if (member.startedAt[0] === 0) lined++;
    const queued = this.#waiting.length + p.queueSize + lined;
    return {
      threads: p.threads.length,
      running: Math.max(0, this.#inFlight.size - queued),
      queued,
      maxQueue: this.#maxQueue,
      completed: this.#completed,
      recycled: this.#recycled,
      inFlight: this.#inFlight.size,
      closing: this.#closing,
    };
  }

  /** True once `close()` was called: new solves are refused. */
  get closing(): boolean {
    return this.#closing;
  }

  /**
   * True when a solve submitted now would be refused `overloaded` (every
   * worker busy and the queue full, or closing): lets the HTTP layer shed a
   * request before it spends time parsing and dealing it.
   */
  isFull(): boolean {
    return this.#closing || this.#inFlight.size >= this.#threads + this.#maxQueue;
  }

  /**
   * Runs `deal` once on every worker (tiny budgets), so that each has its
   * engine instantiated before real traffic arrives. Failures are logged, not
   * thrown: a cold worker is slower, not broken.
   */
  async warmUp(deal: Deal): Promise<void> {
    const limits: SolveLimits = { maxStates: 1000, timeoutMs: 5000 };
    const runs = Array.from({ length: this.#threads }, () => this.solve(deal, limits));
    const results = await Promise.allSettled(runs);
    for (const r of results) if (r.status === 'rejected') this.#log.warn('solver pool: warm-up solve failed', r.reason);
  }

  /**
   * Waits until no solve is in flight, at most `timeoutMs`.
   * @returns true when the pool went idle, false when time ran out first.
   */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.#idleWaiters.delete(wake);
        resolve(idle);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#idleWaiters.add(wake);
    });
  }

  /**
   * Stops accepting solves, asks every running solve to stop (they answer
   * `unknown`/`cancelled` at once), and closes the workers.
   */
  async close(): Promise<void> {
    this.#closing = true;
    // the queue's tasks never start: they answer `cancelled` now
    for (const waiting of this.#waiting.splice(0)) waiting.go(false);
    // every stop flag, those of deals no worker has begun first: a deal behind a running one in its group's
    // task (which a worker may move on to the moment the running one stops) then never begins
    const flags = [...this.#inFlight.keys()];
    const begun = (stop: Int32Array) => Atomics.load(stop, RUNNING_ON_INDEX) !== 0;
    for (const stop of [...flags.filter((f) => !begun(f)), ...flags.filter(begun)]) {
      Atomics.store(stop, STOP_INDEX, 1);
      Atomics.notify(stop, STOP_INDEX);
    }
    await this.#piscina.close();
  }
}

/** Creates a solver pool; see `SolverPool`. */
export function createPool(options: PoolOptions = {}): SolverPool {
  return new SolverPool(options);
}
