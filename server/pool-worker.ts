/**
 * The pool's worker thread: one Wasm engine, created on the first deal and
 * reused for every later one (the engine resets its memory between solves
 * instead of reallocating). It runs the pool's tasks (server/pool/wire.ts)
 * with `runWireTask` (server/pool/worker-run.ts), solving each deal with
 * `solveWithProof` (client-sdk/core/proof/writer.ts: the full search, the
 * passes after it, the proof summary and certificate) or, for the pool's
 * helper pass, `solvePooledPass`; and for a request job it builds the
 * response's bytes here (server/pool/response.ts), so that the main thread
 * only writes them.
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
import type { SolveLimits } from '../client-sdk/core/solve-types.js';
import { POOLED_HERE, SharedFlags } from './pool/flags.js';
import { PROGRESS_EXPANDED, PROGRESS_GUIDED, PROGRESS_MEMORY, PROGRESS_POOLING, PROGRESS_REPORTS, PROGRESS_STARTED_AT, PROGRESS_STORED } from './pool/progress.js';
import { buildResponse } from './pool/response.js';
import { runWireTask, type DealResult, type DealSolver } from './pool/worker-run.js';
import type { PoolWorkerData, WireAnswer, WireJob, WireTask } from './pool/wire.js';

const data = workerData as PoolWorkerData;
const flags = SharedFlags.attach(data.flags, data.sizes);
/** This thread's slot in the flags, claimed at its first task (-1: none free). */
let slot: number | undefined;
let engine: Engine | undefined;

/**
 * Where the full search leaves a solution packed (`SolveWithProofOptions.packedSolution`):
 * the answers cross packed anyway, so the solution goes from the engine's
 * output to the answer's bytes without a move object, unless the job needs
 * the moves (a response to build, a solution to shorten).
 */
const solution: PackedSolutionSink = { moves: undefined };

function getEngine(): Engine {
  if (engine === undefined) {
    if (!(data.module instanceof WebAssembly.Module)) throw new SolverError('engine_error', 'the solver worker was started without the engine module');
    engine = Engine.instantiate(data.module);
  }
  return engine;
}

/** What `runWireTask` gives back, marked for Piscina to transfer its buffers instead of copying them. */
export type MovedAnswer = ReturnType<typeof move>;

/** Runs one task of the pool (see the file comment). */
export default function runTask(task: WireTask): WireAnswer | MovedAnswer {
  slot ??= flags.claimWorker(threadId);
  return movedOut(runWireTask(task, flags, slot, solver));
}

/** A view whose buffer is its own (a pooled or shared buffer is copied first), so that it may be transferred. */
function own(view: Uint8Array): Uint8Array {
  return view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer ? view : view.slice();
}

/** `answer` with every packed buffer and response body in Piscina's transfer list. */
function movedOut(answer: WireAnswer): MovedAnswer {
  const transfer: ArrayBuffer[] = [];
  for (const job of answer.jobs) {
    transfer.push(job.packed.head.buffer as ArrayBuffer, job.packed.moves.buffer as ArrayBuffer);
    if (job.response !== undefined) {
      job.response.body = own(job.response.body);
      transfer.push(job.response.body.buffer as ArrayBuffer);
    }
  }
  return move({ [transferableSymbol]: transfer, [valueSymbol]: answer } as Parameters<typeof move>[0]);
}

/** The real engine as `runWireTask`'s solver. */
const solver: DealSolver = {
  solve: solveDeal,
  respond: (job, deal, outcome) => buildResponse(job.response!, job.source.kind === 'requests' ? job.source.requests[0] : undefined, deal, outcome),
};

/** One deal of `job` (the full search and its passes, or the helper's pooled pass). */
function solveDeal(job: WireJob, deal: Deal, limits: SolveLimits, stop: Int32Array): DealResult {
  let used: Engine | undefined;
  try {
    used = getEngine();
    const options: SolveWithProofOptions = {
      stop,
      memoryLimitBytes: data.memoryLimitBytes,
      proof: job.proof,
      ...(job.progress ? progressInto(job.progress) : {}),
    };
    if (job.pass === 'pooled') return { outcome: pooledPass(used, job, deal, limits, options) };
    options.claimPooledPass = () => flags.claimPooledPass(job.slot, POOLED_HERE);
    // the moves stay packed unless the job reads them as objects (a response to build, a solution to shorten)
    const packed = job.answer !== 'response' && job.optimize === undefined;
    if (packed) {
      options.packedSolution = solution;
      solution.moves = undefined;
    }
    const outcome = solveWithProof(used, deal, limits, options);
    if (packed) {
      const moves = solution.moves;
      solution.moves = undefined;
      if (moves !== undefined && outcome.verdict === 'solved' && outcome.moves.length === 0) return { outcome, packedMoves: moves };
    }
    // a solved verdict may be shortened (the engine's buffer still holds its solution)
    if (job.optimize !== undefined && outcome.verdict === 'solved') {
      return { outcome: used.shorten(deal, outcome, { optimize: job.optimize, stop, memoryLimitBytes: data.memoryLimitBytes }) };
    }
    return { outcome };
  } catch (err) {
    // a trap or an abort may leave the instance's memory inconsistent: start afresh next time
    engine = undefined;
    throw err;
  } finally {
    retireIfGrown(used);
  }
}

/** The pool's helper pass: the pooled pass alone; a proof (or a guided solution) stops the searches beside it at once. */
function pooledPass(used: Engine, job: WireJob, deal: Deal, limits: SolveLimits, options: SolveWithProofOptions) {
  const stopOthers = () => {
    for (const other of job.stopOnProof ?? []) flags.stop(other);
  };
  const helped = solvePooledPass(used, deal, limits, {
    ...options,
    ...(job.poolings ? { poolings: job.poolings } : {}),
    onPooledProof: stopOthers,
    onGuidedSolution: stopOthers,
  });
  // a guided solution (limits.guided) is still in the engine's buffer: shortened as the full search's would be
  if (job.optimize !== undefined && helped.verdict === 'solved') return used.shorten(deal, helped, { optimize: job.optimize, stop: options.stop, memoryLimitBytes: data.memoryLimitBytes });
  return helped;
}

/** The progress options of a job with a progress slot: each engine report, and the pooling a pooled pass turns to, written into `slot`. */
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
 * A Wasm memory never shrinks: an engine that grew past the pool's
 * `recycleMemoryBytes` would hold that memory for the life of the thread.
 * Such a worker asks the pool (in its slot of the flags, before its answer
 * is posted) to be replaced, and drops its engine meanwhile.
 */
function retireIfGrown(used: Engine | undefined): void {
  const limit = data.recycleMemoryBytes;
  if (limit === undefined || used === undefined || used.memorySize() <= limit) return;
  flags.askToRetire(slot ?? -1);
  engine = undefined;
}
