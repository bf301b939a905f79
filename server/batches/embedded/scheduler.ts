/**
 * Runs the deals of the running batches on the solver pool, beside the
 * single solves of `POST /v1/solve`, without starving them.
 *
 * Fair sharing (the rule that keeps `POST /v1/solve` fast while a 100,000-deal
 * batch runs):
 * - at most `concurrency` batch jobs are in flight at once (default: the
 *   pool's thread count);
 * - the pool starts them as batch work (server/pool/queue.ts): a single
 *   solve that arrives while every worker is busy with batch deals is the
 *   next to start, and waits for one batch deal at most, never behind
 *   batch work;
 * - between batches, round robin: each dispatch takes the next deals of the
 *   next batch with work left.
 *
 * Several deals a dispatch (server/batches/chunks.ts, as the `redis`
 * workers do): as many consecutive deals as fit in `chunkMs` of one worker
 * by the batch's running mean time a deal, handed to the pool as a shared
 * run whose deals every free worker claims one at a time, and which the
 * workers deal themselves (`pool.solveBatch`: a numbered range, or the
 * requests of a list or boards): the main thread deals none. A dispatch of
 * several deals that fails as a whole (a worker lost) gives its deals back
 * to be solved one a task, so one bad deal cannot fail others.
 *
 * Batches that keep exceptions only (`results: "exceptions"`, census.ts)
 * are handed out as sub-ranges of deal indices, never deal by deal: a
 * dispatch is a sub-range [lo, hi) of the batch's deals not yet done, as
 * many as fit in `chunkMs` by the same rule, solved by the pool's
 * `RangeSolver` (range-solver.ts: the workers deal, solve and count it),
 * whose answer (the sub-range's summary and exceptions) is recorded in one transaction (`BatchStore.recordSpan`).
 * Such a batch is kept in memory as its gaps (the parts neither done nor in
 * flight) and its sub-ranges in flight, so its memory does not grow with
 * its size: a range of 8.6 billion deals costs what a range of a thousand
 * does.
 *
 * Durability: a deal is done when its result (or its sub-range) is
 * committed (`BatchStore`); nothing else is remembered. At start,
 * `resume()` reloads every running batch and skips the deals that have a
 * result (the done spans of an `exceptions` batch); deals that were in
 * flight when the process died have none and are solved again. A result of
 * a deal whose solve was cancelled (batch cancelled, server shutting down)
 * is dropped, never stored as `unknown`; a sub-range with a stopped deal is
 * dropped whole.
 */
import { SolverError } from '../../../client-sdk/core/errors.js';
import { summariseRange, summaryCount } from '../census.js';
import { DealTimes, solveIndices, takesChunks, type BatchPool } from '../chunks.js';
import { DEFAULT_CHUNK_MS, failedResult, resultsMode, type BatchRecord, type ResultInput, type StoredResult } from '../model.js';
import { answerResult, poolRangeSolver, type RangeAnswer, type RangeSolver } from '../range-solver.js';
import type { BatchStore } from './store.js';
import { BatchListeners } from '../listeners.js';

export type { BatchPool } from '../chunks.js';

/** Options of `BatchScheduler`. */
export interface SchedulerOptions {
  /** Most batch solves in flight at once; default 1. Production passes the pool's thread count. */
  concurrency?: number;
  /**
   * Worker time one dispatch of several deals should take, by the batch's
   * mean time a deal, ms; default 100 (DEFAULT_CHUNK_MS). 0: one deal a task.
   * Needs a pool that takes several deals a call (chunks.ts `takesChunks`).
   */
  chunkMs?: number;
  /** Solves a sub-range of a batch that keeps exceptions only; default `poolRangeSolver(pool)` (range-solver.ts). */
  solveRange?: RangeSolver;
  /** Where unexpected failures (e.g. a failed database write) are reported; default `console.error`. */
  onError?: (message: string, err: unknown) => void;
}

/** Seconds of history behind the "recent" deals/s. */
const RATE_WINDOW_MS = 30_000;
/** How often the wall-clock work time of running batches is saved, ms. */
const ACTIVE_FLUSH_MS = 5_000;
/** Wait after the pool refused a solve (`overloaded`), ms. */
const OVERLOAD_BACKOFF_MS = 100;
/** Longest stretch of storing a dispatch's results before the event loop gets a turn, ms (`#settleAll`). */
const SETTLE_SLICE_MS = 5;
/** Most results stored in one transaction (`#settleAll`). */
const STORE_GROUP = 128;

/** A batch being run: its record, its work left, its live numbers. */
interface ActiveBatch {
  record: BatchRecord;
  /** `all`: deal by deal (`DealWork`); `exceptions`: by sub-range (`RangeWork`). */
  work: DealWork | RangeWork;
  doneCount: number;
  /** Deals finished within the rate window: [completion time ms, deals]. */
  recent: [number, number][];
  activeSince: number;
  /** Start of the work time not yet saved (`addActiveMs`). */
  activeMark: number;
}

/** The work left of a batch that keeps every result: one byte a deal. */
interface DealWork {
  kind: 'deals';
  /** One byte a deal: 1 once its result is stored. */
  done: Uint8Array;
  /** Lowest index not yet handed out. */
  next: number;
  /** Indices handed out whose solve came back without a result (to hand out again). */
  retry: number[];
  /** Indices of a task of several deals that failed as a whole: each goes again alone. */
  alone: number[];
  inFlight: Map<number, AbortController>;
}

/** The work left of a batch that keeps exceptions only: its gaps and its sub-ranges in flight. */
interface RangeWork {
  kind: 'ranges';
  /** Sub-ranges [lo, hi) neither done nor in flight, in order. */
  gaps: [number, number][];
  /** Single deals to go alone (their sub-range failed as a whole). */
  alone: number[];
  /** Sub-ranges in flight by their `lo`. */
  inFlight: Map<number, { hi: number; controller: AbortController }>;
}

/** Live numbers of a running batch. */
export interface LiveProgress {
  dealsPerSecond: number;
  etaSeconds: number | null;
}

export class BatchScheduler {
  readonly #store: BatchStore;
  readonly #pool: BatchPool;
  readonly #concurrency: number;
  readonly #chunkMs: number;
  readonly #dealTimes = new DealTimes();
  readonly #solveRange: RangeSolver;
  readonly #onError: (message: string, err: unknown) => void;
  readonly #active = new Map<string, ActiveBatch>();
  readonly #listeners = new BatchListeners();
  readonly #idle = new Set<() => void>();
  #inFlight = 0;
  #roundRobin = 0;
  #stopped = false;
  #pumpTimer: NodeJS.Timeout | undefined;
  readonly #flushTimer: NodeJS.Timeout;

  constructor(store: BatchStore, pool: BatchPool, options: SchedulerOptions = {}) {
    this.#store = store;
    this.#pool = pool;
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#chunkMs = takesChunks(pool) || options.solveRange ? Math.max(0, options.chunkMs ?? DEFAULT_CHUNK_MS) : 0;
    this.#solveRange = options.solveRange ?? poolRangeSolver(pool);
    this.#onError = options.onError ?? ((message, err) => console.error(message, err));
    this.#flushTimer = setInterval(() => this.#flushActive(), ACTIVE_FLUSH_MS);
    this.#flushTimer.unref();
  }

  /** Batch solves in flight now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Picks up every batch the store has as running (at start: resume after a stop or crash). */
  resume(): number {
    const running = this.#store.running();
    for (const record of running) this.add(record);
    return running.length;
  }

  /** Starts (or resumes) a batch. */
  add(record: BatchRecord): void {
    if (this.#stopped || this.#active.has(record.id) || record.status !== 'running') return;
    const work = resultsMode(record.spec) === 'exceptions' ? this.#rangeWork(record) : this.#dealWork(record);
    const now = Date.now();
    const batch: ActiveBatch = { record, work, doneCount: record.done, recent: [], activeSince: now, activeMark: now };
    this.#active.set(record.id, batch);
    if (batch.doneCount >= record.total) this.#finish(batch);
    else this.#pump();
  }

  #dealWork(record: BatchRecord): DealWork {
    return { kind: 'deals', done: this.#store.doneIndices(record.id, record.total), next: 0, retry: [], alone: [], inFlight: new Map() };
  }

  /** The gaps of a batch's done spans over [0, total). */
  #rangeWork(record: BatchRecord): RangeWork {
    const gaps: [number, number][] = [];
    let at = 0;
    for (const { lo, hi } of this.#store.doneSpans(record.id)) {
      if (lo > at) gaps.push([at, lo]);
      at = Math.max(at, hi);
    }
    if (at < record.total) gaps.push([at, record.total]);
    return { kind: 'ranges', gaps, alone: [], inFlight: new Map() };
  }

  /**
   * Cancels a batch: no further deal starts, the running ones are stopped and
   * their results dropped. Results already stored stay. Returns false when
   * the batch is not running.
   */
  cancel(id: string): boolean {
    const record = this.#store.get(id);
    if (!record || record.status !== 'running') return false;
    this.#store.setStatus(id, 'cancelled');
    const batch = this.#active.get(id);
    if (batch) {
      this.#active.delete(id);
      this.#saveActive(batch);
      abortAll(batch);
    }
    this.#listeners.notify(id);
    return true;
  }

  /** Recent throughput and ETA of a running batch (null when it is not running here). */
  progress(id: string): LiveProgress | null {
    const batch = this.#active.get(id);
    if (!batch) return null;
    const now = Date.now();
    this.#prune(batch, now);
    const span = Math.min(RATE_WINDOW_MS, now - batch.activeSince) / 1000;
    let recent = 0;
    for (const [, n] of batch.recent) recent += n;
    const rate = span > 0 ? recent / span : 0;
    const left = batch.record.total - batch.doneCount;
    return { dealsPerSecond: rate, etaSeconds: rate > 0 ? left / rate : null };
  }

  /**
   * Calls `listener` after every stored result of batch `id` and when the
   * batch ends. Returns the function that unsubscribes.
   */
  subscribe(id: string, listener: () => void): () => void {
    return this.#listeners.subscribe(id, listener);
  }

  /**
   * Stops: no new deal starts; running solves may finish and be stored for
   * up to `drainMs`, then the rest are cancelled (their deals are solved
   * again after a restart). Saves the work time. Resolves when no batch solve
   * is in flight.
   */
  async stop(drainMs = 0): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#pumpTimer);
    clearInterval(this.#flushTimer);
    if (this.#inFlight > 0 && drainMs > 0) await this.#whenIdle(drainMs);
    for (const batch of this.#active.values()) abortAll(batch);
    if (this.#inFlight > 0) await this.#whenIdle(Number.POSITIVE_INFINITY);
    for (const batch of this.#active.values()) this.#saveActive(batch);
    this.#listeners.notifyAll();
  }

  #whenIdle(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#idle.delete(done);
        resolve();
      };
      const timer = Number.isFinite(timeoutMs) ? setTimeout(done, timeoutMs) : undefined;
      this.#idle.add(done);
      if (this.#inFlight === 0) done();
    });
  }

  // ---------------------------------------------------------- dispatching

  #pump(): void {
    if (this.#stopped) return;
    while (this.#inFlight < this.#concurrency) {
      const pick = this.#pick();
      if (!pick) return;
      if (pick.kind === 'range') this.#dispatchRange(pick.batch, pick.work, pick.lo, pick.hi);
      else this.#dispatch(pick.batch, pick.work, pick.alone ? [pick.index] : this.#withMore(pick.batch, pick.work, pick.index));
    }
  }

  /** `first` and the batch's next deals, as many as fit in `chunkMs` (see the file comment). */
  #withMore(batch: ActiveBatch, work: DealWork, first: number): number[] {
    const indices = [first];
    const size = this.#dealTimes.chunkSize(batch.record.id, this.#chunkMs);
    while (indices.length < size) {
      const index = this.#nextIndex(work);
      if (index === null) break;
      indices.push(index);
    }
    return indices;
  }

  #pumpLater(ms: number): void {
    if (this.#pumpTimer !== undefined || this.#stopped) return;
    this.#pumpTimer = setTimeout(() => {
      this.#pumpTimer = undefined;
      this.#pump();
    }, ms);
  }

  /**
   * The next work to start: round robin over the batches with work left; in
   * a batch that keeps every result, a deal that must go alone first
   * (`alone` set), then the next; in one that keeps exceptions, a sub-range.
   */
  #pick(): Pick | null {
    const batches = [...this.#active.values()];
    for (let k = 0; k < batches.length; k++) {
      const batch = batches[(this.#roundRobin + k) % batches.length];
      const pick = batch.work.kind === 'ranges' ? this.#nextRange(batch, batch.work) : this.#nextDeal(batch, batch.work);
      if (pick !== null) {
        this.#roundRobin = (this.#roundRobin + k + 1) % batches.length;
        return pick;
      }
    }
    return null;
  }

  #nextDeal(batch: ActiveBatch, work: DealWork): Pick | null {
    const lone = this.#nextAlone(work);
    const index = lone ?? this.#nextIndex(work);
    return index === null ? null : { kind: 'deal', batch, work, index, alone: lone !== null };
  }

  /** The next sub-range of `batch`: a deal that must go alone, else the start of its first gap. */
  #nextRange(batch: ActiveBatch, work: RangeWork): Pick | null {
    const lone = work.alone.pop();
    if (lone !== undefined) return { kind: 'range', batch, work, lo: lone, hi: lone + 1, alone: true };
    const gap = work.gaps[0];
    if (gap === undefined) return null;
    const lo = gap[0];
    const hi = Math.min(gap[1], lo + this.#dealTimes.chunkSize(batch.record.id, this.#chunkMs));
    if (hi >= gap[1]) work.gaps.shift();
    else gap[0] = hi;
    return { kind: 'range', batch, work, lo, hi, alone: false };
  }

  /** A deal of a batch that must go alone (its task of several deals failed as a whole), or null. */
  #nextAlone(work: DealWork): number | null {
    while (work.alone.length > 0) {
      const index = work.alone.pop()!;
      if (!work.done[index] && !work.inFlight.has(index)) return index;
    }
    return null;
  }

  /** The next deal of a batch to hand out (one to solve again first), or null. */
  #nextIndex(work: DealWork): number | null {
    while (work.retry.length > 0) {
      const index = work.retry.pop()!;
      if (!work.done[index] && !work.inFlight.has(index)) return index;
    }
    const total = work.done.length;
    while (work.next < total && (work.done[work.next] || work.inFlight.has(work.next))) work.next++;
    return work.next < total ? work.next++ : null;
  }

  // ---------------------------------------------------------- exceptions: sub-ranges

  /**
   * Solves the sub-range [lo, hi) of an `exceptions` batch and records its
   * answer: the summary and exceptions in one transaction (done), the
   * sub-range back in the gaps (stopped by shutdown, refused), or each of
   * its deals alone (failed as a whole).
   */
  #dispatchRange(batch: ActiveBatch, work: RangeWork, lo: number, hi: number): void {
    const controller = new AbortController();
    work.inFlight.set(lo, { hi, controller });
    this.#inFlight++;
    // one census job: the workers deal, solve and count the sub-range (range-solver.ts)
    this.#solveRange({ spec: batch.record.spec, lo, hi, mode: 'exceptions' }, controller.signal)
      .then((answer) => this.#settleRange(batch, work, lo, hi, answer, controller))
      .catch((err: unknown) => this.#onError('batch scheduler: could not record a sub-range', err))
      .finally(() => {
        work.inFlight.delete(lo);
        this.#inFlightDone();
      });
  }

  #settleRange(batch: ActiveBatch, work: RangeWork, lo: number, hi: number, answer: RangeAnswer, controller: AbortController): void {
    const live = this.#active.get(batch.record.id) === batch;
    if (!live || controller.signal.aborted) return; // cancelled: nothing of it counts
    if (answer.kind === 'failed') {
      if (hi - lo === 1) answer = this.#failedAlone(lo, answer.error);
      else {
        for (let index = hi - 1; index >= lo; index--) work.alone.push(index);
        return;
      }
    }
    if (answer.kind !== 'done') {
      insertGap(work.gaps, lo, hi);
      if (answer.kind === 'overloaded') this.#pumpLater(OVERLOAD_BACKOFF_MS);
      return;
    }
    let stored: StoredResult[] | null;
    try {
      stored = this.#store.recordSpan(batch.record.id, lo, hi, answer.summary, answer.kept);
    } catch (err) {
      this.#onError(`batch ${batch.record.id}: could not store deals ${lo}..${hi - 1}; they will be solved again`, err);
      insertGap(work.gaps, lo, hi);
      this.#pumpLater(OVERLOAD_BACKOFF_MS);
      return;
    }
    if (stored === null) {
      // Not written: the batch ended meanwhile (cancelled, or finished by another process on the
      // same file), or another process counted deals of [lo, hi) first. Take the store's word.
      const record = this.#store.get(batch.record.id);
      if (record?.status !== 'running') {
        this.#active.delete(batch.record.id);
        abortAll(batch);
        this.#listeners.notify(batch.record.id);
        return;
      }
      batch.doneCount = record.done;
      if (batch.doneCount >= batch.record.total) this.#finish(batch);
      return;
    }
    const n = summaryCount(answer.summary);
    if (n > 0) {
      const ms = answer.summary.sumElapsedUs / 1000 / n;
      this.#dealTimes.observe(batch.record.id, ms, n);
    }
    this.#counted(batch, hi - lo);
  }

  /** A deal whose task failed alone: an `error` result of its own. */
  #failedAlone(index: number, error: unknown): RangeAnswer {
    const { summary, kept } = summariseRange([failedResult(index, error)], 'exceptions');
    return { kind: 'done', summary, kept };
  }

  // ---------------------------------------------------------- every result kept: deal by deal

  #dispatch(batch: ActiveBatch, work: DealWork, indices: number[]): void {
    const live = indices;
    const controller = new AbortController();
    for (const index of live) work.inFlight.set(index, controller);
    this.#inFlight++;
    // the workers deal them (chunks.ts): a deal that can no longer be dealt answers its error
    const solving = solveIndices(this.#pool, batch.record.spec, live, controller.signal);
    solving
      .then(
        (answers) => this.#settleAll(batch, work, live, answers, controller),
        (err: unknown) => {
          if (live.length > 1 && !(err instanceof SolverError && err.code === 'overloaded') && !controller.signal.aborted) {
            // The task failed as a whole (a lost worker): each deal goes again alone.
            if (this.#active.get(batch.record.id) === batch) work.alone.push(...live);
            return;
          }
          // every deal's answer is the task's error (stored, or the deal goes out again)
          return this.#settleAll(batch, work, live, live.map(() => err), controller);
        },
      )
      .catch((err: unknown) => this.#onError('batch scheduler: could not record a result', err))
      .finally(() => {
        for (const index of live) work.inFlight.delete(index);
        this.#inFlightDone();
      });
  }

  /** One dispatch less in flight: wakes `stop` when none is left, and dispatches more. */
  #inFlightDone(): void {
    this.#inFlight--;
    if (this.#inFlight === 0) for (const resolve of [...this.#idle]) resolve();
    this.#pump();
  }

  /**
   * Stores a dispatch's answers (`answers[k]` is deal `live[k]`'s), up to
   * STORE_GROUP results a transaction (`BatchStore.addResults`: a commit
   * costs ~0.1 ms, a result's rows ~10-20 µs), giving the event loop a turn
   * every SETTLE_SLICE_MS: a dispatch of 1,024 MS deals stored in one go
   * held HTTP requests (`POST /v1/solve`, `/healthz`) for 250-300 ms when a
   * result was a transaction of its own, and back to back for seconds when
   * the workers' next answers were already waiting.
   */
  async #settleAll(batch: ActiveBatch, work: DealWork, live: number[], answers: readonly unknown[], controller: AbortController): Promise<void> {
    let sliceStart = performance.now();
    for (let k = 0; k < answers.length; ) {
      if (performance.now() - sliceStart >= SETTLE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const results: ResultInput[] = [];
      for (const end = Math.min(answers.length, k + STORE_GROUP); k < end; k++) {
        const result = this.#resultOf(batch, work, live[k], answers[k], controller);
        if (result !== undefined) results.push(result);
      }
      this.#record(batch, work, results);
    }
  }

  /**
   * The result to store for deal `index`'s answer (an outcome, packed or
   * not, or the error of its solve), or undefined when the deal goes out again.
   */
  #resultOf(batch: ActiveBatch, work: DealWork, index: number, answer: unknown, controller: AbortController): ResultInput | undefined {
    const result = answerResult(index, answer, controller.signal.aborted);
    if (result === 'overloaded') {
      // The pool is full or closing: this deal has no verdict yet.
      this.#again(batch, work, index);
      this.#pumpLater(OVERLOAD_BACKOFF_MS);
      return undefined;
    }
    if (result === 'stopped') {
      // A stopped solve (cancel, shutdown) is not a verdict on the deal.
      if (!controller.signal.aborted) this.#again(batch, work, index);
      return undefined;
    }
    if (result.error === undefined) this.#dealTimes.observe(batch.record.id, result.elapsedMs);
    return result;
  }

  #again(batch: ActiveBatch, work: DealWork, index: number): void {
    if (this.#active.get(batch.record.id) === batch) work.retry.push(index);
  }

  /** Stores `results` (of `batch`'s deals) in one transaction; when that fails, their deals go out again. */
  #record(batch: ActiveBatch, work: DealWork, results: readonly ResultInput[]): void {
    if (results.length === 0 || this.#active.get(batch.record.id) !== batch) return; // nothing, or cancelled meanwhile
    try {
      this.#store.addResults(batch.record.id, results);
    } catch (err) {
      const which = results.length === 1 ? `deal ${results[0].index}` : `${results.length} deals (${results[0].index}, ...)`;
      this.#onError(`batch ${batch.record.id}: could not store the results of ${which}; they will be solved again`, err);
      for (const result of results) this.#again(batch, work, result.index);
      this.#pumpLater(OVERLOAD_BACKOFF_MS);
      return;
    }
    let fresh = 0;
    for (const { index } of results) {
      if (!work.done[index]) {
        work.done[index] = 1;
        fresh++;
      }
    }
    this.#counted(batch, fresh);
  }

  /** `n` more deals of `batch` are finished: its rate, its listeners, its end. */
  #counted(batch: ActiveBatch, n: number): void {
    const now = Date.now();
    batch.doneCount += n;
    if (n > 0) batch.recent.push([now, n]);
    this.#prune(batch, now);
    this.#listeners.notify(batch.record.id);
    if (batch.doneCount >= batch.record.total) this.#finish(batch);
  }

  #finish(batch: ActiveBatch): void {
    this.#dealTimes.forget(batch.record.id);
    this.#active.delete(batch.record.id);
    this.#saveActive(batch);
    this.#store.setStatus(batch.record.id, 'done');
    this.#listeners.notify(batch.record.id);
  }

  #prune(batch: ActiveBatch, now: number): void {
    const cut = now - RATE_WINDOW_MS;
    let drop = 0;
    while (drop < batch.recent.length && batch.recent[drop][0] < cut) drop++;
    if (drop > 0) batch.recent.splice(0, drop);
  }

  #saveActive(batch: ActiveBatch): void {
    const now = Date.now();
    try {
      this.#store.addActiveMs(batch.record.id, now - batch.activeMark);
    } catch (err) {
      this.#onError('batch scheduler: could not save the work time', err);
    }
    batch.activeMark = now;
  }

  #flushActive(): void {
    for (const batch of this.#active.values()) this.#saveActive(batch);
  }
}

/** A dispatch about to start: some deals of a batch that keeps every result, or a sub-range of one that keeps exceptions. */
type Pick =
  | { kind: 'deal'; batch: ActiveBatch; work: DealWork; index: number; alone: boolean }
  | { kind: 'range'; batch: ActiveBatch; work: RangeWork; lo: number; hi: number; alone: boolean };

/** Stops every solve of `batch` in flight. */
function abortAll(batch: ActiveBatch): void {
  if (batch.work.kind === 'deals') for (const controller of batch.work.inFlight.values()) controller.abort();
  else for (const { controller } of batch.work.inFlight.values()) controller.abort();
}

/** Puts [lo, hi) back into the sorted gaps (it overlaps none: it was taken from them). */
function insertGap(gaps: [number, number][], lo: number, hi: number): void {
  let at = 0;
  while (at < gaps.length && gaps[at][0] < lo) at++;
  gaps.splice(at, 0, [lo, hi]);
}
