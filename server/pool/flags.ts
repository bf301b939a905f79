/**
 * The pool's shared flags: one SharedArrayBuffer made with the pool and
 * handed to every worker once, in `workerData`, so that no task carries a
 * shared buffer (posting one costs a registration on both threads). The
 * pool and its workers read and write it only through `SharedFlags`.
 *
 * ```
 * byte 0             the pool's words (POOL_BYTES)
 *   word 0 YIELD       jobs waiting that a batch share gives its worker up to (pool writes)
 *   word 1 RETIRES     retire requests made so far (workers add; the pool looks at the slots when it moved)
 * byte POOL_BYTES    workerSlots worker slots, WORKER_BYTES each: what a worker thread runs now
 *   word 0 THREAD      its threadId; 0: a free slot                        (worker claims, pool frees)
 *   word 1 TASK        id of the task it runs; 0: none                     (worker)
 *   word 2 JOB         job slot + 1 of the deal it searches; 0: between deals (worker)
 *   word 3 RETIRE      1: its engine grew past the recycle threshold       (worker)
 *   f64 at byte 16     Date.now() when that deal began                     (worker)
 * then               jobSlots job slots, JOB_BYTES each: one job's state
 *   word 0 STOP        nonzero: stop (the engine polls it)                 (pool; a helper pass for the search it runs beside)
 *   word 1 CURSOR      the next deal to claim; WITHDRAWN once taken back   (worker adds, pool withdraws)
 *   word 2 DONE        deals its workers have finished (notified)          (worker)
 *   word 3 POOLED      who runs the pooled pass: 0, POOLED_HERE, POOLED_ELSEWHERE (both, compare-exchange)
 *   f64 at byte 16     Date.now() when its first deal began; 0: not yet    (worker)
 * ```
 *
 * A job slot is the pool's to hand out and take back (`SharedFlags.takeJob`,
 * `releaseJob`, `zeroJob`); a worker slot is claimed by its thread at its
 * first task and freed by the pool when the thread is gone.
 */

/** Bytes of the pool's own words. */
const POOL_BYTES = 16;
/** Bytes of one worker slot. */
const WORKER_BYTES = 32;
/** Bytes of one job slot. */
const JOB_BYTES = 32;

const YIELD = 0;
const RETIRES = 1;
const W_THREAD = 0;
const W_TASK = 1;
const W_JOB = 2;
const W_RETIRE = 3;
const W_STARTED_BYTE = 16;
const J_STOP = 0;
const J_CURSOR = 1;
const J_DONE = 2;
const J_POOLED = 3;
const J_FIRST_BYTE = 16;

/** `CURSOR` of a job the pool took back before a worker began it: above any deal count, so no claim succeeds. */
const WITHDRAWN = 0x3fffffff;
/** `STOP` values: why the job was stopped. */
export const STOP_CANCEL = 1;
/** `POOLED` value: the job's own worker runs the pooled pass (after its full search ended `unknown`). */
export const POOLED_HERE = 1;
/** `POOLED` value: a helper pass on another worker runs it; the job's worker skips it. */
export const POOLED_ELSEWHERE = 2;

/** Sizes of a pool's flags. */
export interface FlagSizes {
  workerSlots: number;
  jobSlots: number;
}

/** The pool's shared flags (see the file comment); one instance a thread over the same buffer. */
export class SharedFlags {
  readonly buffer: SharedArrayBuffer;
  readonly workerSlots: number;
  readonly jobSlots: number;
  readonly #words: Int32Array;
  readonly #times: Float64Array;
  readonly #jobBase: number;
  /** Free job slots (the pool's side only). */
  readonly #free: number[] = [];

  constructor(sizes: FlagSizes, buffer?: SharedArrayBuffer) {
    this.workerSlots = sizes.workerSlots;
    this.jobSlots = sizes.jobSlots;
    this.#jobBase = POOL_BYTES + sizes.workerSlots * WORKER_BYTES;
    this.buffer = buffer ?? new SharedArrayBuffer(this.#jobBase + sizes.jobSlots * JOB_BYTES);
    this.#words = new Int32Array(this.buffer);
    this.#times = new Float64Array(this.buffer);
    if (buffer === undefined) for (let slot = sizes.jobSlots - 1; slot >= 0; slot--) this.#free.push(slot);
  }

  /** The flags of a worker, over the buffer the pool made (`buffer`, `sizes` from `workerData`). */
  static attach(buffer: SharedArrayBuffer, sizes: FlagSizes): SharedFlags {
    return new SharedFlags(sizes, buffer);
  }

  // ------------------------------------------------------------ the pool's words

  /** Sets how many waiting jobs a batch share gives its worker up to. */
  setYield(count: number): void {
    Atomics.store(this.#words, YIELD, count);
  }

  /** True when a batch share should give its worker up after its deal. */
  yieldRequested(): boolean {
    return Atomics.load(this.#words, YIELD) > 0;
  }

  // ------------------------------------------------------------ job slots

  /** A free job slot, zeroed; undefined when every slot is in use. */
  takeJob(): number | undefined {
    return this.#free.pop();
  }

  /** Gives a job slot back, zeroed for its next job. Only once no worker can write to it any more. */
  releaseJob(slot: number): void {
    this.zeroJob(slot);
    this.#free.push(slot);
  }

  /** Zeroes a job slot (a job handed to a worker again after its task was lost). */
  zeroJob(slot: number): void {
    const w = this.#jobWord(slot);
    this.#words.fill(0, w, w + JOB_BYTES / 4);
  }

  /** Job slots in use. */
  jobsInUse(): number {
    return this.jobSlots - this.#free.length;
  }

  #jobWord(slot: number): number {
    return (this.#jobBase >> 2) + slot * (JOB_BYTES >> 2);
  }

  /** The job's stop word as the engine polls it (index 0 of the returned view). */
  stopView(slot: number): Int32Array {
    return new Int32Array(this.buffer, this.#jobBase + slot * JOB_BYTES, 1);
  }

  /** Stops the job: its running deal at the engine's next poll, and no further deal begins. */
  stop(slot: number, reason = STOP_CANCEL): void {
    const w = this.#jobWord(slot) + J_STOP;
    Atomics.store(this.#words, w, reason);
    Atomics.notify(this.#words, w);
  }

  /** True once the job was stopped. */
  stopped(slot: number): boolean {
    return Atomics.load(this.#words, this.#jobWord(slot) + J_STOP) !== 0;
  }

  /**
   * Takes back a job no worker has begun (pool side), so that none will.
   * @returns true when withdrawn; false when a worker claimed a deal first.
   */
  withdraw(slot: number): boolean {
    return Atomics.compareExchange(this.#words, this.#jobWord(slot) + J_CURSOR, 0, WITHDRAWN) === 0;
  }

  /**
   * Claims the job's next deal (worker side).
   * @returns its index, or -1 when the job has no deal left (or was withdrawn).
   */
  claim(slot: number, count: number): number {
    const i = Atomics.add(this.#words, this.#jobWord(slot) + J_CURSOR, 1);
    return i < count ? i : -1;
  }

  /** Deals of the job claimed so far (at most `count`). */
  claimed(slot: number, count: number): number {
    return Math.min(Atomics.load(this.#words, this.#jobWord(slot) + J_CURSOR), count);
  }

  /** Deals of the job its workers have finished. */
  done(slot: number): number {
    return Atomics.load(this.#words, this.#jobWord(slot) + J_DONE);
  }

  /** Resolves once the job's finished count is above `seen` (or after `timeoutMs`); at once when it is. */
  whenDone(slot: number, seen: number, timeoutMs: number): Promise<unknown> {
    const wait = Atomics.waitAsync(this.#words, this.#jobWord(slot) + J_DONE, seen, timeoutMs);
    return wait.async ? wait.value : Promise.resolve(wait.value);
  }

  /** `Date.now()` when the job's first deal began; 0 while none has. */
  firstStarted(slot: number): number {
    return this.#times[(this.#jobBase + slot * JOB_BYTES + J_FIRST_BYTE) >> 3];
  }

  /**
   * Claims the job's pooled pass for `who` (`POOLED_HERE` or `POOLED_ELSEWHERE`).
   * @returns true when it is `who`'s now; false when the other side has it.
   */
  claimPooledPass(slot: number, who: typeof POOLED_HERE | typeof POOLED_ELSEWHERE): boolean {
    const before = Atomics.compareExchange(this.#words, this.#jobWord(slot) + J_POOLED, 0, who);
    return before === 0 || before === who;
  }

  /** Gives a helper's claim of the pooled pass back, so that the job's own worker may run it. */
  releasePooledPass(slot: number): void {
    Atomics.compareExchange(this.#words, this.#jobWord(slot) + J_POOLED, POOLED_ELSEWHERE, 0);
  }

  // ------------------------------------------------------------ worker slots

  #workerWord(w: number): number {
    return (POOL_BYTES >> 2) + w * (WORKER_BYTES >> 2);
  }

  /** Claims a free worker slot for `threadId` (worker side); -1 when none is free. */
  claimWorker(threadId: number): number {
    for (let w = 0; w < this.workerSlots; w++) {
      if (Atomics.compareExchange(this.#words, this.#workerWord(w) + W_THREAD, 0, threadId) === 0) return w;
    }
    return -1;
  }

  /** Frees the slot of a thread that is gone (pool side). */
  releaseWorker(threadId: number): void {
    const w = this.workerOf(threadId);
    if (w < 0) return;
    const base = this.#workerWord(w);
    this.#words.fill(0, base + 1, base + WORKER_BYTES / 4);
    Atomics.store(this.#words, base + W_THREAD, 0);
  }

  /** The slot of thread `threadId`, or -1. */
  workerOf(threadId: number): number {
    if (threadId <= 0) return -1;
    for (let w = 0; w < this.workerSlots; w++) if (Atomics.load(this.#words, this.#workerWord(w) + W_THREAD) === threadId) return w;
    return -1;
  }

  /** Worker side: worker slot `w` (-1: none) begins task `taskId` (0: its task ended). */
  setTaskOf(w: number, taskId: number): void {
    if (w >= 0) Atomics.store(this.#words, this.#workerWord(w) + W_TASK, taskId);
  }

  /**
   * Worker side: deal `index` of job `slot` begins now on worker slot `w`
   * (`w` -1: a thread with no slot records nothing for itself).
   */
  beginDeal(w: number, slot: number): void {
    const now = Date.now();
    const first = (this.#jobBase + slot * JOB_BYTES + J_FIRST_BYTE) >> 3;
    if (this.#times[first] === 0) this.#times[first] = now;
    if (w < 0) return;
    const base = this.#workerWord(w);
    this.#times[(POOL_BYTES + w * WORKER_BYTES + W_STARTED_BYTE) >> 3] = now;
    Atomics.store(this.#words, base + W_JOB, slot + 1);
  }

  /** Worker side: the deal of job `slot` that worker `w` ran is over. */
  endDeal(w: number, slot: number): void {
    if (w >= 0) Atomics.store(this.#words, this.#workerWord(w) + W_JOB, 0);
    const done = this.#jobWord(slot) + J_DONE;
    Atomics.add(this.#words, done, 1);
    Atomics.notify(this.#words, done);
  }

  /** Worker side: asks to be retired (its engine grew past the recycle threshold). */
  askToRetire(w: number): void {
    if (w < 0 || Atomics.exchange(this.#words, this.#workerWord(w) + W_RETIRE, 1) !== 0) return;
    Atomics.add(this.#words, RETIRES, 1);
  }

  /** Retire requests made so far (a count that only grows: the pool compares it with the last it saw). */
  retireRequests(): number {
    return Atomics.load(this.#words, RETIRES);
  }

  /** True when the worker in slot `w` asked to be retired. */
  retireAsked(w: number): boolean {
    return w >= 0 && Atomics.load(this.#words, this.#workerWord(w) + W_RETIRE) !== 0;
  }

  /** What worker slot `w` runs now: its thread, task, the job slot of its deal (-1: none) and when that deal began. */
  worker(w: number): { threadId: number; taskId: number; jobSlot: number; startedAt: number } {
    const base = this.#workerWord(w);
    return {
      threadId: Atomics.load(this.#words, base + W_THREAD),
      taskId: Atomics.load(this.#words, base + W_TASK),
      jobSlot: Atomics.load(this.#words, base + W_JOB) - 1,
      startedAt: this.#times[(POOL_BYTES + w * WORKER_BYTES + W_STARTED_BYTE) >> 3],
    };
  }
}
