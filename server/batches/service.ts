/**
 * Batch analysis as the HTTP routes, the CLI and `main.ts` use it: the store
 * (durable), the scheduler (live), and the wire shapes of a batch's status and
 * results (`client-sdk/api/batch-schemas.ts`).
 */
import { randomUUID } from 'node:crypto';
import { wilsonInterval, type BatchRequest, type BatchResult, type BatchStatus } from '../../client-sdk/api/batch-schemas.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { toStandardNotation } from '../../client-sdk/core/notation.js';
import { DEFAULT_LIMITS_CONFIG, type LimitsConfig } from '../../client-sdk/api/request.js';
import type { BatchBackend, BatchProgressState, BatchResultsPage } from './backend.js';
import { dealNumberAt, planBatch } from './positions.js';
import { BatchScheduler, type BatchPool } from './scheduler.js';
import { BatchStore, type BatchRecord, type StoredResult } from './store.js';

/** Largest batch by default. */
export const DEFAULT_MAX_BATCH_DEALS = 1_000_000;

/** Options of `createBatchService`. */
export interface BatchServiceOptions {
  /** SQLite file, or `:memory:`. */
  dbPath: string;
  /** The solver pool (see `BatchPool`). */
  pool: BatchPool;
  /** Most batch solves in flight at once; default 1 (production: the thread count). */
  concurrency?: number;
  /** Budgets' defaults and caps (as for `POST /v1/solve`). */
  limits?: LimitsConfig;
  /** Largest batch accepted; default 1,000,000 deals. */
  maxDeals?: number;
  /** Resume the running batches found in the database; default true. */
  resume?: boolean;
  onError?: (message: string, err: unknown) => void;
}

/** Batches: create, status, results, cancel, stop. The `embedded` backend of the routes (backend.ts). */
export class BatchService implements BatchBackend {
  readonly store: BatchStore;
  readonly scheduler: BatchScheduler;
  readonly #limits: LimitsConfig;
  readonly #maxDeals: number;
  #closed = false;

  constructor(options: BatchServiceOptions) {
    this.store = new BatchStore(options.dbPath);
    this.scheduler = new BatchScheduler(this.store, options.pool, { concurrency: options.concurrency, onError: options.onError });
    this.#limits = options.limits ?? DEFAULT_LIMITS_CONFIG;
    this.#maxDeals = options.maxDeals ?? DEFAULT_MAX_BATCH_DEALS;
    if (options.resume ?? true) this.scheduler.resume();
  }

  /** True once `close` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Validates and starts a batch.
   * @throws SolverError for bad input (see `planBatch`), `overloaded` while shutting down.
   */
  create(req: BatchRequest): BatchStatus {
    if (this.#closed) throw new SolverError('overloaded', 'the service is shutting down');
    const { spec, total } = planBatch(req, this.#limits, this.#maxDeals);
    const record = this.store.create(randomUUID(), spec, total);
    this.scheduler.add(record);
    return this.status(record.id)!;
  }

  /** The status of a batch, or undefined when there is none of that id. */
  status(id: string): BatchStatus | undefined {
    const record = this.store.get(id);
    return record ? toStatus(record, this.scheduler.progress(id)) : undefined;
  }

  /** Cancels a running batch; returns its status (unchanged when it had ended), or undefined. */
  cancel(id: string): BatchStatus | undefined {
    this.scheduler.cancel(id);
    return this.status(id);
  }

  /** Results with `seq > after`, at most `limit`, in completion order. */
  results(record: BatchRecord, after: number, limit: number, withMoves: boolean): BatchResult[] {
    return this.store.resultsAfter(record.id, after, limit).map((r) => toWireResult(record, r, withMoves));
  }

  /** The batch's state, or undefined. */
  state(id: string): BatchProgressState | undefined {
    const record = this.store.get(id);
    return record && { status: record.status, done: record.done, total: record.total };
  }

  /** Results after `after` with the state read first (see `BatchResultsPage`), or undefined. */
  page(id: string, after: number, limit: number, withMoves: boolean): BatchResultsPage | undefined {
    const record = this.store.get(id);
    if (!record) return undefined;
    return { status: record.status, done: record.done, total: record.total, results: this.results(record, after, limit, withMoves) };
  }

  /** The scheduler's notifications of batch `id` (see `BatchScheduler.subscribe`). */
  subscribe(id: string, listener: () => void): () => void {
    return this.scheduler.subscribe(id, listener);
  }

  /** Every result in deal order (for the CLI's output file). */
  *resultsByIndex(record: BatchRecord): Generator<BatchResult> {
    for (const r of this.store.resultsByIndex(record.id)) yield toWireResult(record, r, true);
  }

  /** Stops the scheduler (running solves may finish for `drainMs`), then closes the database. */
  async close(drainMs = 0): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.scheduler.stop(drainMs);
    this.store.close();
  }
}

/** Creates the batch service and resumes the batches left running. */
export function createBatchService(options: BatchServiceOptions): BatchService {
  return new BatchService(options);
}

/** The wire shape of a stored result. */
export function toWireResult(record: BatchRecord, r: StoredResult, withMoves: boolean): BatchResult {
  return {
    seq: r.seq,
    index: r.index,
    deal: dealNumberAt(record.spec, r.index),
    verdict: r.verdict,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    moveCount: r.moves.length,
    notation: r.moves.length > 0 ? toStandardNotation(r.moves, record.spec.rules) : [],
    ...(withMoves ? { moves: r.moves } : {}),
    stats: { statesExpanded: r.statesExpanded, statesStored: r.statesStored, elapsedMs: r.elapsedMs },
    ...(r.error !== undefined ? { error: r.error } : {}),
  };
}

/** The wire status of a batch: counters from the store, live rate from the scheduler. */
export function toStatus(record: BatchRecord, live: { dealsPerSecond: number; etaSeconds: number | null } | null): BatchStatus {
  const { spec } = record;
  const decided = record.solved + record.unsolvable;
  const wilson = wilsonInterval(record.solved, decided);
  const finishedRate = record.activeMs > 0 ? record.done / (record.activeMs / 1000) : 0;
  return {
    id: record.id,
    ...(spec.name !== undefined ? { name: spec.name } : {}),
    status: record.status,
    game: spec.game,
    numbering: spec.numbering,
    rules: spec.rules,
    limits: spec.limits,
    createdAt: new Date(record.createdAt).toISOString(),
    finishedAt: record.finishedAt === null ? null : new Date(record.finishedAt).toISOString(),
    total: record.total,
    done: record.done,
    counts: { solved: record.solved, unsolvable: record.unsolvable, unknown: record.unknown, error: record.errors },
    dealsPerSecond: round(live?.dealsPerSecond ?? finishedRate, 2),
    etaSeconds: record.status === 'running' && live?.etaSeconds != null ? round(live.etaSeconds, 1) : null,
    summary: {
      solvable: wilson && { share: round(wilson.share, 6), low: round(wilson.low, 6), high: round(wilson.high, 6), decided },
      unknown: record.unknown,
      unknownShare: record.done > 0 ? round(record.unknown / record.done, 6) : 0,
      meanMoves: record.solved > 0 ? round(record.sumMoves / record.solved, 2) : null,
      meanMsPerDeal: record.done > 0 ? round(record.sumElapsedMs / record.done, 3) : null,
    },
    urls: { self: `/v1/batches/${record.id}`, results: `/v1/batches/${record.id}/results` },
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
