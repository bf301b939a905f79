/**
 * How a worker runs a task of the wire format (wire.ts), whatever solves
 * its deals: the real worker (server/pool-worker.ts, the engine) and the
 * tests' fixture workers (tests/fixtures/) both call `runWireTask` with
 * their own `DealSolver`, so that the claims, the flags, the deadlines and
 * the answers' packing are the same code in tests and in production.
 *
 * For each job in turn: while it is not stopped, claim its next deal
 * (`SharedFlags.claim`: each deal goes to exactly one worker, and a deal the
 * pool took back is never begun), deal it (deal-source.ts), mark it begun on
 * this worker's slot, solve it with what is left of the job's deadline, add
 * its outcome to the job's answer (and, for a request job, its response),
 * (or, `census`, count it: the deal's result added to the share's census
 * summary, kept only when it is an exception), and mark it done. A shared job's share stops claiming when the job is
 * done, when this worker asked to be retired, or (`yields`, after one deal
 * at least) when the pool says jobs above batches wait for a worker.
 */
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { dealReader } from './deal-source.js';
import type { SharedFlags } from './flags.js';
import { AnswerPacker } from './packing.js';
import { addToSummary, emptySummary, keepsResult } from '../batches/census.js';
import { failedResult, outcomeResult } from '../batches/model.js';
import { describeFailure, failureError, type CensusPart, type JobAnswer, type WireAnswer, type WireJob, type WireResponse, type WireTask } from './wire.js';

/** What a solved deal gives back: its outcome, and its moves already packed when the solver has them so (`outcome.moves` then unread). */
export interface DealResult {
  outcome: SolveOutcome;
  packedMoves?: Uint8Array;
}

/** How a worker solves one deal of a job, and builds a request job's response. */
export interface DealSolver {
  /**
   * Solves `deal` (deal `index` of `job`) within `limits` (the job's, with
   * what is left of its deadline), stopped through `stop` (index 0 nonzero:
   * stop). May throw: the deal then fails with `describeFailure`'s code.
   */
  solve(job: WireJob, deal: Deal, limits: SolveLimits, stop: Int32Array): DealResult;
  /** The response of a request job's deal (`job.answer === 'response'`). */
  respond(job: WireJob, deal: Deal, outcome: SolveOutcome): WireResponse;
}

/** The outcome of a deal whose job's deadline had passed before it began: nothing searched. */
function lateOutcome(): SolveOutcome {
  return { verdict: 'unknown', reason: 'timeout', moves: [], stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 } };
}

/** This thread's packer (a worker runs one job at a time). */
const packer = new AnswerPacker();

/**
 * Runs `task` (see the file comment) on this worker, whose slot in `flags`
 * is `worker` (-1: none). Never throws for a deal's failure: it is in the
 * answer.
 */
export function runWireTask(task: WireTask, flags: SharedFlags, worker: number, solver: DealSolver): WireAnswer {
  flags.setTaskOf(worker, task.id);
  try {
    return { jobs: task.jobs.map((job) => runJob(job, flags, worker, solver)) };
  } finally {
    flags.setTaskOf(worker, 0);
  }
}

function runJob(job: WireJob, flags: SharedFlags, worker: number, solver: DealSolver): JobAnswer {
  const { slot, count } = job;
  const answer: JobAnswer = { slot, packed: undefined as never };
  const claimed: number[] | undefined = job.shared ? [] : undefined;
  const census: CensusPart | undefined = job.answer === 'census' ? { summary: emptySummary(), kept: [], stopped: 0 } : undefined;
  const stop = flags.stopView(slot);
  let dealAt: ((i: number) => Deal) | undefined;
  let ran = 0;
  packer.begin();
  for (;;) {
    if (flags.stopped(slot)) break;
    if (job.shared && ran > 0 && (flags.retireAsked(worker) || (job.yields === true && flags.yieldRequested()))) break;
    const i = flags.claim(slot, count);
    if (i < 0) break;
    ran++;
    if (census === undefined) claimed?.push(i);
    flags.beginDeal(worker, slot);
    try {
      dealAt ??= dealReader(job.source);
      const deal = dealAt(i);
      const left = Math.floor(job.deadline - Date.now());
      let result: DealResult;
      if (left <= 0) {
        result = { outcome: lateOutcome() };
      } else {
        const limits = left < job.limits.timeoutMs ? { ...job.limits, timeoutMs: left } : job.limits;
        result = solver.solve(job, deal, limits, stop);
      }
      if (census !== undefined) {
        countDeal(census, i, result);
      } else if (job.answer === 'response') {
        answer.response = solver.respond(job, deal, result.outcome);
        // the moves are in the response: the pool reads only the verdict and the counters
        packer.add(result.outcome.moves.length === 0 ? result.outcome : { ...result.outcome, moves: [] });
      } else {
        packer.add(result.outcome, result.packedMoves);
      }
    } catch (err) {
      if (census !== undefined) counted(census, failedResult(i, failureError(describeFailure(err))));
      else packer.fail(describeFailure(err));
    } finally {
      flags.endDeal(worker, slot);
    }
  }
  answer.packed = packer.finish();
  if (claimed !== undefined) answer.claimed = claimed;
  if (census !== undefined) answer.census = census;
  return answer;
}

/** Counts deal `i`'s solve in a census share: a stopped search counts nowhere (the pool solves its sub-range again). */
function countDeal(census: CensusPart, i: number, result: DealResult): void {
  if (result.outcome.reason === 'cancelled') census.stopped++;
  else counted(census, outcomeResult(i, result.outcome, result.packedMoves));
}

function counted(census: CensusPart, r: ReturnType<typeof failedResult>): void {
  addToSummary(census.summary, r);
  if (keepsResult('exceptions', r.verdict)) census.kept.push(r);
}
