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
 * Durability: a deal is done when its result is committed (`BatchStore`);
 * nothing else is remembered. At start, `resume()` reloads every running
 * batch and skips the deals that have a result; deals that were in flight
 * when the process died have none and are solved again. A result of a deal
 * whose solve was cancelled (batch cancelled, server shutting down) is
 * dropped, never stored as `unknown`.
 */
import { SolverError } from '../../../client-sdk/core/errors.js';
import type { Deal } from '../../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../../client-sdk/core/solve-types.js';
import type { BatchSource, PackedOutcome, SolveFn } from '../../pool.js';
import { DealTimes, sourceOf } from '../chunks.js';
import { dealAt } from '../positions.js';
import { DEFAULT_CHUNK_MS, failedResult, outcomeResult, type BatchRecord, type ResultInput, type StoredResult } from '../model.js';
import type { BatchStore } from './store.js';
import { BatchListeners } from '../listeners.js';

/** What the scheduler needs from the solver pool. */
export interface BatchPool {
  /** `pool.solve`. */
  solve: SolveFn;
  /**
   * `pool.solveManyPacked`: several deals as one shared run, each solution
   * left as bytes (stored as they are: no move object on this thread).
   * Absent: every task is one deal.
   */
  solveManyPacked?: (deals: readonly Deal[], limits: SolveLimits, signal?: AbortSignal) => Promise<(PackedOutcome | SolverError)[]>;
  /**
   * `pool.solveBatch`: several deals as one shared run that the workers deal
   * themselves (server/batches/chunks.ts `sourceOf`), each solution left as
   * bytes. Preferred over `solveManyPacked` when present.
   */
  solveBatch?: (source: BatchSource, limits: SolveLimits, signal?: AbortSignal) => Promise<(PackedOutcome | SolverError)[]>;
}

/** Options of `BatchScheduler`. */
export interface SchedulerOptions {
  /** Most batch solves in flight at once; default 1. Production passes the pool's thread count. */
  concurrency?: number;
  /**
   * Worker time one dispatch of several deals should take, by the batch's
   * mean time a deal, ms; default 100 (DEFAULT_CHUNK_MS). 0: one deal a task.
   * Needs `pool.solveManyPacked`.
   */
  chunkMs?: number;
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

interface ActiveBatch {
  record: BatchRecord;
  /** One byte a deal: 1 once its result is stored. */
  done: Uint8Array;
  doneCount: number;
  /** Lowest index not yet handed out. */
  next: number;
  /** Indices handed out whose solve came back without a result (to hand out again). */
  retry: number[];
  /** Indices of a task of several deals that failed as a whole: each goes again alone. */
  alone: number[];
  inFlight: Map<number, AbortController>;
  /** Completion times (ms) within the rate window. */
  recent: number[];
  activeSince: number;
  /** Start of the work time not yet saved (`addActiveMs`). */
  activeMark: number;
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
    this.#chunkMs = pool.solveBatch || pool.solveManyPacked ? Math.max(0, options.chunkMs ?? DEFAULT_CHUNK_MS) : 0;
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
    const done = this.#store.doneIndices(record.id, record.total);
    let doneCount = 0;
    for (let i = 0; i < done.length; i++) doneCount += done[i];
    const now = Date.now();
    const batch: ActiveBatch = {
      record,
      done,
      doneCount,
      next: 0,
      retry: [],
      alone: [],
      inFlight: new Map(),
      recent: [],
      activeSince: now,
      activeMark: now,
    };
    this.#active.set(record.id, batch);
    if (doneCount >= record.total) this.#finish(batch);
    else this.#pump();
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
      for (const controller of batch.inFlight.values()) controller.abort();
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
    const rate = span > 0 ? batch.recent.length / span : 0;
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
    for (const batch of this.#active.values()) for (const controller of batch.inFlight.values()) controller.abort();
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
      this.#dispatch(pick.batch, pick.alone ? [pick.index] : this.#withMore(pick.batch, pick.index));
    }
  }

  /** `first` and the batch's next deals, as many as fit in `chunkMs` (see the file comment). */
  #withMore(batch: ActiveBatch, first: number): number[] {
    const indices = [first];
    const size = this.#dealTimes.chunkSize(batch.record.id, this.#chunkMs);
    while (indices.length < size) {
      const index = this.#nextIndex(batch);
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
   * The next deal to start: round robin over the batches with work left; in
   * a batch, a deal that must go alone first (`alone` set), then the next.
   */
  #pick(): { batch: ActiveBatch; index: number; alone: boolean } | null {
    const batches = [...this.#active.values()];
    for (let k = 0; k < batches.length; k++) {
      const batch = batches[(this.#roundRobin + k) % batches.length];
      const lone = this.#nextAlone(batch);
      const index = lone ?? this.#nextIndex(batch);
      if (index !== null) {
        this.#roundRobin = (this.#roundRobin + k + 1) % batches.length;
        return { batch, index, alone: lone !== null };
      }
    }
    return null;
  }

  /** A deal of `batch` that must go alone (its task of several deals failed as a whole), or null. */
  #nextAlone(batch: ActiveBatch): number | null {
    while (batch.alone.length > 0) {
      const index = batch.alone.pop()!;
      if (!batch.done[index] && !batch.inFlight.has(index)) return index;
    }
    return null;
  }

  /** The next deal of `batch` to hand out (one to solve again first), or null. */
  #nextIndex(batch: ActiveBatch): number | null {
    while (batch.retry.length > 0) {
      const index = batch.retry.pop()!;
      if (!batch.done[index] && !batch.inFlight.has(index)) return index;
    }
    const total = batch.record.total;
    while (batch.next < total && (batch.done[batch.next] || batch.inFlight.has(batch.next))) batch.next++;
    return batch.next < total ? batch.next++ : null;
  }

  #dispatch(batch: ActiveBatch, indices: number[]): void {
    const spec = batch.record.spec;
    const limits = spec.limits;
    const controller = new AbortController();
    let live = indices;
    let solving: Promise<readonly (PackedOutcome | SolveOutcome | SolverError)[]>;
    if (this.#pool.solveBatch) {
      // the workers deal them (a deal a position can no longer be dealt is that deal's error)
      solving = this.#pool.solveBatch(sourceOf(spec, live), limits, controller.signal);
    } else {
      const deals: Deal[] = [];
      live = [];
      for (const index of indices) {
        try {
          deals.push(dealAt(spec, index));
          live.push(index);
        } catch (err) {
          // Validated when the batch was created; only a changed preset could get here.
          this.#record(batch, [failedResult(index, err)]);
        }
      }
      if (live.length === 0) return;
      solving =
        live.length > 1 && this.#pool.solveManyPacked
          ? this.#pool.solveManyPacked(deals, limits, controller.signal)
          : this.#pool.solve(deals[0], limits, controller.signal).then((outcome) => [outcome]);
    }
    for (const index of live) batch.inFlight.set(index, controller);
    this.#inFlight++;
    solving
      .then(
        (answers) => this.#settleAll(batch, live, answers, controller),
        (err: unknown) => {
          if (live.length > 1 && !(err instanceof SolverError && err.code === 'overloaded') && !controller.signal.aborted) {
            // The task failed as a whole (a lost worker): each deal goes again alone.
            if (this.#active.get(batch.record.id) === batch) batch.alone.push(...live);
            return;
          }
          // every deal's answer is the task's error (stored, or the deal goes out again)
          return this.#settleAll(batch, live, live.map(() => err), controller);
        },
      )
      .catch((err: unknown) => this.#onError('batch scheduler: could not record a result', err))
      .finally(() => {
        for (const index of live) batch.inFlight.delete(index);
        this.#inFlight--;
        if (this.#inFlight === 0) for (const resolve of [...this.#idle]) resolve();
        this.#pump();
      });
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
  async #settleAll(batch: ActiveBatch, live: number[], answers: readonly unknown[], controller: AbortController): Promise<void> {
    let sliceStart = performance.now();
    for (let k = 0; k < answers.length; ) {
      if (performance.now() - sliceStart >= SETTLE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const results: ResultInput[] = [];
      for (const end = Math.min(answers.length, k + STORE_GROUP); k < end; k++) {
        const result = this.#resultOf(batch, live[k], answers[k], controller);
        if (result !== undefined) results.push(result);
      }
      this.#record(batch, results);
    }
  }

  /**
   * The result to store for deal `index`'s answer (an outcome, packed or
   * not, or the error of its solve), or undefined when the deal goes out again.
   */
  #resultOf(batch: ActiveBatch, index: number, given: PackedOutcome | SolveOutcome | unknown, controller: AbortController): ResultInput | undefined {
    const packed = isPackedOutcome(given) ? given : undefined;
    const answer = packed !== undefined ? packed.outcome : given;
    if (answer instanceof SolverError || !isOutcome(answer)) {
      if (controller.signal.aborted) return undefined;
      if (answer instanceof SolverError && answer.code === 'overloaded') {
        // The pool is full or closing: this deal has no verdict yet.
        this.#again(batch, index);
        this.#pumpLater(OVERLOAD_BACKOFF_MS);
        return undefined;
      }
      return failedResult(index, answer);
    }
    // A stopped solve (cancel, shutdown) is not a verdict on the deal.
    if (controller.signal.aborted || this.#stopped || answer.reason === 'cancelled') {
      this.#again(batch, index);
      return undefined;
    }
    this.#dealTimes.observe(batch.record.id, answer.stats.elapsedMs);
    return outcomeResult(index, answer, packed?.moves);
  }

  #again(batch: ActiveBatch, index: number): void {
    if (this.#active.get(batch.record.id) === batch) batch.retry.push(index);
  }

  /** Stores `results` (of `batch`'s deals) in one transaction; when that fails, their deals go out again. */
  #record(batch: ActiveBatch, results: readonly ResultInput[]): void {
    if (results.length === 0 || this.#active.get(batch.record.id) !== batch) return; // nothing, or cancelled meanwhile
    let stored: (StoredResult | null)[];
    try {
      stored = this.#store.addResults(batch.record.id, results);
    } catch (err) {
      const which = results.length === 1 ? `deal ${results[0].index}` : `${results.length} deals (${results[0].index}, ...)`;
      this.#onError(`batch ${batch.record.id}: could not store the results of ${which}; they will be solved again`, err);
      for (const result of results) this.#again(batch, result.index);
      this.#pumpLater(OVERLOAD_BACKOFF_MS);
      return;
    }
    const now = Date.now();
    for (let k = 0; k < results.length; k++) {
      const index = results[k].index;
      if (!batch.done[index]) {
        batch.done[index] = 1;
        batch.doneCount++;
      }
      if (stored[k] !== null) batch.recent.push(now);
    }
    this.#prune(batch, now);
    this.#listeners.notify(batch.record.id);
    if (batch.doneCount >= batch.record.total) this.#finish(batch);
  }

  #finish(batch: ActiveBatch): void {
    this.#active.delete(batch.record.id);
    this.#saveActive(batch);
    this.#store.setStatus(batch.record.id, 'done');
    this.#listeners.notify(batch.record.id);
  }

  #prune(batch: ActiveBatch, now: number): void {
    const cut = now - RATE_WINDOW_MS;
    let drop = 0;
    while (drop < batch.recent.length && batch.recent[drop] < cut) drop++;
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

/** True for an answer of `solveManyPacked`: an outcome with its moves as bytes. */
function isPackedOutcome(value: unknown): value is PackedOutcome {
  return typeof value === 'object' && value !== null && 'outcome' in value && 'moves' in value && value.moves instanceof Uint8Array;
}

/** True for an engine outcome (as opposed to a thrown value). */
function isOutcome(value: unknown): value is SolveOutcome {
  return typeof value === 'object' && value !== null && 'verdict' in value && 'stats' in value;
}
