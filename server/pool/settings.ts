/**
 * What the pool's scheduler (scheduler.ts) is given and reports: its
 * settings (validated by server/pool.ts), where it logs, the event it
 * sends for every deal answered (metrics), and how a task's lost worker
 * becomes the error its jobs answer.
 */
import { SolverError } from '../../client-sdk/core/errors.js';
import type { StopReason } from './job.js';
import type { PoolWorkerData } from './wire.js';

/**
 * Where the pool reports what an operator should know. `context`: the
 * fields of the request a line is about (`Cancellation.logContext` of its
 * job), absent for lines about no one request.
 */
export interface PoolLog {
  warn(message: string, detail?: unknown, context?: Readonly<Record<string, unknown>>): void;
  error(message: string, detail?: unknown, context?: Readonly<Record<string, unknown>>): void;
}

/** What happened to one deal, or (`census`) to the deals a census job counted, reported to `onSettled` (metrics). */
export interface SolveEvent {
  outcome?: import('../../client-sdk/core/solve-types.js').SolveOutcome;
  error?: SolverError;
  /** A census job's counts (server/batches/census.ts): its deals by verdict, with no outcome of each. */
  census?: import('../batches/census.js').CensusSummary;
  /** Milliseconds the deal's job waited for a worker (0 when it never ran). */
  queuedMs: number;
  /** Milliseconds from submission to the answer. */
  totalMs: number;
}

/** The scheduler's settings (validated by the pool). */
export interface SchedulerSettings {
  filename: string;
  execArgv: string[];
  threads: number;
  minThreads: number;
  lane: boolean;
  maxQueue: number;
  stopGraceMs: number;
  groupMax: number;
  helperPassAfterMs: number;
  startWaitMs: number;
  laneAfterMs: number;
  laneYieldMs: number;
  workerData: Omit<PoolWorkerData, 'flags' | 'sizes'>;
  resourceLimits?: import('node:worker_threads').ResourceLimits;
  onRecycle?: (event: { threadId: number }) => void;
  onSettled?: (event: SolveEvent) => void;
  log: PoolLog;
  onError: (err: unknown) => void;
}

/** Maps what Piscina rejected a task with to the error the client gets (`why`: the pool terminated its worker, and for what). */
export function taskError(err: unknown, why: StopReason | undefined): SolverError {
  if (err instanceof SolverError) return err;
  const e = err as (Error & { code?: string }) | undefined;
  if (why === 'deadline') return new SolverError('engine_unresponsive', 'the engine did not stop at its deadline; its worker was terminated and replaced');
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') return new SolverError('out_of_memory', 'the solver worker ran out of memory during this solve; it was replaced');
  if (typeof e?.message === 'string' && /worker exited/i.test(e.message)) {
    return new SolverError('worker_crashed', 'the solver worker died during this solve; it was replaced, retrying may succeed');
  }
  return new SolverError('worker_crashed', 'the solver worker failed during this solve; it was replaced, retrying may succeed');
}
