/**
 * The Redis layout of the `redis` batch backend, in one place.
 *
 * Per batch `id` (the `{id}` hash tag keeps a batch's keys in one slot):
 *
 * | key | type | holds |
 * |---|---|---|
 * | `P:batch:{id}` | hash | `spec` (JSON), `status`, `createdAt`, `finishedAt`, `total`, `done`, `stored`, `solved`, `unsolvable`, `unknown`, `errors`, `sumMoves`, `sumElapsedMs`, `activeMs`, `chunk`, `chunks`, `window`, `enqueued`, `owner`, `purgedAt`, and the census summary's sums and histogram buckets (`sumElapsedUs`, `sumPositions`, `m:<moves>`, `p:<bucket>`, `t:<bucket>`: census.ts `summaryIncrements`) |
 * | `P:batch:{id}:idx` | hash | deal index → seq: the exactly-once key of a batch that keeps every result (HSETNX) |
 * | `P:batch:{id}:jobs` | string | a bitmap, bit k set once job k is counted: the exactly-once key of a batch that keeps exceptions (SETBIT) |
 * | `P:batch:{id}:res` | hash | seq → a stored result (codec.ts): the cursor of the results stream |
 * | `P:batch:{id}:rate:<unix s>` | string | results stored in that second (expire after 2 min): the recent deals/s |
 * | `P:batch:{id}:enq` | string | the enqueuing lock (an API server adding the batch's jobs) |
 * | `P:running` | set | ids of the running batches |
 * | `P:ended` | sorted set | ids of the ended batches whose results are kept, by end time (ms): what retention purges |
 * | `P:workers` | hash | worker name → its last heartbeat (JSON) |
 *
 * Channels: `P:events` (a batch id, after results of it were stored or it
 * ended: wakes the result streams of every API server) and `P:control`
 * (`cancel <id>`: every worker stops that batch's deals).
 *
 * The BullMQ queue is `batches` under the prefix `P:bull`.
 */
import { createHash } from 'node:crypto';
import type { JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';

/** Name of the BullMQ queue. */
export const QUEUE_NAME = 'batches';

/** BullMQ's largest priority. */
const MAX_PRIORITY = 2_097_152;

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

/** Seconds of history behind the recent deals/s (as the embedded scheduler's 30 s). */
export const RATE_WINDOW_S = 30;

/** The key names under one prefix. */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  batch(id: string): string {
    return `${this.prefix}:batch:{${id}}`;
  }
  index(id: string): string {
    return `${this.batch(id)}:idx`;
  }
  results(id: string): string {
    return `${this.batch(id)}:res`;
  }
  enqueueLock(id: string): string {
    return `${this.batch(id)}:enq`;
  }
  jobs(id: string): string {
    return `${this.batch(id)}:jobs`;
  }
  get running(): string {
    return `${this.prefix}:running`;
  }
  get ended(): string {
    return `${this.prefix}:ended`;
  }
  get workers(): string {
    return `${this.prefix}:workers`;
  }
  get events(): string {
    return `${this.prefix}:events`;
  }
  get control(): string {
    return `${this.prefix}:control`;
  }
  /** BullMQ's key prefix. */
  get bull(): string {
    return `${this.prefix}:bull`;
  }
}

/** The BullMQ job id of chunk `k` of batch `id` (BullMQ refuses `:` in custom ids). */
export function jobId(id: string, k: number): string {
  return `${id}-${k}`;
}

/** What a job carries: the batch and the half-open range of deal indices [from, to). */
export interface ChunkJob {
  b: string;
  f: number;
  t: number;
}

/**
 * Job `k` of batch `id` (of `total` deals in jobs of `chunk`) as BullMQ adds
 * it: its id (adding it twice while it waits adds nothing), its deals, and
 * its priority, its number: batches share the workers chunk by chunk (a new
 * batch's first chunks go before an older batch's later ones).
 */
export function chunkJob(id: string, k: number, chunk: number, total: number): { name: string; data: ChunkJob; opts: JobsOptions } {
  return {
    name: 'deals',
    data: { b: id, f: k * chunk, t: Math.min(total, (k + 1) * chunk) },
    opts: { jobId: jobId(id, k), priority: Math.min(k + 1, MAX_PRIORITY) },
  };
}

/**
 * A Lua script run with EVALSHA (one round trip, no script text on the
 * wire), loaded with EVAL the first time a server does not know it.
 */
export class Script {
  readonly sha: string;
  constructor(readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number | Buffer)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return redis.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}
