/**
 * The `redis` batch backend, worker side: `BatchConsumer`, the consumer of
 * the chunk-job queue (a BullMQ `Worker`; keys.ts `ChunkJob`: a batch and a
 * range of its deal indices), which runs the jobs on this process's solver
 * pool. A batch worker process (`npm run worker`,
 * server/batch-worker-main.ts) runs one; any number may run, on any machine
 * that reaches Redis.
 *
 * One job, one pool task at a time; `concurrency` jobs at once (default: one
 * per pool thread), so a hard deal holds one thread, never the others. A
 * task is as many of the job's deals as fit in `chunkMs` by the batch's
 * running mean time a deal, as the embedded scheduler hands them
 * (server/batches/chunks.ts: one until a deal is timed; the workers deal
 * them, `pool.solveBatch`, and every free worker claims them one at a
 * time): the pool's cost a task is paid once for several quick deals. A task of several deals that fails as a whole (its worker lost)
 * has each of its deals solved again alone.
 *
 * Exactly once although BullMQ delivers at least once: at the start of a
 * job the deals that already have a result are skipped (a job run again
 * after its worker died redoes only the deals that were lost), and results
 * are stored by the `RECORD` script, which refuses a second result for a
 * deal and moves the counters only for the results it stored.
 *
 * Results are buffered and written in one `RECORD` call per batch every
 * `flushMs` or `flushMax` results, and always before the job completes:
 * a job is complete only once every one of its deals is stored.
 *
 * A job of a batch that keeps exceptions only (census.ts) is one unit:
 * its deals are solved a sub-range a task (`RangeSolver`, range-solver.ts:
 * the same as the embedded scheduler's; the workers deal, solve and count
 * them), their summaries merged here, and
 * the job's summary and exceptions written in one `RECORD_RANGE` call,
 * which counts a job only once (its bit in the batch's `jobs` bitmap). A
 * job run again after its worker died is redone whole, unless its bit is
 * set (then it is skipped). Such a batch has at most `window` jobs in the
 * queue: the worker that ends job k adds job k + window.
 *
 * Cancel reaches every worker three ways: the `control` channel (the deals
 * of that batch running here are stopped at once through the pool's stop
 * flags), the answer of `RECORD` (a batch no longer running), and the status
 * read at the start of every job.
 *
 * Drain (`drain`, on SIGTERM): no new job starts; the deals running may
 * finish for `drainMs` and are stored, then the rest are stopped; each job
 * with deals left is handed back to the queue (`moveToWait`), where another
 * worker takes it at once. A worker killed outright (SIGKILL, a lost
 * machine) leaves its jobs to BullMQ's stalled-job check: their lock runs
 * out after `lockMs`, and another worker runs them again.
 */
import { hostname } from 'node:os';
import { Queue, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { SolverError } from '../../../client-sdk/core/errors.js';
import type { Logger } from '../../logger.js';
import type { SolveFn } from '../../pool.js';
import { DealTimes, solveIndices, takesChunks, type BatchPool } from '../chunks.js';
import { emptySummary, mergeSummary, summariseRange, summaryCount, summaryIncrements, type CensusSummary } from '../census.js';
import { DEFAULT_CHUNK_MS, failedResult, resultsMode, type BatchSpec, type ResultInput } from '../model.js';
import { answerResult, poolRangeSolver, type RangeSolver } from '../range-solver.js';
import { encodeResult, recordFields } from './codec.js';
import { CHUNK_JOB_OPTIONS, chunkJob, QUEUE_NAME, RATE_WINDOW_S, RedisKeys, type ChunkJob } from './keys.js';
import { RECORD, RECORD_RANGE } from './scripts.js';
import type { WorkerHeartbeat } from './backend.js';

/** Options of `BatchConsumer.start`. */
export interface BatchConsumerOptions {
  url: string;
  prefix: string;
  /** The pool's solve (`pool.solve` as batch work): stopped through its signal. */
  solve: SolveFn;
  /** `pool.solveBatch`: several deals as one shared run that the workers deal (chunks.ts `BatchPool`). */
  solveBatch?: BatchPool['solveBatch'];
  /** Several deals dealt here as one shared run, for a pool without `solveBatch` (tests). Absent with it: one deal a task. */
  solveManyPacked?: BatchPool['solveManyPacked'];
  /** `pool.solveCensus`: a census sub-range dealt and counted by the workers. */
  solveCensus?: BatchPool['solveCensus'];
  /** Solves a sub-range of a batch that keeps exceptions (range-solver.ts); default `poolRangeSolver` over the calls above. */
  solveRange?: RangeSolver;
  /** Worker time one task of several deals should take by the batch's mean time a deal, ms; default 100 (`DEFAULT_CHUNK_MS`). 0: one deal a task. */
  chunkMs?: number;
  /** Threads of the pool (reported in the heartbeat). */
  threads: number;
  /** Jobs at once; default `threads`. */
  concurrency?: number;
  /** BullMQ lock duration, ms; default 30,000. */
  lockMs?: number;
  /** BullMQ stalled-job check interval, ms; default 15,000. */
  stalledIntervalMs?: number;
  /** Name in heartbeats, metrics and BullMQ; default `hostname:pid`. */
  name?: string;
  /** Buffered results are written at least this often, ms; default 200. */
  flushMs?: number;
  /** ... or as soon as this many are buffered; default 100. */
  flushMax?: number;
  /** Heartbeat period (the API's `/metrics` per worker), ms; default 2000. */
  heartbeatMs?: number;
  log?: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
}

/** Numbers of this worker (its `/metrics` and heartbeat). */
export interface BatchConsumerStats {
  jobsInFlight: number;
  dealsInFlight: number;
  dealsTotal: number;
  jobsTotal: number;
  jobsHandedBack: number;
  dealsPerSecond: number;
  /** Results written by this worker that another copy of the job had stored first. */
  duplicatesRefused: number;
}

interface Pending {
  results: ResultInput[];
  waiters: { resolve: (running: boolean) => void; reject: (err: unknown) => void }[];
}

/** How a job ended. */
type JobEnd = 'completed' | 'cancelled' | 'handed_back';

/** What a worker needs of a running batch: its spec and how its jobs are cut (the batch hash's fields). */
interface BatchInfo {
  spec: BatchSpec;
  total: number;
  chunk: number;
  chunks: number;
  window: number;
}

/** A job stalled this many times (its workers died) fails; its deals are then stored as errors. */
const MAX_STALLED_COUNT = 10;
/** Batches remembered as cancelled. */
const CANCELLED_MEMORY = 10_000;

/** The consumer of the chunk-job queue (this file's header says how it runs, stores and stops). */
export class BatchConsumer {
  readonly name: string;
  readonly keys: RedisKeys;
  readonly #redis: Redis;
  readonly #sub: Redis;
  /** BullMQ's connection: ours to close (BullMQ leaves a connection it was given open). */
  readonly #bullConnection: Redis;
  readonly #worker: Worker<ChunkJob>;
  readonly #pool: BatchPool;
  readonly #chunkMs: number;
  /** Running mean of the engine's time a deal, by batch. */
  readonly #dealTimes = new DealTimes();
  readonly #threads: number;
  readonly #concurrency: number;
  readonly #flushMs: number;
  readonly #flushMax: number;
  readonly #log: BatchConsumerOptions['log'];
  readonly #specs = new Map<string, BatchInfo>();
  /** Where a job of a batch that keeps exceptions adds the job one window on. */
  readonly #queue: Queue<ChunkJob>;
  readonly #solveRange: RangeSolver;
  readonly #cancelled = new Set<string>();
  /** Stop controllers of the deals running here, by batch. */
  readonly #running = new Map<string, Set<AbortController>>();
  readonly #pending = new Map<string, Pending>();
  #pendingCount = 0;
  #flushTimer: NodeJS.Timeout | undefined;
  readonly #heartbeatTimer: NodeJS.Timeout;
  /** Deals finished in each of the last seconds (ring). */
  readonly #perSecond = new Uint32Array(RATE_WINDOW_S + 1);
  #perSecondAt = 0;
  readonly #startedAt = Date.now();
  #draining = false;
  #stats = { jobsInFlight: 0, dealsInFlight: 0, dealsTotal: 0, jobsTotal: 0, jobsHandedBack: 0, duplicatesRefused: 0 };

  private constructor(options: BatchConsumerOptions, redis: Redis, sub: Redis) {
    this.name = options.name ?? `${hostname()}:${process.pid}`;
    this.keys = new RedisKeys(options.prefix);
    this.#redis = redis;
    this.#sub = sub;
    const { solve, solveBatch, solveManyPacked, solveCensus } = options;
    this.#pool = { solve, ...(solveBatch ? { solveBatch } : {}), ...(solveManyPacked ? { solveManyPacked } : {}), ...(solveCensus ? { solveCensus } : {}) };
    this.#chunkMs = takesChunks(this.#pool) || options.solveRange ? Math.max(0, options.chunkMs ?? DEFAULT_CHUNK_MS) : 0;
    this.#solveRange = options.solveRange ?? poolRangeSolver(this.#pool);
    this.#queue = new Queue<ChunkJob>(QUEUE_NAME, { connection: redis, prefix: this.keys.bull, defaultJobOptions: CHUNK_JOB_OPTIONS });
    this.#queue.on('error', (err) => this.#log?.warn({ err }, 'batch worker: queue error'));
    this.#threads = options.threads;
    this.#concurrency = options.concurrency ?? options.threads;
    this.#flushMs = options.flushMs ?? 200;
    this.#flushMax = options.flushMax ?? 100;
    this.#log = options.log;
    sub.on('message', (_channel: string, message: string) => {
      const m = /^cancel (.+)$/.exec(message);
      if (m) this.#cancel(m[1]);
    });
    this.#bullConnection = new Redis(options.url, { maxRetriesPerRequest: null });
    this.#bullConnection.on('error', (err) => this.#log?.warn({ err: err.message }, 'redis connection error'));
    this.#worker = new Worker<ChunkJob>(QUEUE_NAME, (job, token) => this.#process(job, token), {
      connection: this.#bullConnection,
      prefix: this.keys.bull,
      name: this.name,
      concurrency: this.#concurrency,
      lockDuration: options.lockMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 15_000,
      maxStalledCount: MAX_STALLED_COUNT,
    });
    this.#worker.on('error', (err) => this.#log?.error({ err }, 'batch worker: queue error'));
    this.#worker.on('failed', (job, err) => void this.#onFailed(job, err));
    this.#worker.on('stalled', (id) => this.#log?.warn({ job: id }, 'batch worker: a stalled job (its worker died?) goes back to the queue'));
    this.#heartbeatTimer = setInterval(() => void this.#heartbeat(), options.heartbeatMs ?? 2000);
    this.#heartbeatTimer.unref();
  }

  /**
   * Connects, subscribes to the control channel, and starts taking jobs.
   * @throws Error when Redis cannot be reached.
   */
  static async start(options: BatchConsumerOptions): Promise<BatchConsumer> {
    const redis = new Redis(options.url, { maxRetriesPerRequest: null, lazyConnect: true });
    const sub = new Redis(options.url, { maxRetriesPerRequest: null, lazyConnect: true });
    redis.on('error', (err) => options.log?.warn({ err: err.message }, 'redis connection error'));
    sub.on('error', (err) => options.log?.warn({ err: err.message }, 'redis subscriber connection error'));
    try {
      await redis.connect();
      await sub.connect();
      await sub.subscribe(new RedisKeys(options.prefix).control);
    } catch (err) {
      redis.disconnect();
      sub.disconnect();
      throw new Error(`cannot reach Redis: ${err instanceof Error ? err.message : String(err)}`);
    }
    const consumer = new BatchConsumer(options, redis, sub);
    await consumer.#worker.waitUntilReady();
    await consumer.#heartbeat();
    return consumer;
  }

  /** This worker's numbers now. */
  stats(): BatchConsumerStats {
    return { ...this.#stats, dealsPerSecond: this.#rate() };
  }

  /**
   * Stops taking jobs; running deals may finish (and are stored) for
   * `drainMs`, then the rest are stopped; the jobs with deals left go back to
   * the queue. Then closes the connections. The pool is the caller's.
   */
  async drain(drainMs: number): Promise<void> {
    this.#draining = true;
    const closed = this.#worker.close();
    const timer = setTimeout(() => {
      for (const set of this.#running.values()) for (const c of set) c.abort();
    }, drainMs);
    try {
      await closed;
    } finally {
      clearTimeout(timer);
    }
    await this.#close();
  }

  /** Closes at once: running jobs are abandoned (BullMQ gives them to another worker after their lock runs out). */
  async close(): Promise<void> {
    this.#draining = true;
    for (const set of this.#running.values()) for (const c of set) c.abort();
    await this.#worker.close(true);
    await this.#close();
  }

  async #close(): Promise<void> {
    clearInterval(this.#heartbeatTimer);
    clearTimeout(this.#flushTimer);
    await this.#flush().catch(() => undefined);
    await this.#redis.hdel(this.keys.workers, this.name).catch(() => undefined);
    await this.#queue.close().catch(() => undefined);
    await Promise.allSettled([this.#redis.quit(), this.#sub.quit(), this.#bullConnection.quit()]);
  }

  // ---------------------------------------------------------- jobs

  async #process(job: Job<ChunkJob>, token: string | undefined): Promise<JobEnd> {
    this.#stats.jobsInFlight++;
    try {
      const end = await this.#run(job);
      if (end === 'handed_back') {
        // Another worker takes the rest at once; the deals stored stay stored.
        this.#stats.jobsHandedBack++;
        await job.moveToWait(token);
        throw new WaitingError();
      }
      this.#stats.jobsTotal++;
      return end;
    } finally {
      this.#stats.jobsInFlight--;
    }
  }

  async #run(job: Job<ChunkJob>): Promise<JobEnd> {
    const { b: id, f: from, t: to } = job.data;
    if (this.#cancelled.has(id)) return 'cancelled';
    if (this.#draining) return 'handed_back';
    const info = await this.#batch(id);
    if (!info) return 'cancelled';
    if (resultsMode(info.spec) === 'exceptions') return this.#runRange(job.data, info);
    const { spec } = info;

    // The deals of this chunk that already have a result (a job run again).
    const indices = Array.from({ length: to - from }, (_, i) => from + i);
    const seqs = await this.#redis.hmget(this.keys.index(id), ...indices.map(String));
    const todo = indices.filter((_, i) => seqs[i] === null);

    const writes: Promise<boolean>[] = [];
    let end: JobEnd = 'completed';
    for (let next = 0; next < todo.length && end === 'completed'; ) {
      if (this.#cancelled.has(id)) {
        end = 'cancelled';
        break;
      }
      if (this.#draining) {
        end = 'handed_back';
        break;
      }
      const group = todo.slice(next, next + this.#dealTimes.chunkSize(id, this.#chunkMs));
      next += group.length;
      const results = await this.#solveGroup(id, spec, group);
      for (const result of results) {
        if (result === 'stopped') {
          end = this.#cancelled.has(id) ? 'cancelled' : 'handed_back';
          continue;
        }
        this.#timed(id, result);
        writes.push(this.#add(id, result));
      }
    }
    // Complete only once every result of the job is stored.
    this.#flushSoon(0);
    const running = await Promise.all(writes);
    if (running.includes(false)) return 'cancelled';
    return end;
  }

  /**
   * A job of a batch that keeps exceptions (see the file comment): solved
   * a sub-range at a time, summarised here, written in one `RECORD_RANGE`;
   * skipped when its bit says it was counted already. The job one window
   * on is added in either case (before the job completes, so a worker that
   * dies first leaves that to the job's next run).
   */
  async #runRange(job: ChunkJob, info: BatchInfo): Promise<JobEnd> {
    const { b: id, f: from, t: to } = job;
    const k = Math.floor(from / info.chunk);
    if ((await this.#redis.getbit(this.keys.jobs(id), k)) === 1) {
      await this.#addNextJob(id, k, info);
      return 'completed';
    }
    const summary = emptySummary();
    const kept: ResultInput[] = [];
    /** Single deals to solve alone (their sub-range failed as a whole). */
    const alone: number[] = [];
    for (let next = from; next < to || alone.length > 0; ) {
      if (this.#cancelled.has(id)) return 'cancelled';
      if (this.#draining) return 'handed_back';
      const single = alone.shift();
      const lo = single ?? next;
      const hi = single !== undefined ? single + 1 : Math.min(to, next + this.#dealTimes.chunkSize(id, this.#chunkMs));
      if (single === undefined) next = hi;
      const answer = await this.#solveRangePart(id, info.spec, lo, hi);
      if (answer.kind === 'failed') {
        if (hi - lo > 1) for (let index = lo; index < hi; index++) alone.push(index);
        else this.#merge(summary, kept, summariseRange([failedResult(lo, answer.error)], 'exceptions'));
        continue;
      }
      if (answer.kind !== 'done') return this.#cancelled.has(id) ? 'cancelled' : 'handed_back';
      this.#merge(summary, kept, answer);
      const n = summaryCount(answer.summary);
      if (n > 0) this.#dealTimes.observe(id, answer.summary.sumElapsedUs / 1000 / n, n);
    }
    const counted = await this.#recordRange(id, k, to - from, summary, kept);
    if (counted < 0) {
      this.#cancel(id);
      return 'cancelled';
    }
    if (counted === 0) this.#stats.duplicatesRefused += to - from;
    await this.#addNextJob(id, k, info);
    return 'completed';
  }

  #merge(summary: CensusSummary, kept: ResultInput[], part: { summary: CensusSummary; kept: ResultInput[] }): void {
    mergeSummary(summary, part.summary);
    for (const r of part.kept) kept.push(r);
    this.#countDeals(summaryCount(part.summary));
  }

  /** Solves the deals [lo, hi) of batch `id` as one task (`RangeSolver`), stopped by a cancel of the batch. */
  async #solveRangePart(id: string, spec: BatchSpec, lo: number, hi: number) {
    const controller = new AbortController();
    let set = this.#running.get(id);
    if (!set) this.#running.set(id, (set = new Set()));
    set.add(controller);
    this.#stats.dealsInFlight += hi - lo;
    try {
      return await this.#solveRange({ spec, lo, hi, mode: 'exceptions' }, controller.signal);
    } finally {
      this.#stats.dealsInFlight -= hi - lo;
      set.delete(controller);
      if (set.size === 0) this.#running.delete(id);
    }
  }

  /** Counts job `k` of batch `id` (`deals` deals): 1 counted now, 0 counted before, -1 the batch is not running. */
  async #recordRange(id: string, k: number, deals: number, summary: CensusSummary, kept: readonly ResultInput[]): Promise<number> {
    const keys = this.keys;
    const increments = summaryIncrements(summary);
    const args: (string | number)[] = [keys.events, id, k, deals, summary.sumElapsedUs / 1000, increments.length / 2, ...increments];
    for (const r of kept) args.push(encodeResult(r));
    const [counted] = (await RECORD_RANGE.run(this.#redis, [keys.batch(id), keys.results(id), keys.running, keys.jobs(id), keys.ended], args)) as [number, number];
    return counted;
  }

  /** Adds job k + window of batch `id`, when there is one (adding a job that waits already adds nothing). */
  async #addNextJob(id: string, k: number, info: BatchInfo): Promise<void> {
    const next = k + info.window;
    if (next >= info.chunks) return;
    const job = chunkJob(id, next, info.chunk, info.total);
    await this.#queue.add(job.name, job.data, job.opts);
  }

  /** Updates batch `id`'s running mean time a deal with a decided deal's engine time. */
  #timed(id: string, result: ResultInput): void {
    if (result.error === undefined) this.#dealTimes.observe(id, result.elapsedMs);
  }

  /**
   * Solves the deals `indices` of one batch as one pool task (chunks.ts
   * `solveIndices`: the workers deal them), each entry 'stopped' when it
   * was stopped (cancel, drain; a stop skips the deals after the one it
   * ended) or refused (the pool closing) rather than decided. A task of
   * several deals that fails as a whole (a worker lost) has each deal
   * solved again alone, so that one bad deal cannot fail the others.
   */
  async #solveGroup(id: string, spec: BatchSpec, indices: number[]): Promise<(ResultInput | 'stopped')[]> {
    const controller = new AbortController();
    let set = this.#running.get(id);
    if (!set) this.#running.set(id, (set = new Set()));
    set.add(controller);
    this.#stats.dealsInFlight += indices.length;
    let answers: readonly unknown[] | undefined;
    try {
      answers = await solveIndices(this.#pool, spec, indices, controller.signal);
    } catch (err) {
      if (controller.signal.aborted || (err instanceof SolverError && err.code === 'overloaded')) return indices.map(() => 'stopped');
      // one deal alone: the task's error is its result
      if (indices.length === 1) answers = [err];
    } finally {
      this.#stats.dealsInFlight -= indices.length;
      set.delete(controller);
      if (set.size === 0) this.#running.delete(id);
    }
    if (answers === undefined) {
      // the task failed as a whole: each deal again, alone
      const alone: (ResultInput | 'stopped')[] = [];
      for (const index of indices) {
        const [result] = await this.#solveGroup(id, spec, [index]);
        alone.push(result);
        if (result === 'stopped') break;
      }
      return alone;
    }
    return indices.map((index, k) => {
      // a stopped solve is not a verdict on the deal; a refused one (the pool closing) has none yet
      const answer = answerResult(index, answers[k], controller.signal.aborted);
      return answer === 'overloaded' ? 'stopped' : answer;
    });
  }

  /** What this worker needs of a running batch (cached; its status read every time), or null when it is not running. */
  async #batch(id: string): Promise<BatchInfo | null> {
    const cached = this.#specs.get(id);
    if (cached) {
      const status = await this.#redis.hget(this.keys.batch(id), 'status');
      if (status === 'running') return cached;
    } else {
      const [status, text, total, chunk, chunks, window] = await this.#redis.hmget(this.keys.batch(id), 'status', 'spec', 'total', 'chunk', 'chunks', 'window');
      if (status === 'running' && text !== null) {
        const info: BatchInfo = { spec: JSON.parse(text) as BatchSpec, total: Number(total), chunk: Number(chunk), chunks: Number(chunks), window: Number(window ?? chunks) };
        if (this.#specs.size >= 256) this.#specs.delete(this.#specs.keys().next().value!);
        this.#specs.set(id, info);
        return info;
      }
    }
    this.#cancel(id);
    return null;
  }

  #cancel(id: string): void {
    if (!this.#cancelled.has(id)) {
      if (this.#cancelled.size >= CANCELLED_MEMORY) this.#cancelled.delete(this.#cancelled.values().next().value!);
      this.#cancelled.add(id);
    }
    this.#specs.delete(id);
    const set = this.#running.get(id);
    if (set) for (const c of set) c.abort();
  }

  /**
   * A job that failed for good (its attempts spent, or stalled too often):
   * its deals without a result are stored as `error` results, so that the
   * batch still ends and says what happened.
   */
  async #onFailed(job: Job<ChunkJob> | undefined, err: Error): Promise<void> {
    if (!job) return;
    try {
      if ((await job.getState()) !== 'failed') return; // it will be retried
      const { b: id, f: from, t: to } = job.data;
      this.#log?.error({ job: job.id, batch: id, err: err.message }, 'batch worker: a job failed for good; its deals are stored as errors');
      const info = await this.#batch(id);
      if (!info) return;
      const cause = new SolverError('internal_error', `the job of deals ${from}..${to - 1} failed: ${err.message}`);
      if (resultsMode(info.spec) === 'exceptions') {
        const k = Math.floor(from / info.chunk);
        const { summary, kept } = summariseRange(Array.from({ length: to - from }, (_, i) => failedResult(from + i, cause)), 'exceptions');
        await this.#recordRange(id, k, to - from, summary, kept);
        await this.#addNextJob(id, k, info);
        return;
      }
      const indices = Array.from({ length: to - from }, (_, i) => from + i);
      const seqs = await this.#redis.hmget(this.keys.index(id), ...indices.map(String));
      const writes = indices.filter((_, i) => seqs[i] === null).map((index) => this.#add(id, failedResult(index, cause)));
      this.#flushSoon(0);
      await Promise.all(writes);
    } catch (e) {
      this.#log?.error({ err: e }, 'batch worker: could not store the errors of a failed job');
    }
  }

  // ---------------------------------------------------------- writes

  /** Buffers a result; resolves once it is written: true, or false when the batch is no longer running. */
  #add(id: string, result: ResultInput): Promise<boolean> {
    this.#countDeals(1);
    let p = this.#pending.get(id);
    if (!p) this.#pending.set(id, (p = { results: [], waiters: [] }));
    p.results.push(result);
    this.#pendingCount++;
    const done = new Promise<boolean>((resolve, reject) => p.waiters.push({ resolve, reject }));
    this.#flushSoon(this.#pendingCount >= this.#flushMax ? 0 : this.#flushMs);
    return done;
  }

  #flushSoon(ms: number): void {
    if (this.#flushTimer !== undefined) {
      if (ms > 0) return;
      clearTimeout(this.#flushTimer);
    }
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      void this.#flush();
    }, ms);
  }

  /** Writes every buffered result, one `RECORD` call per batch. */
  async #flush(): Promise<void> {
    const batches = [...this.#pending];
    this.#pending.clear();
    this.#pendingCount = 0;
    await Promise.all(
      batches.map(async ([id, p]) => {
        try {
          const args: (string | number)[] = [this.keys.events, id, p.results.length];
          for (const r of p.results) args.push(...recordFields(r));
          const k = this.keys;
          const [stored] = (await RECORD.run(this.#redis, [k.batch(id), k.index(id), k.results(id), k.running, k.ended], args)) as [number, number];
          if (stored < 0) this.#cancel(id);
          else this.#stats.duplicatesRefused += p.results.length - stored;
          for (const w of p.waiters) w.resolve(stored >= 0);
        } catch (err) {
          this.#log?.error({ err, batch: id }, 'batch worker: could not store results; the job will be retried');
          for (const w of p.waiters) w.reject(err);
        }
      }),
    );
  }

  // ---------------------------------------------------------- numbers

  #countDeals(n: number): void {
    this.#stats.dealsTotal += n;
    this.#advance();
    this.#perSecond[this.#perSecondAt % this.#perSecond.length] += n;
  }

  #advance(): void {
    const now = Math.floor(Date.now() / 1000);
    if (this.#perSecondAt === 0) this.#perSecondAt = now;
    for (let s = this.#perSecondAt + 1; s <= now && s - this.#perSecondAt <= this.#perSecond.length; s++) this.#perSecond[s % this.#perSecond.length] = 0;
    if (now - this.#perSecondAt > this.#perSecond.length) this.#perSecond.fill(0);
    this.#perSecondAt = now;
  }

  /** Deals finished per second over the last `RATE_WINDOW_S` seconds (less since start). */
  #rate(): number {
    this.#advance();
    const now = Date.now();
    const span = Math.min(RATE_WINDOW_S * 1000 + (now % 1000), now - this.#startedAt) / 1000;
    let sum = 0;
    for (const n of this.#perSecond) sum += n;
    return span > 0 ? sum / span : 0;
  }

  async #heartbeat(): Promise<void> {
    const s = this.stats();
    const hb: WorkerHeartbeat = {
      name: this.name,
      host: hostname(),
      pid: process.pid,
      threads: this.#threads,
      concurrency: this.#concurrency,
      jobsInFlight: s.jobsInFlight,
      dealsInFlight: s.dealsInFlight,
      dealsTotal: s.dealsTotal,
      jobsTotal: s.jobsTotal,
      dealsPerSecond: Math.round(s.dealsPerSecond * 100) / 100,
      at: Date.now(),
    };
    await this.#redis.hset(this.keys.workers, this.name, JSON.stringify(hb)).catch((err: unknown) => this.#log?.warn({ err }, 'batch worker: heartbeat failed'));
  }
}
