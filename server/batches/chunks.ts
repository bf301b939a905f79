/**
 * How both batch backends hand a batch's deals to the pool (the embedded
 * scheduler, embedded/scheduler.ts; the `redis` workers' consumer,
 * redis/consumer.ts): as many consecutive deals a pool job as fit in
 * `chunkMs` of one worker by the batch's running mean time a deal (one
 * until a deal has been timed, at most MAX_CHUNK), each job named by what
 * the workers deal themselves (`sourceOf`: a numbered range, or the
 * requests of a list or boards), so that no deal is dealt on the main
 * thread. Which job runs first (interactive solves before batches) is the
 * pool's to decide, for both alike (server/pool/queue.ts).
 */
import type { BatchSource } from '../pool.js';
import { requestAt } from './positions.js';
import type { BatchSpec } from './model.js';

/** Most deals in one pool job of a batch. */
export const MAX_CHUNK = 1024;
/** Weight of the newest deal in a batch's running mean time a deal. */
const DEAL_MS_WEIGHT = 0.1;

/** Running mean of the engine's time a deal, by batch (at most `memory` batches remembered). */
export class DealTimes {
  readonly #mean = new Map<string, number>();
  readonly #memory: number;

  constructor(memory = 256) {
    this.#memory = memory;
  }

  /** Adds a decided deal's engine time, ms, to batch `id`'s mean. */
  observe(id: string, ms: number): void {
    const before = this.#mean.get(id);
    if (before === undefined && this.#mean.size >= this.#memory) this.#mean.delete(this.#mean.keys().next().value!);
    this.#mean.set(id, before === undefined ? ms : before + DEAL_MS_WEIGHT * (ms - before));
  }

  /** Deals in batch `id`'s next job: as many as fit in `chunkMs` by its mean (1 until a deal is timed; `chunkMs` 0: always 1). */
  chunkSize(id: string, chunkMs: number): number {
    const ms = this.#mean.get(id);
    if (chunkMs === 0 || ms === undefined) return 1;
    return Math.max(1, Math.min(MAX_CHUNK, Math.floor(chunkMs / Math.max(ms, 0.01))));
  }

  forget(id: string): void {
    this.#mean.delete(id);
  }
}

/**
 * The pool job's deals for deal indices `indices` of a batch: the range
 * `first..first+count-1` when they are consecutive indices of a numbered
 * range, else one request each (a list's deal numbers, boards), in order.
 */
export function sourceOf(spec: BatchSpec, indices: readonly number[]): BatchSource {
  const p = spec.positions;
  const consecutive = indices.every((index, k) => k === 0 || index === indices[k - 1] + 1);
  if (p.kind === 'range' && consecutive && spec.numbering !== null && indices.length > 0) {
    return {
      kind: 'range',
      template: { game: spec.game, numbering: spec.numbering, ...(spec.rulesOverride !== undefined ? { rules: spec.rulesOverride } : {}) },
      first: String(BigInt(p.from) + BigInt(indices[0])),
      count: indices.length,
    };
  }
  return { kind: 'requests', requests: indices.map((index) => requestAt(spec, index)) };
}
