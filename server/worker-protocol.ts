/**
 * What crosses the thread boundary between the pool (`pool.ts`) and a solver
 * worker (`worker.ts`): structured-clonable plain data only.
 *
 * Errors travel as data (`TaskFailure`), not as thrown objects: structured
 * cloning keeps an Error's message but drops its `code`, and the service needs
 * the code to choose the HTTP status.
 */
import type { ErrorCode, ErrorLocation } from '../client-sdk/errors.js';
import type { Deal } from '../client-sdk/rules.js';
import type { SolveLimits, SolveOutcome } from '../client-sdk/solve-types.js';

/** Index of the stop flag in `SolveTask.stop`. Nonzero = stop now (reason `cancelled`). */
export const STOP_INDEX = 0;

/**
 * Byte layout of a task's SharedArrayBuffer: the Int32 stop flag at index
 * `STOP_INDEX` (written by the pool, polled by the engine), and at byte
 * `STARTED_AT_BYTE` a Float64 with the `Date.now()` at which the worker began
 * the search (0 while the task waits in the queue), read by the pool's
 * deadline backstop.
 */
export const FLAGS_BYTES = 16;
export const STARTED_AT_BYTE = 8;

/** Records in the task's flags that the search begins now (called by the worker). */
export function markStarted(stop: Int32Array): void {
  if (stop.buffer.byteLength >= STARTED_AT_BYTE + 8) new Float64Array(stop.buffer, STARTED_AT_BYTE, 1)[0] = Date.now();
}

/** One solve, as posted to a worker. */
export interface SolveTask {
  deal: Deal;
  limits: SolveLimits;
  /**
   * Cooperative stop flag: an Int32Array (length >= 1) over a
   * SharedArrayBuffer, so it is shared with the worker, not copied. The pool
   * sets `stop[STOP_INDEX]` to 1; the engine polls it during the search.
   */
  stop: Int32Array;
}

/** What a worker gives back for one task. */
export type SolveTaskResult = { ok: true; outcome: SolveOutcome } | TaskFailure;

/** A failure reported by the worker, rebuilt as a `SolverError` by the pool. */
export interface TaskFailure {
  ok: false;
  error: { code: ErrorCode; message: string; location?: ErrorLocation };
}

/** What the pool passes to every worker once, in `workerData`. */
export interface SolverWorkerData {
  /** The engine's compiled module (compiled once on the main thread; structured-cloned, not recompiled). */
  module?: WebAssembly.Module;
}

/** The outcome of a task that was cancelled before the search began. */
export function cancelledOutcome(): SolveOutcome {
  return {
    verdict: 'unknown',
    reason: 'cancelled',
    moves: [],
    stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 },
  };
}
