/**
 * The Redis layout of the `redis` batch backend, in one place.
 *
 * Per batch `id` (the `{id}` hash tag keeps a batch's keys in one slot):
 *
 * | key | type | holds |
 * |---|---|---|
 * | `P:batch:{id}` | hash | `spec` (JSON), `status`, `createdAt`, `finishedAt`, `total`, `done`, `solved`, `unsolvable`, `unknown`, `errors`, `sumMoves`, `sumElapsedMs`, `activeMs`, `chunk`, `chunks`, `enqueued` |
 * | `P:batch:{id}:idx` | hash | deal index → seq: the exactly-once key (HSETNX) |
 * | `P:batch:{id}:res` | hash | seq → the result (codec.ts): the cursor of the results stream |
 * | `P:batch:{id}:rate:<unix s>` | string | results stored in that second (expire after 2 min): the recent deals/s |
 * | `P:batch:{id}:enq` | string | the enqueuing lock (an API server adding the batch's jobs) |
 * | `P:running` | set | ids of the running batches |
 * | `P:workers` | hash | worker name → its last heartbeat (JSON) |
 *
 * Channels: `P:events` (a batch id, after results of it were stored or it
 * ended: wakes the result streams of every API server) and `P:control`
 * (`cancel <id>`: every worker stops that batch's deals).
 *
 * The BullMQ queue is `batches` under the prefix `P:bull`.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Name of the BullMQ queue. */
export const QUEUE_NAME = 'batches';

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
  get running(): string {
    return `${this.prefix}:running`;
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
