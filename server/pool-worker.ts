/**
 * The Piscina worker: one Wasm engine instance per thread, created on the
 * first task and reused for every later one (the engine resets its memory
 * between solves instead of reallocating).
 *
 * No top-level await here: Piscina loads the worker with `require()` first,
 * and under tsx (`--import tsx`) the `import()` fallback would miss tsx's
 * hooks (docs/stack-notes.md). Initialisation is therefore lazy and
 * synchronous (`Engine.instantiate` on an already compiled module).
 *
 * Failures come back as data with a code that says what happened
 * (`describeFailure`: `engine_trap`, `out_of_memory`, `engine_error`, or the
 * engine's own `SolverError`); the details (stack) travel in `detail` for the
 * pool to log, never into a response. A worker thread that dies outright is
 * the pool's to report (`worker_crashed`, `out_of_memory`).
 */
import { threadId, workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { Engine, type PackedSolutionSink } from '../client-sdk/core/engine/index.js';
import { SolverError } from '../client-sdk/core/errors.js';
import type { Deal } from '../client-sdk/core/rules.js';
import { solvePooledPass, solveWithProof, type SolveWithProofOptions } from '../client-sdk/core/proof/writer.js';
import { POOLINGS_TO_TRY } from '../client-sdk/core/pools.js';
import type { SolveOutcome } from '../client-sdk/core/solve-types.js';
import {
  claimPooledPass,
  cancelledOutcome,
  describeFailure,
  markStarted,
  POOLED_HERE,
  PROGRESS_EXPANDED,
  PROGRESS_MEMORY,
  PROGRESS_GUIDED,
  PROGRESS_POOLING,
  PROGRESS_REPORTS,
  PROGRESS_STARTED_AT,
  PROGRESS_STORED,
  RETIRE_INDEX,
  STOP_INDEX,
  forEachDealOfTask,
  type SolveTask,
  type SolveAnswer,
  type SolveTaskResult,
  type SolverWorkerData,
} from './worker-protocol.js';

let engine: Engine | undefined;

/**
 * Where the full search leaves a solution packed (`SolveWithProofOptions.packedSolution`):
 * the answers cross packed anyway, so the solution goes from the engine's
 * output to the answer's bytes without a move object (no 90-odd objects a
 * deal for this thread's garbage collector). Read and cleared after each deal.
 */
const solution: PackedSolutionSink = { moves: undefined };

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

/**
 * Solves one task (one deal, or each of `task.deals` in turn); never throws
 * (failures come back as data, per deal for a task of several). The answers
 * cross back packed (worker-protocol.ts `PackedAnswers`), their buffers
 * moved to the pool's thread rather than copied (`movedOut`).
 */
export default function solveTask(task: SolveTask): SolveTaskResult | MovedResult {
  return movedOut(solveTaskHere(task));
}

/** What Piscina's `move` makes of a result: it posts the value inside, with its buffers in the transfer list. */
export type MovedResult = ReturnType<typeof move>;

/**
 * `result` marked for Piscina to transfer the buffers of its packed answers
 * (`head`, `moves`) to the pool's thread instead of copying them: the
 * packer's `finish` made them for this answer alone, and a share's answer
 * holds every one of its deals' moves (8 bytes a move), which the pool's
 * thread would otherwise allocate and copy once more in the structured clone.
 */
function movedOut(result: SolveTaskResult): SolveTaskResult | MovedResult {
  if (!('packed' in result) || result.packed === undefined) return result;
  const { head, moves } = result.packed;
  return move({ [transferableSymbol]: [head.buffer, moves.buffer], [valueSymbol]: result } as Parameters<typeof move>[0]);
}

function solveTaskHere(task: SolveTask): SolveTaskResult {
  // the options every deal of the task shares, made once a task (no object or closure a deal); `stop` is the deal's (a group's deals have their own)
  const options: SolveWithProofOptions = { stop: task.stop, memoryLimitBytes: task.memoryLimitBytes, proof: task.proof, ...(task.progress ? progressInto(task.progress) : {}) };
  if (task.pass !== 'pooled') options.claimPooledPass = () => claimPooledPass(options.stop ?? task.stop, POOLED_HERE);
  // a solution to be shortened is read as move objects (Engine.shorten starts from them)
  if (task.pass !== 'pooled' && task.optimize === undefined) options.packedSolution = solution;
  return forEachDealOfTask(task, (deal, stop) => {
    options.stop = stop;
    return deal === undefined ? { ok: false, error: describeFailure(new SolverError('engine_error', 'a task without a deal')) } : solveDeal(task, deal, stop, options);
  });
}

/**
 * One deal of `task` with the task's `options`, stopped through `stop` (its
 * own flags: `task.stop`, or its entry of `task.stops`): the engine's outcome
 * (moves as objects, packed by the caller), or a failure.
 */
function solveDeal(task: SolveTask, deal: Deal, stop: Int32Array, options: SolveWithProofOptions): SolveOutcome | SolveAnswer {
  // Cancelled while it waited in the queue (or taken back by the pool): do not start the search.
  if (Atomics.load(stop, STOP_INDEX) !== 0 || !markStarted(stop)) return cancelledOutcome();
  let used: Engine | undefined;
  try {
    used = getEngine();
    // The pool's helper pass (a second worker while the full search runs elsewhere): client-sdk/core/proof/writer.ts.
    if (task.pass === 'pooled') {
      const others = task.stopOnProof ?? [];
      const pass: SolveWithProofOptions = {
        ...options,
        ...(task.poolings ? { poolings: task.poolings } : {}),
        // the verdict is in: the searches beside this one stop now, not once the certificate is built
        onPooledProof: () => {
          for (const flags of others) {
            Atomics.store(flags, STOP_INDEX, 1);
            Atomics.notify(flags, STOP_INDEX);
          }
        },
        // a checked solution of the guided pass (limits.guided) decides too
        onGuidedSolution: () => {
          for (const flags of others) {
            Atomics.store(flags, STOP_INDEX, 1);
            Atomics.notify(flags, STOP_INDEX);
          }
        },
      };
      const helped = solvePooledPass(used, deal, task.limits, pass);
      // a guided solution (limits.guided) is still in the engine's buffer: shortened as the full search's would be
      if (task.optimize !== undefined && helped.verdict === 'solved') return used.shorten(deal, helped, { optimize: task.optimize, stop, memoryLimitBytes: task.memoryLimitBytes });
      return helped;
    }
    // An unsolvable verdict comes with its proof summary (and certificate when asked): client-sdk/core/proof/writer.ts.
    solution.moves = undefined;
    const outcome = solveWithProof(used, deal, task.limits, options);
    const packed = solution.moves;
    solution.moves = undefined;
    // the full search's solution, checked and packed (the packer copies the bytes before the engine's next solve)
    if (packed !== undefined && outcome.verdict === 'solved' && outcome.moves.length === 0) return { ok: true, outcome, moves: packed };
    // A solved verdict may be shortened (the engine's buffer still holds its solution).
    if (task.optimize !== undefined && outcome.verdict === 'solved') {
      return used.shorten(deal, outcome, { optimize: task.optimize, stop, memoryLimitBytes: task.memoryLimitBytes });
    }
    return outcome;
  } catch (err) {
    // A trap or an abort may leave the instance's memory inconsistent: start afresh next time.
    engine = undefined;
    return { ok: false, error: describeFailure(err) };
  } finally {
    askToRetireIfGrown(task, stop, used);
  }
}

/**
 * The progress options of a task with a progress slot (worker-protocol.ts
 * `PROGRESS_FIELDS`): each engine report, and the pooling a pooled pass
 * turns to, written into `slot` for another thread to read.
 */
function progressInto(slot: Float64Array): Pick<SolveWithProofOptions, 'progress' | 'onPooling' | 'onGuidedPass'> {
  slot[PROGRESS_STARTED_AT] = Date.now();
  return {
    progress: {
      onProgress: (p) => {
        slot[PROGRESS_STORED] = p.statesStored;
        slot[PROGRESS_EXPANDED] = p.statesExpanded;
        slot[PROGRESS_MEMORY] = p.memoryBytes;
        slot[PROGRESS_REPORTS]++;
      },
    },
    onGuidedPass: () => {
      slot[PROGRESS_POOLING] = PROGRESS_GUIDED;
    },
    onPooling: (pools) => {
      const index = POOLINGS_TO_TRY.findIndex((p) => p.join() === pools.join());
      slot[PROGRESS_POOLING] = index >= 0 ? index : -2;
    },
  };
}

/**
 * A Wasm memory never shrinks: an engine that grew past the task's
 * `recycleMemoryBytes` would hold that memory for the life of the thread.
 * Such a worker asks the pool (in the deal's shared flags `stop`, before its
 * answer is posted) to be replaced, and drops its engine meanwhile.
 */
function askToRetireIfGrown(task: SolveTask, stop: Int32Array, used: Engine | undefined): void {
  const limit = task.recycleMemoryBytes;
  if (limit === undefined || used === undefined || used.memorySize() <= limit) return;
  if (stop.length > RETIRE_INDEX) Atomics.store(stop, RETIRE_INDEX, threadId);
  engine = undefined;
}
