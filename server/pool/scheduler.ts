/**
 * The pool's scheduler: one lifecycle for every job (job.ts). A job waits
 * in the queue (queue.ts: by class, then by age) until a worker may take
 * it; then it runs in a task on one worker (alone, or grouped with the
 * single solves behind it, or as one share of a shared run), and settles
 * once, through `#finish`, with its deals' answers, its failure, or its
 * refusal. Stopping it is one path too (`stop`): out of the queue when it
 * waits, taken back when its worker has not begun it, else its stop flag,
 * and `stopGraceMs` later its worker terminated if it is still on the job.
 * One timer (`#sweep`) serves every deadline: a waiting interactive job's
 * bounded wait, a request's deadline, a deal past its allowance (its
 * worker terminated), the lane, the helper passes.
 *
 * The lane: with `lane`, the pool has one thread more than `threads`, for
 * interactive jobs only, and only while every one of the `threads` workers
 * has been on its current deal longer than `laneAfterMs` (long searches of
 * any class hold them): then the oldest waiting interactive job runs there.
 * A lane job that has run `laneYieldMs` while another interactive job waits
 * for the lane is stopped and refused (503), so that the lane is never held
 * by a long search; a short solve gets its answer within about
 * `laneAfterMs` whatever runs on the other workers.
 *
 * Piscina runs the tasks; its own queue stays empty: a task is handed to it
 * only when a worker may take it (docs/architecture.md, "The pool", says
 * why the queue is the pool's).
 */
import { Piscina } from 'piscina';
import { SolverError } from '../../client-sdk/core/errors.js';
import { emptySummary } from '../batches/census.js';
import { SharedFlags } from './flags.js';
import { HelperPasses } from './helper-pass.js';
import { Job, type JobClass, type JobResult, type JobSpec, type StopReason } from './job.js';
import { JobQueue } from './queue.js';
import { taskError, type PoolLog, type SchedulerSettings, type SolveEvent } from './settings.js';
import { cancelledOutcome, type PoolWorkerData, type WireAnswer, type WireTask } from './wire.js';

export type { PoolLog, SchedulerSettings, SolveEvent } from './settings.js';

/** A task on a worker: its jobs, whether it is the lane's, and why the pool terminated its worker. */
interface Task {
  readonly id: number;
  readonly jobs: Job[];
  readonly lane: boolean;
  killed?: StopReason;
  culprit?: Job;
}

/** Shortest and longest wait of the sweep's timer, ms (Node's longest timer: a longer one fires at once). */
const SWEEP_MIN_MS = 10;
const SWEEP_MAX_MS = 2 ** 31 - 1;

const overloaded = (message: string) => new SolverError('overloaded', message);

/** The scheduler (see the file comment). */
export class Scheduler {
  readonly flags: SharedFlags;
  readonly #s: SchedulerSettings;
  readonly #piscina: Piscina<WireTask, WireAnswer>;
  readonly #queue = new JobQueue();
  readonly #helpers: HelperPasses;
  readonly #tasks = new Map<number, Task>();
  readonly #bySlot: (Job | undefined)[];
  /** Jobs accepted and not settled, helpers included. */
  readonly #inFlight = new Set<Job>();
  /** Jobs accepted and not settled, by class. */
  readonly #perClass = { interactive: 0, background: 0, batch: 0, helper: 0 };
  /** Shared jobs running with deals left, oldest first: a worker that frees up with nothing waiting joins the first. */
  readonly #joinable: Job[] = [];
  readonly #retiring = new Set<number>();
  /**
   * Piscina's view of each worker by thread id (`workerCreate`): its
   * `currentUsage` counts a task until Piscina has taken in its answer, which
   * the worker's own flags (task id 0) say earlier, while the answer is
   * still on its way.
   */
  readonly #workerInfo = new Map<number, { currentUsage: number }>();
  readonly #idleWaiters = new Set<() => void>();
  #onWorkers = 0;
  #laneTask: Task | undefined;
  #nextTaskId = 1;
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweepAt = Infinity;
  #completed = 0;
  #recycled = 0;
  /** `SharedFlags.retireRequests` when the pool last found none left to act on. */
  #retiresSeen = 0;
  #closing = false;

  constructor(settings: SchedulerSettings) {
    this.#s = settings;
    const threads = settings.threads + (settings.lane ? 1 : 0);
    const jobSlots = Math.min(1 << 16, 4 * (threads + settings.maxQueue) + 1024);
    this.flags = new SharedFlags({ workerSlots: 4 * threads + 8, jobSlots });
    this.#bySlot = new Array(jobSlots);
    this.#helpers = new HelperPasses(
      {
        flags: this.flags,
        idleWorker: () => !this.#closing && this.#onWorkers < this.#s.threads && this.#queue.size() === 0,
        startHelper: (spec, slot, done) => this.#startHelper(spec, slot, done),
        finish: (job, result) => this.#finish(job, result),
        armSweep: (at) => this.#armSweep(at),
        log: settings.log,
      },
      settings.threads >= 2 ? settings.helperPassAfterMs : 0,
    );
    const workerData: PoolWorkerData = { ...settings.workerData, flags: this.flags.buffer, sizes: { workerSlots: this.flags.workerSlots, jobSlots } };
    this.#piscina = new Piscina<WireTask, WireAnswer>({
      filename: settings.filename,
      execArgv: settings.execArgv,
      minThreads: settings.minThreads + (settings.lane ? 1 : 0),
      maxThreads: threads,
      workerData,
      loadBalancer: (_task, workers) => {
        for (const worker of workers) {
          if (worker.currentUsage !== 0 || worker.terminating || worker.destroyed || this.#retiring.has(worker.id)) continue;
          if (this.flags.retireRequests() !== this.#retiresSeen && this.flags.retireAsked(this.flags.workerOf(worker.id))) continue;
          return worker;
        }
        return null;
      },
      // Piscina's run/wait histograms: nobody reads them, and they cost a clock read and a record a task on both threads
      recordTiming: false,
      ...(settings.resourceLimits ? { resourceLimits: settings.resourceLimits } : {}),
    });
    // unhandled, a pool error event would end the process
    this.#piscina.on('error', settings.onError);
    this.#piscina.on('workerCreate', (worker: { id: number; currentUsage: number }) => {
      this.#workerInfo.set(worker.id, worker);
    });
    this.#piscina.on('workerDestroy', (worker: { id: number }) => {
      this.#workerInfo.delete(worker.id);
      this.#retiring.delete(worker.id);
      this.flags.releaseWorker(worker.id);
    });
  }

  // ------------------------------------------------------------ submitting

  /**
   * True when a job of `cls` submitted now would wait no longer than the
   * pool allows: not closing, and its class's jobs in flight below
   * `threads + maxQueue` (batch and helper jobs are bounded by their
   * callers). An interactive job is also refused at once when the lane
   * is held and more interactive jobs wait for it than it can start
   * within `startWaitMs`.
   */
  admits(cls: JobClass): boolean {
    if (this.#closing) return false;
    if (cls === 'batch' || cls === 'helper') return true;
    if (this.#perClass[cls] >= this.#s.threads + (this.#s.lane ? 1 : 0) + this.#s.maxQueue) return false;
    if (cls !== 'interactive' || !this.#s.lane || this.#laneTask === undefined || !this.#allRegularLong(Date.now())) return true;
    return this.#queue.size('interactive') < Math.max(1, Math.floor(this.#s.startWaitMs / this.#s.laneYieldMs));
  }

  /**
   * Accepts a job: it settles with its result, or with SolverError
   * `overloaded` when the pool is closing or the job's class is full
   * (`admits`), or with every deal `cancelled` when its signal fired first.
   */
  submit(spec: JobSpec): Promise<JobResult> {
    if (spec.signal?.aborted) return Promise.resolve(this.#refused(spec, undefined));
    if (!this.admits(spec.cls)) {
      return Promise.resolve(this.#refused(spec, overloaded(this.#closing ? 'the service is shutting down' : `the solver is busy (${this.#s.threads} workers busy, ${this.#queue.size()} waiting); retry later`)));
    }
    const slot = this.flags.takeJob();
    if (slot === undefined) return Promise.resolve(this.#refused(spec, overloaded('the solver is busy (every job slot in use); retry later')));
    return new Promise<JobResult>((resolve) => {
      const job = new Job(spec, slot, this.#s.startWaitMs, resolve, (j) => this.stop(j, 'cancel'));
      this.#accept(job);
      spec.signal?.addEventListener('abort', job.onAbort, { once: true });
      this.#helpers.watch(job);
      this.#queue.push(job);
      if (job.startBy !== Infinity || spec.deadline !== Infinity) this.#armSweep(Math.min(job.startBy, spec.deadline));
      this.#dispatch();
      if (job.state === 'waiting') {
        // it waits: a helper pass gives its worker up to it, and the lane may take it once the workers' searches are long
        this.#helpers.yieldAll();
        if (this.#s.lane && spec.cls === 'interactive') this.#armSweep(Date.now() + this.#s.laneAfterMs);
      }
    });
  }

  #accept(job: Job): void {
    this.#inFlight.add(job);
    this.#perClass[job.spec.cls]++;
    this.#bySlot[job.slot] = job;
  }

  /** A job refused or cancelled before it was accepted: its events, and its result. */
  #refused(spec: JobSpec, error: SolverError | undefined): JobResult {
    if (spec.answer === 'census') return error ?? { deals: [], census: { summary: emptySummary(), kept: [], stopped: spec.count } };
    if (spec.cls !== 'helper') for (let i = 0; i < spec.count; i++) this.#event(error ? { error } : { outcome: cancelledOutcome() }, 0, 0);
    if (error) return error;
    return { deals: Array.from({ length: spec.count }, () => ({ outcome: cancelledOutcome(), moves: new Uint8Array(0) })) };
  }

  #startHelper(spec: JobSpec, slot: number, done: (result: JobResult) => void): Job {
    const job = new Job(spec, slot, 0, done, () => {});
    this.#accept(job);
    this.#run([job], false);
    return job;
  }

  // ------------------------------------------------------------ dispatching

  /** Hands waiting jobs to free workers (see the file comment), then the lane, then the helper passes. */
  #dispatch(): void {
    if (this.#closing) return;
    const fairShare = Math.max(1, Math.ceil(this.#queue.size() / this.#s.threads));
    while (this.#onWorkers < this.#s.threads) {
      const job = this.#queue.shift();
      if (job === undefined) {
        const join = this.#nextJoin();
        if (join === undefined) break;
        this.#run([join], false);
        continue;
      }
      if (Date.now() > job.startBy) {
        this.#refuse(job);
        continue;
      }
      const cap = job.spec.groupable && !job.retried ? Math.min(this.#s.groupMax, fairShare) : 1;
      this.#run(cap > 1 ? [job, ...this.#queue.takeFollowers(job, cap)] : [job], false);
    }
    if (this.#s.lane && this.#laneTask === undefined && this.#queue.first('interactive') !== undefined && this.#allRegularLong(Date.now())) {
      this.#run([this.#queue.shiftOf('interactive')!], true);
    }
    this.flags.setYield(this.#queue.aboveBatches());
    // a free worker: a helper pass may take it
    if (this.#helpers.watching && this.#onWorkers < this.#s.threads && this.#queue.size() === 0) this.#armSweep(Date.now());
  }

  /** A shared job running with deals no share claimed yet, for a free worker to join. */
  #nextJoin(): Job | undefined {
    while (this.#joinable.length > 0) {
      const job = this.#joinable[0];
      if (job.state === 'running' && job.why === undefined && job.failure === undefined && this.flags.claimed(job.slot, job.spec.count) < job.spec.count) return job;
      this.#joinable.shift();
    }
    return undefined;
  }

  /** True when every regular worker has been on its current deal longer than `laneAfterMs`. */
  #allRegularLong(now: number): boolean {
    if (this.#onWorkers < this.#s.threads) return false;
    let long = 0;
    for (let w = 0; w < this.flags.workerSlots; w++) {
      const { taskId, jobSlot, startedAt } = this.flags.worker(w);
      const task = taskId > 0 ? this.#tasks.get(taskId) : undefined;
      if (task !== undefined && !task.lane && jobSlot >= 0 && now - startedAt >= this.#s.laneAfterMs) long++;
    }
    return long >= this.#s.threads;
  }

  /** Runs `jobs` as one task on a worker (the caller checked that one may take it). */
  #run(jobs: Job[], lane: boolean): void {
    const task: Task = { id: this.#nextTaskId++, jobs, lane };
    this.#tasks.set(task.id, task);
    if (lane) this.#laneTask = task;
    else this.#onWorkers++;
    let allowance = 0;
    for (const job of jobs) {
      job.state = 'running';
      job.tasks++;
      job.grouped = jobs.length > 1;
      allowance = Math.max(allowance, job.allowanceMs());
      if (job.spec.shared && job.tasks === 1) this.#joinable.push(job);
    }
    this.#armSweep(Date.now() + allowance + this.#s.stopGraceMs);
    const wire: WireTask = { id: task.id, jobs: jobs.map((j) => j.wire()) };
    // in the context of its first job: Piscina runs the answer's callback there
    jobs[0].scope.runInAsyncScope(() => {
      this.#piscina.run(wire).then(
        (answer) => this.#taskDone(task, answer, undefined),
        (err: unknown) => this.#taskDone(task, undefined, err),
      );
    });
  }

  // ------------------------------------------------------------ answers

  #taskDone(task: Task, answer: WireAnswer | undefined, err: unknown): void {
    this.#tasks.delete(task.id);
    if (task.lane) this.#laneTask = undefined;
    else this.#onWorkers--;
    this.#retireAsked();
    if (answer !== undefined) {
      try {
        for (const a of answer.jobs) {
          const job = task.jobs.find((j) => j.slot === a.slot);
          if (job === undefined) throw new RangeError(`an answer for job slot ${a.slot}, not in its task`);
          if (job.state !== 'settled') job.take(a, (m, d) => job.scope.runInAsyncScope(() => this.#s.log.error(m, d, job.logContext)));
        }
      } catch (e) {
        err = e;
      }
    }
    for (const job of task.jobs) {
      job.tasks--;
      // a job settled while its task ran (taken back, or answered as its deal ended): its slot is free once the task is over
      if (job.state === 'settled' && job.tasks === 0) this.#release(job);
    }
    if (err !== undefined) this.#taskFailed(task, err);
    for (const job of task.jobs) this.#afterTask(job);
    this.#dispatch();
    this.#checkIdle();
  }

  /** A job whose task ended: settled, or (a shared job with deals left) back in the queue. */
  #afterTask(job: Job): void {
    if (job.state !== 'running' || job.tasks > 0) return;
    if (job.spec.shared && job.why === undefined && job.failure === undefined && !this.#closing && this.flags.claimed(job.slot, job.spec.count) < job.spec.count) {
      job.state = 'waiting';
      this.#queue.push(job);
      return;
    }
    if (this.#helpers.holds(job)) return;
    this.#finish(job, job.result());
  }

  /**
   * A task that lost its worker (or answered malformed): a job alone, or a
   * shared run, fails with the error (`cancelled` when the pool terminated
   * the worker after a cancel); in a group the job at fault (the one the
   * worker was on) gets that error, and the others, whose answers went with
   * the worker, run again, each alone.
   */
  #taskFailed(task: Task, err: unknown): void {
    const culprit = task.culprit ?? task.jobs.find((j) => j.state !== 'settled' && this.flags.claimed(j.slot, j.spec.count) > this.flags.done(j.slot));
    let again = 0;
    for (const job of task.jobs) {
      if (job.state === 'settled') continue;
      const alone = task.jobs.length === 1;
      if (!alone && job !== culprit) {
        if (this.#closing || job.why !== undefined) continue;
        job.retried = true;
        this.flags.zeroJob(job.slot);
        job.state = 'waiting';
        this.#queue.push(job);
        again++;
        continue;
      }
      job.scope.runInAsyncScope(() => {
        // terminated after a cancel (or a refusal: its answer is the 503 already): the job answers as it was asked to
        if (task.killed === 'cancel' || task.killed === 'close' || task.killed === 'refuse') {
          if (task.killed !== 'refuse') this.#s.log.warn('solver pool: a cancelled solve did not stop in time; its worker was terminated', undefined, job.logContext);
          return;
        }
        // closing: every job not done answers cancelled (Piscina's close fails the tasks still in its queue)
        if (this.#closing) return;
        job.failure ??= taskError(err, task.killed);
        if (!(err instanceof SolverError)) this.#s.log.error(`solver pool: solve failed (${job.failure.code})`, err, job.logContext);
        // a shared run fails as a whole: its other shares stop
        if (job.spec.shared) this.flags.stop(job.slot);
      });
    }
    if (again > 0) this.#s.log.warn(`solver pool: ${again} solves of a failed group run again, each alone`);
  }

  /** Settles `job` (once): its flags back, its events, its caller's promise, in its own async context. */
  #finish(job: Job, result: JobResult): void {
    if (job.state === 'settled') return;
    if (job.state === 'waiting' && this.#queue.remove(job)) this.flags.setYield(this.#queue.aboveBatches());
    this.#inFlight.delete(job);
    this.#perClass[job.spec.cls]--;
    job.state = 'settled';
    // a task still running it may still claim from its slot: the slot is freed when that task ends
    if (job.tasks === 0) this.#release(job);
    job.scope.runInAsyncScope(() => {
      if (job.spec.cls !== 'helper') {
        // a failed job's answers are lost with it
        if (!(result instanceof SolverError)) this.#completed += job.answered;
        const started = this.flags.firstStarted(job.slot) || 0;
        const queuedMs = started === 0 ? 0 : Math.max(0, started - job.submitted);
        const totalMs = Date.now() - job.submitted;
        if (result instanceof SolverError) for (let i = 0; i < job.spec.count; i++) this.#event({ error: result }, queuedMs, totalMs);
        else if (result.census !== undefined) this.#event({ census: result.census.summary }, queuedMs, totalMs);
        else for (const d of result.deals) this.#event(d instanceof SolverError ? { error: d } : { outcome: d.outcome }, queuedMs, totalMs);
      }
      job.settleWith(result);
    });
    this.#checkIdle();
  }

  #release(job: Job): void {
    this.#bySlot[job.slot] = undefined;
    this.flags.releaseJob(job.slot);
  }

  #event(e: Pick<SolveEvent, 'outcome' | 'error' | 'census'>, queuedMs: number, totalMs: number): void {
    try {
      this.#s.onSettled?.({ ...e, queuedMs, totalMs });
    } catch (err) {
      this.#s.log.error('solver pool: onSettled failed', err);
    }
  }

  // ------------------------------------------------------------ stopping

  /**
   * Stops `job` for `why`: out of the queue when it waits (answered at
   * once); taken back when its worker has not begun it; else its stop flag,
   * a group's deal answered as soon as it ends, and `stopGraceMs` later its
   * worker terminated if it is still on the job. `refuse` answers 503.
   */
  stop(job: Job, why: StopReason): void {
    if (job.state === 'settled' || job.why !== undefined) return;
    job.why = why;
    if (why === 'refuse') job.failure = overloaded('every solver worker is busy with long searches; retry later');
    if (job.state === 'waiting') {
      this.#queue.remove(job);
      this.flags.setYield(this.#queue.aboveBatches());
      if (job.tasks === 0) {
        this.#finish(job, job.result());
        return;
      }
    }
    this.flags.stop(job.slot);
    this.#helpers.parentStopped(job);
    if (!job.spec.shared && this.flags.withdraw(job.slot)) {
      this.#finish(job, job.result());
      return;
    }
    if (why === 'cancel' && job.grouped) {
      // its deal ends within a poll: answered then, not when the rest of its group's task does
      void this.flags.whenDone(job.slot, 0, this.#s.stopGraceMs).then(() => {
        const done = this.flags.done(job.slot);
        if (job.state === 'settled' || done === 0) return;
        // its worker answered it (the answer comes with the task's): it counts as answered
        job.answered = done;
        this.#finish(job, job.result());
      });
    }
    job.killTimer = setTimeout(() => this.#killJob(job, why), this.#s.stopGraceMs);
  }

  /** A waiting interactive job past its bounded wait: refused (503). */
  #refuse(job: Job): void {
    this.stop(job, 'refuse');
  }

  /** The last resort for a stopped job still on a worker: its worker terminated; one never begun (its worker still starting) given up. */
  #killJob(job: Job, why: StopReason): void {
    job.killTimer = undefined;
    if (job.state === 'settled') return;
    let found = false;
    for (let w = 0; w < this.flags.workerSlots; w++) {
      const on = this.flags.worker(w);
      if (on.jobSlot !== job.slot) continue;
      found = true;
      this.#killWorker(on.threadId, on.taskId, why, job);
    }
    if (!found && this.flags.claimed(job.slot, job.spec.count) === 0 && why === 'cancel') {
      job.scope.runInAsyncScope(() => this.#s.log.warn('solver pool: a cancelled solve had not begun on a worker in time; it was given up', undefined, job.logContext));
      this.#finish(job, job.result());
    }
  }

  #killWorker(threadId: number, taskId: number, why: StopReason, culprit: Job): void {
    const task = this.#tasks.get(taskId);
    if (task !== undefined) {
      task.killed ??= why;
      task.culprit ??= culprit;
    }
    const worker = this.#piscina.threads.find((t) => t.threadId === threadId);
    if (worker !== undefined) void worker.terminate();
  }

  /** Workers that asked to be retired and have no task left: terminated (Piscina starts their replacements). */
  #retireAsked(): void {
    // nothing new since the last look (the common case: one load)
    const asked = this.flags.retireRequests();
    if (asked === this.#retiresSeen) return;
    let pending = false;
    for (let w = 0; w < this.flags.workerSlots; w++) {
      if (!this.flags.retireAsked(w)) continue;
      const on = this.flags.worker(w);
      if (on.threadId === 0 || this.#retiring.has(on.threadId) || this.#closing) continue;
      // still on a task, or its answer not yet taken in: looked at again when that task answers
      if (on.taskId !== 0 || (this.#workerInfo.get(on.threadId)?.currentUsage ?? 0) !== 0) {
        pending = true;
        continue;
      }
      const worker = this.#piscina.threads.find((t) => t.threadId === on.threadId);
      if (worker === undefined) continue;
      this.#retiring.add(on.threadId);
      this.#recycled++;
      try {
        this.#s.onRecycle?.({ threadId: on.threadId });
      } catch (err) {
        this.#s.log.error('solver pool: onRecycle failed', err);
      }
      void worker.terminate();
    }
    if (!pending) this.#retiresSeen = asked;
  }

  // ------------------------------------------------------------ the sweep

  #armSweep(at: number): void {
    if (at >= this.#sweepAt) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepAt = at;
    this.#sweepTimer = setTimeout(() => this.#sweep(), Math.min(Math.max(at - Date.now(), SWEEP_MIN_MS), SWEEP_MAX_MS));
  }

  /** Every deadline of the pool, one timer for all (see the file comment). */
  #sweep(): void {
    this.#sweepTimer = undefined;
    this.#sweepAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const job of this.#queue.all()) {
      if (now > job.startBy) this.#refuse(job);
      else if (now >= job.spec.deadline) this.stop(job, 'deadline');
      else next = Math.min(next, job.startBy, job.spec.deadline);
    }
    let youngest = Infinity;
    for (let w = 0; w < this.flags.workerSlots; w++) {
      const on = this.flags.worker(w);
      const job = on.jobSlot >= 0 ? this.#bySlot[on.jobSlot] : undefined;
      if (job === undefined || on.startedAt === 0) continue;
      const due = on.startedAt + job.allowanceMs() + this.#s.stopGraceMs;
      if (now >= due) {
        this.#s.log.warn('solver pool: a search ran past its deadline; its worker is terminated');
        this.#killWorker(on.threadId, on.taskId, 'deadline', job);
      } else next = Math.min(next, due);
      if (!this.#tasks.get(on.taskId)?.lane) youngest = Math.min(youngest, on.startedAt + this.#s.laneAfterMs);
    }
    if (this.#s.lane && this.#queue.first('interactive') !== undefined) {
      const lane = this.#laneTask?.jobs[0];
      const began = lane !== undefined ? this.flags.firstStarted(lane.slot) : 0;
      if (lane !== undefined && began > 0 && this.#allRegularLong(now)) {
        if (now - began >= this.#s.laneYieldMs) this.stop(lane, 'refuse');
        else next = Math.min(next, began + this.#s.laneYieldMs);
      }
      next = Math.min(next, youngest > now ? youngest : now + this.#s.laneYieldMs);
    }
    // a task whose worker has not begun its deal yet (a worker still starting): looked at again once its allowance could have run
    for (const task of this.#tasks.values()) for (const job of task.jobs) next = Math.min(next, now + job.allowanceMs() + this.#s.stopGraceMs);
    next = Math.min(next, this.#helpers.sweep(now));
    this.#dispatch();
    if (next !== Infinity && this.#inFlight.size > 0) this.#armSweep(next);
  }

  // ------------------------------------------------------------ numbers and closing

  /** Jobs accepted and not settled. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Numbers for `/healthz` and the metrics: a share of a shared run counts
   * as one unit like a single solve; a unit is running once its worker has
   * begun it, else queued.
   */
  counts(): { threads: number; running: number; queued: number; completed: number; recycled: number; inFlight: number } {
    let running = 0;
    let queued = 0;
    for (const job of this.#inFlight) {
      if (job.state === 'waiting') queued++;
      else if (job.tasks === 0) continue; // its own search is over; it waits for its helper passes, which count
      else if (job.spec.shared) running += job.tasks;
      // a lone job is running once handed to a worker; a job of a group once its worker began it
      else if (!job.grouped || this.flags.claimed(job.slot, job.spec.count) > 0) running++;
      else queued++;
    }
    return { threads: this.#piscina.threads.length, running, queued, completed: this.#completed, recycled: this.#recycled, inFlight: running + queued };
  }

  /** Waiting jobs of `cls` (the batch schedulers' view). */
  waiting(cls?: JobClass): number {
    return this.#queue.size(cls);
  }

  get closing(): boolean {
    return this.#closing;
  }

  #checkIdle(): void {
    if (this.#inFlight.size !== 0) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    this.#sweepAt = Infinity;
    for (const wake of this.#idleWaiters) wake();
  }

  /** Resolves true once no job is in flight, false after `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.#idleWaiters.delete(wake);
        resolve(idle);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#idleWaiters.add(wake);
    });
  }

  /** Refuses new jobs, answers the waiting ones `cancelled`, stops the running ones, and closes the workers. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const job of this.#queue.drainAll()) {
      job.why = 'close';
      if (job.tasks === 0) this.#finish(job, job.result());
    }
    // jobs no worker has begun first: one behind a running one in its task then never begins
    const jobs = [...this.#inFlight];
    for (const job of jobs) if (this.flags.claimed(job.slot, job.spec.count) === 0) this.stop(job, 'close');
    for (const job of jobs) this.stop(job, 'close');
    await this.#piscina.close();
  }
}
