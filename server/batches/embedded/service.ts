/**
 * Batch analysis as the HTTP routes, the CLI and `main.ts` use it: the store
 * (durable), the scheduler (live), and the wire shapes of a batch's status and
 * results (`client-sdk/api/batch-schemas.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { BatchRequest, BatchResult, BatchStatus } from '../../../client-sdk/api/batch-schemas.js';
import { SolverError } from '../../../client-sdk/core/errors.js';
import { DEFAULT_LIMITS_CONFIG, type LimitsConfig } from '../../limits.js';
import type { BatchBackend, BatchProgressState, BatchResultsPage } from '../backend.js';
import { DEFAULT_MAX_BATCH_DEALS, toStatus, toWireResult, type BatchRecord } from '../model.js';
import { planBatch } from '../positions.js';
import { BatchScheduler, type BatchPool } from './scheduler.js';
import { BatchStore } from './store.js';

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

  /** Every result in deal order, from deal index `from` on (for the CLI's output file). */
  *resultsByIndex(record: BatchRecord, from = 0): Generator<BatchResult> {
    for (const r of this.store.resultsByIndex(record.id, 1000, from)) yield toWireResult(record, r, true);
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
