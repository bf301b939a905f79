/**
 * The helper pass, a policy over the job record: a Castle-family single
 * solve (rules whose tableau ignores suit, where the pooled pass applies:
 * client-sdk/core/pools.ts, docs/search.md §9) still searching
 * `afterMs` after it began takes one idle worker for its pooled pass, run
 * beside the full search instead of in the time the full search leaves. The
 * first decisive answer wins and stops the other search (a pooled proof
 * stops the full search at once, on the worker: `WireJob.stopOnProof`).
 * When the full search ends undecided while the helper runs, its freed
 * worker runs a second pooled pass, the poolings in reverse order. A solve
 * takes at most two workers, and the second only while nobody else wants
 * it: a helper gives its worker up the moment any job waits (and hands the
 * claim of the pooled pass back, so that the full search may still run it).
 * The parent's answer comes once every search has stopped.
 */
import { SolverError } from '../../client-sdk/core/errors.js';
import { POOLED_PASS_MIN_MS } from '../../client-sdk/core/proof/writer.js';
import { POOLINGS_TO_TRY } from '../../client-sdk/core/pools.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { POOLED_ELSEWHERE, type SharedFlags } from './flags.js';
import type { DealAnswer, Job, JobResult, JobSpec } from './job.js';
import type { WireResponse } from './wire.js';

/** What the helper policy needs from the scheduler. */
export interface HelperHost {
  readonly flags: SharedFlags;
  /** True when a worker is free and no job waits for one. */
  idleWorker(): boolean;
  /** Starts a helper job on a free worker now; its settlement calls `done`. */
  startHelper(spec: JobSpec, slot: number, done: (result: JobResult) => void): Job;
  /** Settles the parent with its final answer. */
  finish(parent: Job, result: JobResult): void;
  /** Asks for a sweep at `at` (Date.now() ms). */
  armSweep(at: number): void;
  log: { error(message: string, detail?: unknown): void };
}

/** A parent's helper passes and what they found. */
interface Helped {
  first?: Job;
  second?: Job;
  /** The slot kept for the second helper, so that the first's proof can stop it on its worker. */
  secondSlot?: number;
  running: number;
  /** A helper's decisive answer (a pooled proof, a guided pass's solution). */
  proof?: { answer: DealAnswer; response?: WireResponse };
  /** A helper's failure, when it failed. */
  fault?: SolverError;
  /** The parent's own search is over; its result waits for the helpers. */
  parentDone: boolean;
}

/** The helper-pass policy (see the file comment). */
export class HelperPasses {
  readonly #host: HelperHost;
  readonly #afterMs: number;
  /** Parents that may still take a helper. */
  readonly #watched = new Set<Job>();
  /** Running helpers and how each gives its worker up. */
  readonly #running = new Map<Job, Job>();

  constructor(host: HelperHost, afterMs: number) {
    this.#host = host;
    this.#afterMs = afterMs;
  }

  /** True while some job may still take a helper. */
  get watching(): boolean {
    return this.#watched.size > 0;
  }

  /** Watches `job` for a helper pass when its spec allows one. */
  watch(job: Job): void {
    if (this.#afterMs <= 0 || job.spec.helperRules === undefined) return;
    job.helper = { running: 0, parentDone: false } satisfies Helped;
    this.#watched.add(job);
    this.#host.armSweep(Date.now() + this.#afterMs);
  }

  /** Starts the helpers that are due (a worker idle, time left); the next time one may be, or Infinity. */
  sweep(now: number): number {
    let next = Infinity;
    for (const parent of this.#watched) {
      if (parent.state === 'settled' || parent.why !== undefined) {
        this.#watched.delete(parent);
        continue;
      }
      const started = this.#host.flags.firstStarted(parent.slot);
      const due = started === 0 ? now + 250 : started + this.#afterMs;
      if (due > now) {
        next = Math.min(next, due);
        continue;
      }
      const left = parent.spec.limits.timeoutMs - (now - started);
      if (left < POOLED_PASS_MIN_MS) {
        this.#watched.delete(parent);
        continue;
      }
      if (!this.#host.idleWorker()) {
        next = Math.min(next, now + 250);
        continue;
      }
      this.#watched.delete(parent);
      // its own worker runs the pass already when it claimed it first
      if (!this.#host.flags.claimPooledPass(parent.slot, POOLED_ELSEWHERE)) continue;
      this.#startFirst(parent, left);
    }
    return next;
  }

  #startFirst(parent: Job, left: number): void {
    const h = parent.helper as Helped;
    h.secondSlot = this.#host.flags.takeJob();
    const s = parent.spec;
    const spec: JobSpec = {
      ...this.#helperBase(parent),
      // the guided pass (limits.guided) runs first in this helper, not in the second one
      limits: { maxStates: s.limits.maxStates, timeoutMs: left, ...(s.limits.guided ? { guided: true } : {}) },
      // a guided solution is shortened as the full search's would be
      ...(s.optimize && s.limits.guided ? { optimize: s.optimize } : {}),
      ...(s.helperProgress ? { progress: s.helperProgress } : {}),
      stopOnProof: h.secondSlot !== undefined ? [parent.slot, h.secondSlot] : [parent.slot],
    };
    const slot = this.#host.flags.takeJob();
    if (slot === undefined) return;
    h.first = this.#start(parent, spec, slot, true);
  }

  /** The spec every helper of `parent` shares. */
  #helperBase(parent: Job): JobSpec {
    const s = parent.spec;
    return {
      cls: 'helper',
      source: s.source,
      count: 1,
      limits: s.limits,
      deadline: s.deadline,
      answer: s.answer,
      ...(s.response ? { response: s.response } : {}),
      ...(s.proof ? { proof: s.proof } : {}),
      pass: 'pooled',
      shared: false,
      groupable: false,
    };
  }

  #start(parent: Job, spec: JobSpec, slot: number, first: boolean): Job {
    const h = parent.helper as Helped;
    h.running++;
    const helper = this.#host.startHelper(spec, slot, (result) => this.#helperDone(parent, helper, result, first));
    this.#running.set(helper, parent);
    return helper;
  }

  #helperDone(parent: Job, helper: Job, result: JobResult, first: boolean): void {
    const h = parent.helper as Helped;
    h.running--;
    this.#running.delete(helper);
    if (result instanceof SolverError) {
      h.fault ??= result;
    } else {
      const answer = result.deals[0];
      if (answer instanceof SolverError) h.fault ??= answer;
      else if (answer.outcome.verdict === 'unsolvable' || (first && answer.outcome.verdict === 'solved')) {
        // a pooled proof, or a checked solution of the guided pass: the other searches stop
        h.proof ??= { answer, ...(result.response ? { response: result.response } : {}) };
        this.#host.flags.stop(parent.slot);
        if (h.second) this.#host.flags.stop(h.second.slot);
        if (h.first && !first) this.#host.flags.stop(h.first.slot);
      }
    }
    if (h.parentDone && h.running === 0) this.#settle(parent);
  }

  /** The parent was stopped (a cancel, closing): its helpers stop too. */
  parentStopped(parent: Job): void {
    const h = parent.helper as Helped | undefined;
    if (h === undefined) return;
    for (const helper of [h.first, h.second]) if (helper && helper.state !== 'settled') this.#host.flags.stop(helper.slot);
  }

  /** Gives every running helper's worker up (a job waits for one). */
  yieldAll(): void {
    for (const [helper, parent] of this.#running) {
      if (helper.why !== undefined || this.#host.flags.stopped(helper.slot)) continue;
      const h = parent.helper as Helped;
      // the claim goes back with the worker: the full search may still run the pass itself
      if (helper === h.first) this.#host.flags.releasePooledPass(parent.slot);
      this.#host.flags.stop(helper.slot);
    }
  }

  /**
   * The parent's own search is over. True when its answer must wait for its
   * helpers (then this policy settles it); false when it settles now.
   */
  holds(parent: Job): boolean {
    this.#watched.delete(parent);
    const h = parent.helper as Helped | undefined;
    if (h === undefined || h.first === undefined) {
      this.#releaseSecond(h);
      return false;
    }
    h.parentDone = true;
    const full = parent.answers[0];
    const decided = full !== undefined && !(full instanceof SolverError) && full.outcome.verdict !== 'unknown';
    if (decided || parent.why !== undefined) {
      for (const helper of [h.first, h.second]) if (helper) this.#host.flags.stop(helper.slot);
    } else if (full !== undefined && !(full instanceof SolverError) && full.outcome.reason !== 'cancelled') {
      this.#trySecond(parent);
    }
    if (h.running > 0) return true;
    this.#settle(parent);
    return true;
  }

  /** The full search ended undecided while the first helper runs: a second pooled pass on its freed worker, from the other end. */
  #trySecond(parent: Job): void {
    const h = parent.helper as Helped;
    const started = this.#host.flags.firstStarted(parent.slot);
    const left = parent.spec.limits.timeoutMs - (Date.now() - started);
    if (h.running === 0 || h.proof !== undefined || h.secondSlot === undefined || h.first?.why !== undefined) return;
    if (this.#host.flags.stopped(h.first!.slot) || left < POOLED_PASS_MIN_MS || !this.#host.idleWorker()) return;
    const slot = h.secondSlot;
    h.secondSlot = undefined;
    const s = parent.spec;
    h.second = this.#start(
      parent,
      {
        ...this.#helperBase(parent),
        limits: { maxStates: s.limits.maxStates, timeoutMs: left },
        poolings: [...POOLINGS_TO_TRY].reverse(),
        stopOnProof: [h.first!.slot],
        // the full search's progress slot is free now
        ...(s.progress ? { progress: s.progress } : {}),
      },
      slot,
      false,
    );
  }

  #releaseSecond(h: Helped | undefined): void {
    if (h?.secondSlot !== undefined) {
      this.#host.flags.releaseJob(h.secondSlot);
      h.secondSlot = undefined;
    }
  }

  /**
   * The parent's answer once every search stopped: the full search's when
   * it decided (a checked solution or its complete search), else a
   * helper's proof, else the full search's `unknown` (or, when a helper
   * stopped it with a proof and then failed, the helper's error).
   */
  #settle(parent: Job): void {
    const h = parent.helper as Helped;
    this.#releaseSecond(h);
    const result = parent.result();
    if (result instanceof SolverError || h.proof === undefined) {
      this.#host.finish(parent, this.#withFault(parent, result, h));
      return;
    }
    const full = result.deals[0];
    const decided = !(full instanceof SolverError) && full.outcome.verdict !== 'unknown';
    if (decided) {
      const proven = (h.proof.answer as { outcome: SolveOutcome }).outcome;
      if (proven.verdict !== (full as { outcome: SolveOutcome }).outcome.verdict) {
        // both cannot be right: keep the real game's verdict (a replayed solution or a complete search) and say so
        this.#host.log.error('solver pool: the pooled pass proved a deal unsolvable that the full search decided', { verdict: (full as { outcome: SolveOutcome }).outcome.verdict });
      }
      this.#host.finish(parent, result);
      return;
    }
    this.#host.finish(parent, { deals: [h.proof.answer], ...(h.proof.response ? { response: h.proof.response } : {}) });
  }

  /** A helper that stopped the full search with its proof and then failed (building its certificate): its error, not a cancel nobody asked for. */
  #withFault(parent: Job, result: JobResult, h: Helped): JobResult {
    if (result instanceof SolverError || h.fault === undefined || parent.why !== undefined) return result;
    const full = result.deals[0];
    if (!(full instanceof SolverError) && full.outcome.verdict === 'unknown' && full.outcome.reason === 'cancelled') return h.fault;
    return result;
  }
}
