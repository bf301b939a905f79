/**
 * The `redis` batch backend, API side: the batch routes' `BatchBackend` over
 * Redis and BullMQ. It keeps no batch state of its own (only caches of the
 * immutable specs), so any number of API servers behind a load balancer
 * serve the same batches: one creates a batch, another streams its results,
 * a third cancels it.
 *
 * - `create` validates the request exactly as the embedded mode does
 *   (`planBatch`), writes the batch hash (keys.ts), and enqueues one BullMQ
 *   job per `chunkDeals` deals, in pages. The job id is the batch id and the
 *   chunk number, so adding a page twice adds nothing; `enqueued` counts the
 *   pages done, and a server that dies half way leaves the rest to the
 *   sweep of any API server (the `enq` lock expires, the next sweep goes on).
 *   A chunk's priority is its number: batches share the workers chunk by
 *   chunk (a new batch's first chunks go before an old batch's later ones),
 *   as the embedded scheduler shares the pool round robin.
 * - Results are stored by the workers (consumer.ts, `RECORD`); the backend
 *   reads them by `seq` (`PAGE`) and wakes result streams on the `events`
 *   channel (and every `pollMs`, in case a message was lost).
 * - `cancel` flips the status in Redis (`CANCEL`) and publishes on the
 *   `control` channel; every worker stops that batch's deals.
 *
 * A Redis that cannot be reached answers 503 `overloaded` (retry later).
 */
import { randomUUID } from 'node:crypto';
import { Queue, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { BatchRequest, BatchStatus } from '../../../client-sdk/api/batch-schemas.js';
import { SolverError } from '../../../client-sdk/core/errors.js';
import { DEFAULT_LIMITS_CONFIG, type LimitsConfig } from '../../limits.js';
import type { Logger } from '../../logger.js';
import type { BatchBackend, BatchProgressState, BatchResultsPage } from '../backend.js';
import { planBatch } from '../positions.js';
import { DEFAULT_MAX_BATCH_DEALS, toStatus, toWireResult, type BatchSpec, type BatchState } from '../model.js';
import { batchFields, decodeResult, pairs, toRecord } from './codec.js';
import { jobId, QUEUE_NAME, RATE_WINDOW_S, RedisKeys, type ChunkJob } from './keys.js';
import { CANCEL, PAGE, STATUS } from './scripts.js';
import { BatchListeners } from '../listeners.js';

/** Jobs added per `addBulk` call. */
const ENQUEUE_PAGE = 1000;
/** Lifetime of the enqueuing lock, renewed after every page, ms. */
const ENQUEUE_LOCK_MS = 30_000;
/** BullMQ's largest priority. */
const MAX_PRIORITY = 2_097_152;
/** A worker heartbeat older than this is a worker gone, ms. */
export const WORKER_STALE_MS = 30_000;
/** Specs kept in memory (they never change; a boards batch's may be large). */
const SPEC_CACHE = 256;

/**
 * What every chunk job gets: retried on failure (a worker's Redis write that
 * failed) with backoff; removed once completed, so that Redis holds the
 * batches and their results, not a million finished jobs.
 */
export const CHUNK_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: 1000,
};

/** Options of `RedisBatchBackend.open`. */
export interface RedisBackendOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Key prefix (keys.ts). */
  prefix: string;
  /** Deals per BullMQ job. */
  chunkDeals: number;
  /** Budgets' defaults and caps (as for `POST /v1/solve`). */
  limits?: LimitsConfig;
  /** Largest batch accepted; default 1,000,000 deals. */
  maxDeals?: number;
  /** How often result streams look again without a notification, ms; default 2000. */
  pollMs?: number;
  /** How often to look for batches whose jobs are not all enqueued, ms; default 30,000. */
  sweepMs?: number;
  log?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** A worker's heartbeat (consumer.ts), as `/metrics` shows it. */
export interface WorkerHeartbeat {
  name: string;
  host: string;
  pid: number;
  threads: number;
  concurrency: number;
  jobsInFlight: number;
  dealsInFlight: number;
  dealsTotal: number;
  jobsTotal: number;
  dealsPerSecond: number;
  /** `Date.now()` of the worker when it wrote this. */
  at: number;
}

/** The batch backend over Redis; see the module comment. */
export class RedisBatchBackend implements BatchBackend {
  readonly keys: RedisKeys;
  readonly redis: Redis;
  readonly queue: Queue<ChunkJob>;
  readonly #sub: Redis;
  readonly #chunk: number;
  readonly #limits: LimitsConfig;
  readonly #maxDeals: number;
  readonly #log: Pick<Logger, 'info' | 'warn' | 'error'> | undefined;
  readonly #specs = new Map<string, BatchSpec>();
  readonly #listeners = new BatchListeners();
  readonly #token = randomUUID();
  readonly #pollTimer: NodeJS.Timeout;
  readonly #sweepTimer: NodeJS.Timeout;
  #sweeping: Promise<void> | undefined;
  #closed = false;

  private constructor(options: RedisBackendOptions, redis: Redis, sub: Redis) {
    this.keys = new RedisKeys(options.prefix);
    this.redis = redis;
    this.#sub = sub;
    this.#chunk = options.chunkDeals;
    this.#limits = options.limits ?? DEFAULT_LIMITS_CONFIG;
    this.#maxDeals = options.maxDeals ?? DEFAULT_MAX_BATCH_DEALS;
    this.#log = options.log;
    this.queue = new Queue<ChunkJob>(QUEUE_NAME, {
      connection: redis,
      prefix: this.keys.bull,
      defaultJobOptions: CHUNK_JOB_OPTIONS,
      streams: { events: { maxLen: 1000 } },
    });
    this.queue.on('error', (err) => this.#log?.error({ err }, 'batch queue (redis) error'));
    sub.on('message', (_channel: string, id: string) => this.#listeners.notify(id));
    this.#pollTimer = setInterval(() => {
      this.#listeners.notifyAll();
    }, options.pollMs ?? 2000);
    this.#pollTimer.unref();
    this.#sweepTimer = setInterval(() => void this.sweep(), options.sweepMs ?? 30_000);
    this.#sweepTimer.unref();
  }

  /**
   * Connects to Redis (commands fail fast when it is unreachable, rather than
   * queueing), subscribes to the events channel, and finishes enqueuing any
   * batch an API server left half enqueued.
   * @throws Error when Redis cannot be reached.
   */
  static async open(options: RedisBackendOptions): Promise<RedisBatchBackend> {
    const clientOptions = { maxRetriesPerRequest: 1, connectTimeout: 5000, lazyConnect: true };
    const redis = new Redis(options.url, clientOptions);
    const sub = new Redis(options.url, { ...clientOptions, maxRetriesPerRequest: null });
    redis.on('error', (err) => options.log?.warn({ err: err.message }, 'redis connection error'));
    sub.on('error', (err) => options.log?.warn({ err: err.message }, 'redis subscriber connection error'));
    try {
      await redis.connect();
      await sub.connect();
      await sub.subscribe(new RedisKeys(options.prefix).events);
    } catch (err) {
      redis.disconnect();
      sub.disconnect();
      throw new Error(`cannot reach Redis at ${redactUrl(options.url)}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const backend = new RedisBatchBackend(options, redis, sub);
    await backend.sweep();
    return backend;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async create(req: BatchRequest): Promise<BatchStatus> {
    if (this.#closed) throw new SolverError('overloaded', 'the service is shutting down');
    const { spec, total } = planBatch(req, this.#limits, this.#maxDeals);
    const id = randomUUID();
    const chunk = this.#chunk;
    await this.#guard(async () => {
      const k = this.keys;
      await this.redis
        .multi()
        .hset(k.batch(id), batchFields(id, spec, total, chunk, Date.now()))
        .sadd(k.running, id)
        .set(k.enqueueLock(id), this.#token, 'PX', ENQUEUE_LOCK_MS)
        .exec();
      this.#cacheSpec(id, spec);
      await this.#enqueue(id, total, chunk, 0);
    });
    return (await this.status(id))!;
  }

  async status(id: string): Promise<BatchStatus | undefined> {
    const reply = (await this.#guard(() => STATUS.run(this.redis, [this.keys.batch(id)], []))) as
      | [string[], string, string, (string | null)[]]
      | null;
    if (!reply) return undefined;
    const [flat, sec, usec, counts] = reply;
    const h = pairs(flat);
    const record = toRecord(h, this.#specs.get(id));
    this.#cacheSpec(id, record.spec);
    let live: { dealsPerSecond: number; etaSeconds: number | null } | null = null;
    if (record.status === 'running') {
      const now = Number(sec) * 1000 + Number(usec) / 1000;
      const since = Math.max(record.createdAt, (Number(sec) - RATE_WINDOW_S) * 1000);
      const span = (now - since) / 1000;
      const recent = counts.reduce((sum, c) => sum + Number(c ?? 0), 0);
      const rate = span > 0 ? recent / span : 0;
      live = { dealsPerSecond: rate, etaSeconds: rate > 0 ? (record.total - record.done) / rate : null };
    }
    return toStatus(record, live);
  }

  async cancel(id: string): Promise<BatchStatus | undefined> {
    const k = this.keys;
    await this.#guard(() => CANCEL.run(this.redis, [k.batch(id), k.running], [k.events, k.control, id]));
    return this.status(id);
  }

  async state(id: string): Promise<BatchProgressState | undefined> {
    const [status, done, total] = await this.#guard(() => this.redis.hmget(this.keys.batch(id), 'status', 'done', 'total'));
    return status === null ? undefined : { status: status as BatchState, done: Number(done), total: Number(total) };
  }

  async page(id: string, after: number, limit: number, withMoves: boolean): Promise<BatchResultsPage | undefined> {
    const reply = (await this.#guard(() => PAGE.run(this.redis, [this.keys.batch(id), this.keys.results(id)], [after, limit]))) as
      | [string, string, string, (string | null)[]]
      | null;
    if (!reply) return undefined;
    const [status, done, total, rows] = reply;
    const record = { spec: await this.#spec(id) } as Parameters<typeof toWireResult>[0];
    const results = [];
    for (let i = 0; i < rows.length; i++) {
      const text = rows[i];
      if (text !== null) results.push(toWireResult(record, decodeResult(after + 1 + i, text), withMoves));
    }
    return { status: status as BatchState, done: Number(done), total: Number(total), results };
  }

  subscribe(id: string, listener: () => void): () => void {
    return this.#listeners.subscribe(id, listener);
  }

  /** Jobs in the queue by state (BullMQ's counts): `/metrics`' queue depth. */
  async queueCounts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed');
  }

  /** The heartbeats of the live workers; drops those older than `WORKER_STALE_MS`. */
  async workers(now = Date.now()): Promise<WorkerHeartbeat[]> {
    const all = await this.redis.hgetall(this.keys.workers);
    const live: WorkerHeartbeat[] = [];
    const stale: string[] = [];
    for (const [name, text] of Object.entries(all)) {
      try {
        const hb = JSON.parse(text) as WorkerHeartbeat;
        if (now - hb.at > WORKER_STALE_MS) stale.push(name);
        else live.push(hb);
      } catch {
        stale.push(name);
      }
    }
    if (stale.length > 0) await this.redis.hdel(this.keys.workers, ...stale);
    return live.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Finishes enqueuing the running batches whose jobs are not all in the
   * queue and whose enqueuing lock has expired (its API server died while
   * adding them). Runs at open and every `sweepMs`; errors are logged.
   */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    if (this.#closed) return;
    try {
      const ids = await this.redis.smembers(this.keys.running);
      for (const id of ids) {
        const [total, chunk, chunks, enqueued] = (await this.redis.hmget(this.keys.batch(id), 'total', 'chunk', 'chunks', 'enqueued')).map(Number);
        if (!(enqueued < chunks)) continue;
        const locked = await this.redis.set(this.keys.enqueueLock(id), this.#token, 'PX', ENQUEUE_LOCK_MS, 'NX');
        if (locked !== 'OK') continue;
        this.#log?.warn({ batch: id, enqueued, chunks }, 'batch: enqueuing the jobs another API server left');
        await this.#enqueue(id, total, chunk, enqueued);
      }
    } catch (err) {
      this.#log?.error({ err }, 'batch sweep failed; retrying later');
    }
  }

  /** Adds the jobs of chunks `from`.. of a batch, a page at a time, holding the enqueuing lock. */
  async #enqueue(id: string, total: number, chunk: number, from: number): Promise<void> {
    const chunks = Math.ceil(total / chunk);
    for (let k = from; k < chunks; k += ENQUEUE_PAGE) {
      const end = Math.min(chunks, k + ENQUEUE_PAGE);
      const jobs = [];
      for (let j = k; j < end; j++) {
        jobs.push({
          name: 'deals',
          data: { b: id, f: j * chunk, t: Math.min(total, (j + 1) * chunk) },
          opts: { jobId: jobId(id, j), priority: Math.min(j + 1, MAX_PRIORITY) },
        });
      }
      await this.queue.addBulk(jobs);
      await this.redis.multi().hset(this.keys.batch(id), 'enqueued', end).pexpire(this.keys.enqueueLock(id), ENQUEUE_LOCK_MS).exec();
    }
    await this.redis.del(this.keys.enqueueLock(id));
  }

  async #spec(id: string): Promise<BatchSpec> {
    const cached = this.#specs.get(id);
    if (cached) return cached;
    const text = await this.#guard(() => this.redis.hget(this.keys.batch(id), 'spec'));
    if (text === null) throw new SolverError('not_found', `no batch "${id}"`, { path: 'id' });
    const spec = JSON.parse(text) as BatchSpec;
    this.#cacheSpec(id, spec);
    return spec;
  }

  #cacheSpec(id: string, spec: BatchSpec): void {
    if (this.#specs.has(id)) return;
    if (this.#specs.size >= SPEC_CACHE) this.#specs.delete(this.#specs.keys().next().value!);
    this.#specs.set(id, spec);
  }

  /** Runs a Redis operation; a failure of Redis is a 503 for the client (and a log line). */
  async #guard<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof SolverError) throw err;
      this.#log?.error({ err }, 'batch backend: redis operation failed');
      throw new SolverError('overloaded', 'the batch queue (Redis) cannot be reached; retry later');
    }
  }

  /** Ends the result streams (clients resume elsewhere), stops the timers, closes the connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#pollTimer);
    clearInterval(this.#sweepTimer);
    this.#listeners.notifyAll();
    await this.#sweeping;
    await this.queue.close().catch(() => undefined);
    await Promise.allSettled([this.redis.quit(), this.#sub.quit()]);
  }
}

/** A Redis URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}
