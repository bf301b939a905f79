/**
 * The `redis` batch backend, API side: the batch routes' `BatchBackend` over
 * Redis and BullMQ. It keeps no batch state of its own (only caches of the
 * immutable specs), so any number of API servers behind a load balancer
 * serve the same batches: one creates a batch, another streams its results,
 * a third cancels it.
 *
 * - `create` validates the request exactly as the embedded mode does
 *   (`planBatch`), checks the quotas, writes the batch hash (keys.ts), and
 *   enqueues the first `window` of its BullMQ jobs, in pages: a job is a
 *   sub-range of `chunkDeals` deals (a batch that keeps every result: all
 *   its jobs at once) or `censusChunkDeals` (one that keeps exceptions: at
 *   most `censusWindow` jobs in the queue at once, each worker adding job
 *   k + window when it ends job k, so a batch of billions of deals holds a
 *   thousand jobs in Redis, not a million). The job id is the batch id and
 *   the chunk number, so adding a page twice adds nothing; `enqueued`
 *   counts the pages done, and a server that dies half way leaves the rest
 *   of the first window to the sweep of any API server (the `enq` lock
 *   expires, the next sweep goes on). A chunk's priority is its number:
 *   batches share the workers chunk by chunk (a new batch's first chunks
 *   go before an old batch's later ones), as the embedded scheduler shares
 *   the pool round robin.
 * - Results are stored by the workers (consumer.ts, `RECORD`; a job of a
 *   batch that keeps exceptions in one `RECORD_RANGE`); the backend reads
 *   them by `seq` (`PAGE`) and wakes result streams on the `events`
 *   channel (and every `pollMs`, in case a message was lost).
 * - Quotas count the deals queued in the running batches (one read a
 *   running batch), so two API servers creating batches at the same moment
 *   may both pass a quota that only one of them should have.
 * - `purge` deletes an ended batch's stored results (`PURGE`: UNLINK, which
 *   Redis frees in the background); the sweep purges those of batches that
 *   ended longer ago than `retentionMs`.
 * - `cancel` flips the status in Redis (`CANCEL`) and publishes on the
 *   `control` channel; every worker stops that batch's deals.
 *
 * A Redis that cannot be reached answers 503 `overloaded` (retry later).
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { BatchRequest, BatchStatus } from '../../../client-sdk/api/batch-schemas.js';
import { SolverError } from '../../../client-sdk/core/errors.js';
import { DEFAULT_LIMITS_CONFIG, type LimitsConfig } from '../../limits.js';
import type { Logger } from '../../logger.js';
import type { BatchBackend, BatchCaller, BatchPageQuery, BatchProgressState, BatchQuotas, BatchResultsPage } from '../backend.js';
import type { ResultsMode } from '../census.js';
import { planBatch } from '../positions.js';
import { checkQuota, DEFAULT_MAX_BATCH_DEALS, DEFAULT_QUOTAS, resultsMode, toStatus, toWireResult, type BatchSpec, type BatchState } from '../model.js';
import { batchFields, decodeResult, pairs, payloadVerdict, toRecord } from './codec.js';
import { CHUNK_JOB_OPTIONS, chunkJob, QUEUE_NAME, RATE_WINDOW_S, RedisKeys, type ChunkJob } from './keys.js';
import { CANCEL, PAGE, PURGE, STATUS } from './scripts.js';
import { BatchListeners } from '../listeners.js';

export { CHUNK_JOB_OPTIONS };

/** Jobs added per `addBulk` call. */
const ENQUEUE_PAGE = 1000;
/** Lifetime of the enqueuing lock, renewed after every page, ms. */
const ENQUEUE_LOCK_MS = 30_000;
/** A worker heartbeat older than this is a worker gone, ms. */
export const WORKER_STALE_MS = 30_000;
/** Specs kept in memory (they never change; a boards batch's may be large). */
const SPEC_CACHE = 256;
/** Deals per job of a batch that keeps exceptions, by default (`BATCH_CENSUS_CHUNK_DEALS`): about 2 s of MS FreeCell deals on one thread. */
export const DEFAULT_CENSUS_CHUNK_DEALS = 10_000;
/** Jobs of a batch that keeps exceptions in the queue at once. */
export const CENSUS_WINDOW = 1000;
/** Seqs read per page of a filtered results stream (`?verdict=`): bounds a page's cost however few results match. */
const FILTER_WINDOW = 1024;
/** Ended batches purged per sweep by retention. */
const RETENTION_PAGE = 100;

/** Options of `RedisBatchBackend.open`. */
export interface RedisBackendOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Key prefix (keys.ts). */
  prefix: string;
  /** Deals per BullMQ job of a batch that keeps every result. */
  chunkDeals: number;
  /** Deals per BullMQ job of a batch that keeps exceptions; default `DEFAULT_CENSUS_CHUNK_DEALS`. */
  censusChunkDeals?: number;
  /** Jobs of a batch that keeps exceptions in the queue at once; default `CENSUS_WINDOW`. */
  censusWindow?: number;
  /** Quotas on the deals queued; default `DEFAULT_QUOTAS`. */
  quotas?: BatchQuotas;
  /** Stored results of an ended batch are deleted this long after its end, ms; 0 (default): kept until deleted. */
  retentionMs?: number;
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
  readonly #censusChunk: number;
  readonly #censusWindow: number;
  readonly #quotas: BatchQuotas;
  readonly #retentionMs: number;
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
    this.#censusChunk = options.censusChunkDeals ?? DEFAULT_CENSUS_CHUNK_DEALS;
    this.#censusWindow = options.censusWindow ?? CENSUS_WINDOW;
    this.#quotas = options.quotas ?? DEFAULT_QUOTAS;
    this.#retentionMs = options.retentionMs ?? 0;
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

  async create(req: BatchRequest, caller: BatchCaller = { owner: null }): Promise<BatchStatus> {
    if (this.#closed) throw new SolverError('overloaded', 'the service is shutting down');
    const { spec, total } = planBatch(req, this.#limits, this.#maxDeals);
    const mode = resultsMode(spec);
    checkQuota(this.#quotas, mode, caller.owner, await this.#guard(() => this.#queuedDeals(mode, caller.owner)), total);
    const id = randomUUID();
    const chunk = mode === 'exceptions' ? this.#censusChunk : this.#chunk;
    const fields = batchFields(id, spec, total, chunk, Date.now(), { window: mode === 'exceptions' ? this.#censusWindow : undefined, owner: caller.owner });
    await this.#guard(async () => {
      const k = this.keys;
      await this.redis.multi().hset(k.batch(id), fields).sadd(k.running, id).set(k.enqueueLock(id), this.#token, 'PX', ENQUEUE_LOCK_MS).exec();
      this.#cacheSpec(id, spec);
      await this.#enqueue(id, total, chunk, 0, Number(fields.window));
    });
    return (await this.status(id))!;
  }

  /** Deals not finished in the running batches of `mode` (of `owner`, or of everyone when null). */
  async #queuedDeals(mode: ResultsMode, owner: string | null): Promise<number> {
    const ids = await this.redis.smembers(this.keys.running);
    if (ids.length === 0) return 0;
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(this.keys.batch(id), 'total', 'done', 'mode', 'owner');
    let queued = 0;
    for (const [err, row] of (await pipeline.exec()) ?? []) {
      if (err) throw err;
      const [total, done, batchMode, batchOwner] = row as (string | null)[];
      if ((batchMode ?? 'all') !== mode || (owner !== null && batchOwner !== owner)) continue;
      queued += Number(total ?? 0) - Number(done ?? 0);
    }
    return queued;
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
    await this.#guard(() => CANCEL.run(this.redis, [k.batch(id), k.running, k.ended], [k.events, k.control, id]));
    return this.status(id);
  }

  async state(id: string): Promise<BatchProgressState | undefined> {
    const [status, done, total, stored, mode] = await this.#guard(() => this.redis.hmget(this.keys.batch(id), 'status', 'done', 'total', 'stored', 'mode'));
    if (status === null) return undefined;
    return { status: status as BatchState, done: Number(done), total: Number(total), stored: Number(stored ?? done), mode: (mode ?? 'all') as ResultsMode };
  }

  async page(id: string, query: BatchPageQuery): Promise<BatchResultsPage | undefined> {
    const { after, limit, verdicts } = query;
    const filter = verdicts !== undefined && verdicts.length < 4 ? new Set<string>(verdicts) : null;
    const count = filter ? Math.max(limit, FILTER_WINDOW) : limit;
    const reply = (await this.#guard(() => PAGE.run(this.redis, [this.keys.batch(id), this.keys.results(id)], [after, count]))) as
      | [string, string, string, string, (string | null)[]]
      | null;
    if (!reply) return undefined;
    const [status, done, total, stored, rows] = reply;
    const spec = await this.#spec(id);
    const record = { spec } as Parameters<typeof toWireResult>[0];
    const results = [];
    let scannedTo = after;
    for (let i = 0; i < rows.length && results.length < limit; i++) {
      const text = rows[i];
      scannedTo = after + 1 + i;
      if (text === null || (filter !== null && !filter.has(payloadVerdict(text)))) continue;
      results.push(toWireResult(record, decodeResult(after + 1 + i, text), query.withMoves));
    }
    return { status: status as BatchState, done: Number(done), total: Number(total), stored: Number(stored), mode: resultsMode(spec), results, scannedTo };
  }

  async purge(id: string): Promise<BatchStatus | undefined> {
    const k = this.keys;
    const purged = await this.#guard(() => PURGE.run(this.redis, [k.batch(id), k.index(id), k.results(id), k.jobs(id), k.ended], [id]));
    if (purged === null) return undefined;
    if (purged === -1) {
      throw new SolverError('conflict', `batch "${id}" is running: cancel it first (DELETE /v1/batches/${id}), then delete its results`, { path: 'id' });
    }
    return this.status(id);
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
        const [total, chunk, chunks, window, enqueued] = (await this.redis.hmget(this.keys.batch(id), 'total', 'chunk', 'chunks', 'window', 'enqueued')).map(Number);
        const first = Math.min(chunks, window || chunks);
        if (!(enqueued < first)) continue;
        const locked = await this.redis.set(this.keys.enqueueLock(id), this.#token, 'PX', ENQUEUE_LOCK_MS, 'NX');
        if (locked !== 'OK') continue;
        this.#log?.warn({ batch: id, enqueued, chunks }, 'batch: enqueuing the jobs another API server left');
        await this.#enqueue(id, total, chunk, enqueued, first);
      }
      if (this.#retentionMs > 0) {
        const now = Number((await this.redis.time())[0]) * 1000;
        for (const id of await this.redis.zrangebyscore(this.keys.ended, 0, now - this.#retentionMs, 'LIMIT', 0, RETENTION_PAGE)) await this.purge(id);
      }
    } catch (err) {
      this.#log?.error({ err }, 'batch sweep failed; retrying later');
    }
  }

  /** Adds the jobs of chunks `from` to `to` (excluded) of a batch, a page at a time, holding the enqueuing lock. */
  async #enqueue(id: string, total: number, chunk: number, from: number, to: number): Promise<void> {
    for (let k = from; k < to; k += ENQUEUE_PAGE) {
      const end = Math.min(to, k + ENQUEUE_PAGE);
      const jobs = [];
      for (let j = k; j < end; j++) jobs.push(chunkJob(id, j, chunk, total));
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
