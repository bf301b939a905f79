/**
 * The Piscina worker: one Wasm engine instance per thread, created on the
 * first task and reused for every later one (the engine resets its memory
 * between solves instead of reallocating).
 *
 * No top-level await here: Piscina loads the worker with `require()` first,
 * and under tsx (`--import tsx`) the `import()` fallback would miss tsx's
 * hooks (shared/docs/stack-notes.md). Initialisation is therefore lazy and
 * synchronous (`Engine.instantiate` on an already compiled module).
 */
import { workerData } from 'node:worker_threads';
import { Engine } from '../client-sdk/engine.js';
import { SolverError } from '../client-sdk/errors.js';
import { cancelledOutcome, markStarted, STOP_INDEX, type SolveTask, type SolveTaskResult, type SolverWorkerData } from './worker-protocol.js';

let engine: Engine | undefined;

function getEngine(): Engine {
  if (engine === undefined) {
    const module = (workerData as SolverWorkerData | undefined)?.module;
    if (!(module instanceof WebAssembly.Module)) {
      throw new SolverError('engine_error', 'the solver worker was started without the engine module');
    }
    engine = Engine.instantiate(module);
  }
  return engine;
}

/** Solves one task; never throws (failures come back as `{ok: false}`). */
export default function solveTask(task: SolveTask): SolveTaskResult {
  // Cancelled while it waited in the queue: do not start the search.
  if (Atomics.load(task.stop, STOP_INDEX) !== 0) return { ok: true, outcome: cancelledOutcome() };
  markStarted(task.stop);
  try {
    return { ok: true, outcome: getEngine().solve(task.deal, task.limits, task.stop) };
  } catch (err) {
    // A trap or an abort may leave the instance's memory inconsistent: start afresh next time.
    engine = undefined;
    if (err instanceof SolverError) {
      return { ok: false, error: { code: err.code, message: err.message, location: err.location } };
    }
    // The details go to the server log, never into a response body.
    console.error('solver worker: engine failure', err);
    return { ok: false, error: { code: 'engine_error', message: 'the engine failed on this position' } };
  }
}
