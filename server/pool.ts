/**
 * The solver pool: Piscina worker threads, each holding one Wasm engine.
 *
 * - Sizing: `threads` workers (default `os.availableParallelism()`), all kept
 *   alive so every solve meets a warm engine; at most `maxQueue` solves wait
 *   beyond the running ones, and a full queue answers `overloaded` (503) at
 *   once instead of letting latency grow without bound.
 * - The engine's module is compiled once on the main thread and handed to
 *   every worker in `workerData` (structured-cloned, not recompiled).
 * - Cancellation is cooperative: every task carries a stop flag in a
 *   SharedArrayBuffer that the engine polls, so a cancel stops the search
 *   within one poll and keeps the worker. Terminating the worker is the last
 *   resort, used only when the engine has not stopped `stopGraceMs` after the
 *   flag was set (on cancel), or after its own deadline (a hung engine).
 * - The worker runs from source under tsx in development and tests, and from
 *   `dist/` as plain JavaScript in production (`workerFile`).
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { SolverError } from '../client-sdk/errors.js';
import type { Deal } from '../client-sdk/rules.js';
import type { SolveLimits, SolveOutcome } from '../client-sdk/solve-types.js';
import {
  cancelledOutcome,
  FLAGS_BYTES,
  STARTED_AT_BYTE,
  STOP_INDEX, type SolveTask, type SolveTaskResult, type SolverWorkerData } from './worker-protocol.js';

/** Options of `createPool`. */
export interface PoolOptions {
  /** The compiled engine module passed to every worker. Required by the real worker. */
  module?: WebAssembly.Module;
  /** Worker threads; default `os.availableParallelism()`. */
  threads?: number;
  /** Most solves waiting for a free worker; default `4 * threads`. 0 = never queue. */
  maxQueue?: number;
  /** Worker file (absolute path); default `worker.ts` or `worker.js` beside this module. */
  filename?: string;
  /** How long a worker may take to honour its stop flag before it is terminated, ms; default 2000. */
  stopGraceMs?: number;
  /** Where pool-level errors (not tied to a task) are reported; default `console.error`. */
  onError?: (err: unknown) => void;
}

/** Numbers for `/healthz` and logs. */
export interface PoolStats {
  threads: number;
  running: number;
  queued: number;
  maxQueue: number;
  completed: number;
}

/** A solve function as `createApp` takes it. */
export type SolveFn = (deal: Deal, limits: SolveLimits, signal?: AbortSignal) => Promise<SolveOutcome>;

/**
 * The worker file that matches how this module runs: `worker.ts` beside
 * `pool.ts` under tsx/vitest, `worker.js` beside `pool.js` in `dist/`.
 */
export function defaultWorkerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return join(dirname(here), `worker${extname(here)}`);
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

/** The pool of solver workers. Create with `createPool`. */
export class SolverPool {
  readonly #piscina: Piscina<SolveTask, SolveTaskResult>;
  readonly #stopGraceMs: number;
  readonly #threads: number;
  readonly #maxQueue: number;
  readonly #inFlight = new Set<Int32Array>();
  #closing = false;

  constructor(options: PoolOptions = {}) {
    const threads = options.threads ?? availableParallelism();
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
    const maxQueue = options.maxQueue ?? 4 * threads;
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError(`maxQueue must be a non-negative integer, got ${maxQueue}`);
    this.#threads = threads;
    this.#maxQueue = maxQueue;
    const filename = options.filename ?? defaultWorkerFile();
    const workerData: SolverWorkerData = { module: options.module };
    this.#stopGraceMs = options.stopGraceMs ?? 2000;
    this.#piscina = new Piscina<SolveTask, SolveTaskResult>({
      filename,
      execArgv: workerExecArgv(filename),
      minThreads: threads,
      maxThreads: threads,
      workerData,
    });
    const onError = options.onError ?? ((err: unknown) => console.error('solver pool error:', err));
    // Unhandled, a pool error event would end the process.
    this.#piscina.on('error', onError);
  }

  /**
   * Solves one deal on a worker. Resolves with the engine's outcome (verdict
   * `unknown` with reason `cancelled` when `signal` fired first).
   * @throws SolverError `overloaded` when the queue is full; `engine_error`
   *   when the worker died or had to be terminated; any `SolverError` the
   *   engine raised (e.g. `solution_check_failed`).
   */
  solve: SolveFn = async (deal, limits, signal) => {
    if (this.#closing) throw new SolverError('overloaded', 'the service is shutting down');
    if (signal?.aborted) return cancelledOutcome();
    // The queue limit is kept here rather than by Piscina's `maxQueue`, whose
    // count also depends on workers still starting: waiting = in flight - threads.
    if (this.#inFlight.size >= this.#threads + this.#maxQueue) {
      throw new SolverError(
        'overloaded',
        `the solver is busy (${this.#threads} solves running, ${this.#inFlight.size - this.#threads} waiting); retry later`,
      );
    }

    const stop = new Int32Array(new SharedArrayBuffer(FLAGS_BYTES));
    const startedAt = new Float64Array(stop.buffer, STARTED_AT_BYTE, 1);
    const kill = new AbortController();
    let why: 'cancel' | 'deadline' | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const requestStop = (reason: 'cancel' | 'deadline') => {
      if (why !== undefined) return;
      why = reason;
      Atomics.store(stop, STOP_INDEX, 1);
      Atomics.notify(stop, STOP_INDEX);
      killTimer = setTimeout(() => kill.abort(), this.#stopGraceMs);
    };
    const onAbort = () => requestStop('cancel');
    signal?.addEventListener('abort', onAbort, { once: true });

    // Deadline backstop: the engine keeps its own deadline; this only catches
    // an engine that does not. Time waiting in the queue does not count.
    let deadlineTimer: NodeJS.Timeout | undefined;
    const checkDeadline = () => {
      const started = startedAt[0];
      const due = started === 0 ? Date.now() + limits.timeoutMs : started + limits.timeoutMs + this.#stopGraceMs;
      const wait = due - Date.now();
      if (started !== 0 && wait <= 0) requestStop('deadline');
      else deadlineTimer = setTimeout(checkDeadline, Math.max(wait, 10));
    };
    deadlineTimer = setTimeout(checkDeadline, limits.timeoutMs + this.#stopGraceMs);

    this.#inFlight.add(stop);
    try {
      const result = await this.#piscina.run({ deal, limits, stop }, { signal: kill.signal });
      if (!result.ok) throw new SolverError(result.error.code, result.error.message, result.error.location);
      const outcome = result.outcome;
      // A stop the pool requested for the deadline is a timeout, not a cancel.
      if (why === 'deadline' && outcome.verdict === 'unknown' && outcome.reason === 'cancelled') outcome.reason = 'timeout';
      return outcome;
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError' && why === 'cancel') {
        // Cancelled and the worker had to go (or the task was dropped from the queue).
        if (startedAt[0] !== 0) console.warn('solver pool: a cancelled solve did not stop in time; its worker was terminated');
        return cancelledOutcome();
      }
      throw this.#mapError(err, why);
    } finally {
      this.#inFlight.delete(stop);
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      clearTimeout(deadlineTimer);
    }
  };

  #mapError(err: unknown, why: 'cancel' | 'deadline' | undefined): unknown {
    if (err instanceof SolverError) return err;
    if (err instanceof Error && err.name === 'AbortError' && why === 'deadline') {
      console.error('solver pool: the engine ignored its deadline; its worker was terminated');
      return new SolverError('engine_error', 'the engine did not stop at its deadline; its worker was replaced');
    }
    console.error('solver pool: task failed', err);
    return new SolverError('engine_error', 'the solver worker stopped unexpectedly');
  }

  /** Current numbers of the pool. */
  stats(): PoolStats {
    const p = this.#piscina;
    return {
      threads: p.threads.length,
      running: Math.max(0, this.#inFlight.size - p.queueSize),
      queued: p.queueSize,
      maxQueue: this.#maxQueue,
      completed: p.completed,
    };
  }

  /**
   * Stops accepting solves, asks every running solve to stop (they answer
   * `unknown`/`cancelled` at once), and closes the workers.
   */
  async close(): Promise<void> {
    this.#closing = true;
    for (const stop of this.#inFlight) {
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
