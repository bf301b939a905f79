/**
 * The pool's one job record: what a caller asked (its deals, budgets,
 * deadline, class and answer mode), where it stands (waiting, running,
 * settled), why it was stopped, and its deals' answers as the tasks that
 * carry it bring them in. Every kind of work is a job: a single solve, a
 * request of `POST /v1/solve`, a batch's range, a helper pass. The pool's
 * scheduler (scheduler.ts) moves jobs through one lifecycle; grouping,
 * shared runs, the helper pass and the lane are policies over it.
 */
import { AsyncResource } from 'node:async_hooks';
import type { SolverError } from '../../client-sdk/core/errors.js';
import { unpackMoves } from '../../client-sdk/core/moves.js';
import type { Rules } from '../../client-sdk/core/rules.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { unpackAnswers } from './packing.js';
import { emptySummary, mergeSummary, summaryCount } from '../batches/census.js';
import { cancelledOutcome, failureError, type CensusPart, type JobAnswer, type WireJob, type WireResponse } from './wire.js';

/**
 * Who a job serves, highest first: `interactive` (a request a person waits
 * for: `POST /v1/solve`, `/v1/proofs`), `background` (the searches of the
 * app routes: review, difficulty, deals), `batch` (a batch's deals); a
 * `helper` pass runs only on a worker nobody else wants.
 */
export type JobClass = 'interactive' | 'background' | 'batch' | 'helper';

/** Order of the classes in the queue (lower first). */
export const CLASS_RANK: Readonly<Record<JobClass, number>> = { interactive: 0, background: 1, batch: 2, helper: 3 };

/** Why the pool stopped a job. */
export type StopReason =
  /** its caller's signal fired */
  | 'cancel'
  /** the pool is closing */
  | 'close'
  /** an interactive job that could not start within its bounded wait, or was stopped in the lane for another */
  | 'refuse'
  /** its request's deadline passed before it began */
  | 'deadline';

/**
 * What stops a job from outside: an `AbortSignal`, or anything that fires
 * `abort` as one does (the HTTP layer's client-gone signal, which costs no
 * AbortController a request).
 */
export interface Cancellation {
  readonly aborted: boolean;
  /** Fields of the request the job serves (its request id, its API key's name), added to the pool's log lines about the job. */
  readonly logContext?: Readonly<Record<string, unknown>>;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What a caller submits: the fields that go to the worker as they are (`WireJob`'s), and how the pool schedules it. */
export interface JobSpec
  extends Pick<WireJob, 'source' | 'count' | 'limits' | 'deadline' | 'answer' | 'response' | 'proof' | 'optimize' | 'progress' | 'pass' | 'poolings' | 'stopOnProof'> {
  cls: JobClass;
  /** Where its first helper pass writes its progress (helper-pass.ts). */
  helperProgress?: Float64Array;
  /** Several workers may claim its deals (a batch's shared run). */
  shared: boolean;
  /** May share a task with the single solves waiting behind it (grouping). */
  groupable: boolean;
  /** The rules its helper pass would run under, when one may run (a Castle-family single solve). */
  helperRules?: Rules;
  signal?: Cancellation;
  /** Keep each solution's moves packed (`packMoves` bytes) rather than as objects. */
  packedMoves?: boolean;
}

/** One deal's answer: its outcome (moves as objects, or packed in `moves` when the job keeps them so), or its failure. */
export type DealAnswer = { outcome: SolveOutcome; moves: Uint8Array } | SolverError;

/**
 * A settled job's answer: one entry a deal (none for a `census` job, whose
 * `census` counts them: its `stopped` includes the deals never begun), or
 * the failure of the whole job.
 */
export type JobResult = { deals: DealAnswer[]; response?: WireResponse; census?: CensusPart } | SolverError;

const NO_MOVES = new Uint8Array(0);

let nextSeq = 1;

/** A job in the pool (see the file comment). */
export class Job {
  readonly seq = nextSeq++;
  readonly spec: JobSpec;
  /** Its slot in the pool's shared flags. */
  readonly slot: number;
  /** `Date.now()` at submission. */
  readonly submitted: number;
  /** Latest start of an interactive job before it is refused (Infinity: none). */
  readonly startBy: number;
  /** The caller's async context: what the pool does for this job, its log lines and its answer, runs in it. */
  readonly scope: AsyncResource;
  state: 'waiting' | 'running' | 'settled' = 'waiting';
  why: StopReason | undefined;
  /** Tasks on workers that carry it now. */
  tasks = 0;
  /** Handed to a worker again, alone, after its group's task was lost. */
  retried = false;
  /** Its task carries other jobs too (a group): a cancel answers it as soon as its deal ends. */
  grouped = false;
  /** The failure of the whole job (a lost worker in a shared run), once known. */
  failure: SolverError | undefined;
  /** Each deal's answer, by index, as tasks bring them in. */
  readonly answers: (DealAnswer | undefined)[];
  /** Deals a worker answered (`PoolStats.completed`). */
  answered = 0;
  response: WireResponse | undefined;
  /** A `census` job's counts so far, merged over its shares. */
  census: CensusPart | undefined;
  /** The last resort's timer after a stop. */
  killTimer: NodeJS.Timeout | undefined;
  /** Its helper passes and their outcome, when it has any (helper-pass.ts). */
  helper: unknown;
  readonly #settle: (result: JobResult) => void;
  readonly onAbort: () => void;

  constructor(spec: JobSpec, slot: number, startWaitMs: number, settle: (result: JobResult) => void, onAbort: (job: Job) => void) {
    this.spec = spec;
    this.slot = slot;
    this.submitted = Date.now();
    this.startBy = spec.cls === 'interactive' ? this.submitted + startWaitMs : Infinity;
    this.scope = new AsyncResource('SolverPool.job');
    this.answers = new Array(spec.answer === 'census' ? 0 : spec.count);
    if (spec.answer === 'census') this.census = { summary: emptySummary(), kept: [], stopped: 0 };
    this.#settle = settle;
    this.onAbort = () => onAbort(this);
  }

  /** Fields of the request the job serves, for the pool's lines about it (its signal's `logContext`). */
  get logContext(): Readonly<Record<string, unknown>> | undefined {
    return this.spec.signal?.logContext;
  }

  /** The wire form of this job, for a task. */
  wire(): WireJob {
    const s = this.spec;
    const job: WireJob = { slot: this.slot, source: s.source, count: s.count, limits: s.limits, deadline: s.deadline, answer: s.answer };
    if (s.response) job.response = s.response;
    if (s.shared) job.shared = true;
    if (s.cls === 'batch') job.yields = true;
    if (s.proof) job.proof = s.proof;
    if (s.optimize) job.optimize = s.optimize;
    if (s.progress) job.progress = s.progress;
    if (s.pass) job.pass = s.pass;
    if (s.poolings) job.poolings = s.poolings;
    if (s.stopOnProof) job.stopOnProof = s.stopOnProof;
    return job;
  }

  /** How long one of its deals may run before the pool's backstop, ms (the grace comes on top). */
  allowanceMs(): number {
    return this.spec.limits.timeoutMs + (this.spec.optimize?.budgetMs ?? 0);
  }

  /**
   * Takes in a task's answer of this job: each deal it ran at its index
   * (`claimed`, or from 0 for a job one task runs), the response.
   * @throws RangeError on a malformed answer (an index out of range or answered twice).
   */
  take(answer: JobAnswer, log: (message: string, detail: unknown) => void): void {
    if (this.census !== undefined) {
      const part = answer.census;
      if (part === undefined) throw new RangeError('a census job answered without its counts');
      mergeSummary(this.census.summary, part.summary);
      for (const r of part.kept) this.census.kept.push(r);
      this.census.stopped += part.stopped;
      this.answered += summaryCount(part.summary) + part.stopped;
      return;
    }
    const claimed = answer.claimed;
    let k = 0;
    const index = (i: number): number => {
      const at = claimed !== undefined ? claimed[i] : k++;
      if (!(Number.isInteger(at) && at >= 0 && at < this.spec.count) || this.answers[at] !== undefined) throw new RangeError(`deal ${at} of a job of ${this.spec.count} answered twice or out of range`);
      return at;
    };
    unpackAnswers(
      answer.packed,
      (i, outcome, moves) => {
        const at = index(i);
        if (this.spec.packedMoves) this.answers[at] = { outcome, moves };
        else {
          if (moves.length > 0) outcome.moves = unpackMoves(moves);
          this.answers[at] = { outcome, moves: NO_MOVES };
        }
        this.answered++;
      },
      (i, failure) => {
        const at = index(i);
        const error = failureError(failure);
        if (error.status >= 500) log(`solver pool: solve failed (${failure.code})`, failure.detail ?? failure.message);
        this.answers[at] = error;
        this.answered++;
      },
    );
    if (answer.response !== undefined) this.response = answer.response;
  }

  /** The job's result now: the failure, or every deal's answer (those never run `cancelled`, or `timeout` past the deadline). */
  result(): JobResult {
    if (this.failure !== undefined) return this.failure;
    if (this.census !== undefined) {
      // the deals no share ran are stopped ones: the sub-range is solved again
      return { deals: [], census: { ...this.census, stopped: this.census.stopped + this.spec.count - this.answered } };
    }
    const late = this.why === 'deadline';
    const deals = Array.from(this.answers, (a) => a ?? { outcome: late ? { ...cancelledOutcome(), reason: 'timeout' as const } : cancelledOutcome(), moves: NO_MOVES });
    return this.response !== undefined ? { deals, response: this.response } : { deals };
  }

  /** Settles the caller's promise with `result` (once; the scheduler calls it in the job's scope). */
  settleWith(result: JobResult): void {
    clearTimeout(this.killTimer);
    this.spec.signal?.removeEventListener('abort', this.onAbort);
    this.#settle(result);
  }
}
