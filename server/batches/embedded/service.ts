/**
 * Batch analysis as the HTTP routes, the CLI and `main.ts` use it: the store
 * (durable), the scheduler (live), and the wire shapes of a batch's status and
 * results (`client-sdk/api/batch-schemas.ts`); quotas on the deals queued,
 * the deletion of a batch's stored results, and their retention time.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { BatchRequest, BatchResult, BatchStatus } from '../../../client-sdk/api/batch-schemas.js';
import { SolverError } from '../../../client-sdk/core/errors.js';
import { DEFAULT_LIMITS_CONFIG, type LimitsConfig } from '../../limits.js';
import type { BatchBackend, BatchCaller, BatchPageQuery, BatchProgressState, BatchQuotas, BatchResultsPage } from '../backend.js';
import { checkQuota, DEFAULT_MAX_BATCH_DEALS, DEFAULT_QUOTAS, resultsMode, toStatus, toWireResult, type BatchRecord } from '../model.js';
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
  /** Largest batch that keeps every result; default 1,000,000 deals. */
  maxDeals?: number;
  /** Quotas on the deals queued (`BatchQuotas`); default `DEFAULT_QUOTAS`. */
  quotas?: BatchQuotas;
  /** Stored results of an ended batch are deleted this long after its end, ms; 0 (default): kept until deleted. */
  retentionMs?: number;
  /** Resume the running batches found in the database; default true. */
  resume?: boolean;
  onError?: (message: string, err: unknown) => void;
}

/** Results deleted per step of a purge (one transaction, ~10-20 ms here). */
const PURGE_ROWS = 2000;
/** File pages given back per step of a purge (`PRAGMA incremental_vacuum`). */
const VACUUM_PAGES = 1000;
/** How often retention looks for ended batches to purge, ms. */
const RETENTION_SWEEP_MS = 10 * 60_000;

/** Batches: create, status, results, cancel, purge, stop. The `embedded` backend of the routes (backend.ts). */
export class BatchService implements BatchBackend {
  readonly store: BatchStore;
  readonly scheduler: BatchScheduler;
  readonly #limits: LimitsConfig;
  readonly #maxDeals: number;
  readonly #quotas: BatchQuotas;
  readonly #retentionMs: number;
  readonly #onError: (message: string, err: unknown) => void;
  readonly #purging = new Map<string, Promise<void>>();
  readonly #retentionTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: BatchServiceOptions) {
    this.store = new BatchStore(options.dbPath);
    this.scheduler = new BatchScheduler(this.store, options.pool, { concurrency: options.concurrency, onError: options.onError });
    this.#limits = options.limits ?? DEFAULT_LIMITS_CONFIG;
    this.#maxDeals = options.maxDeals ?? DEFAULT_MAX_BATCH_DEALS;
    this.#quotas = options.quotas ?? DEFAULT_QUOTAS;
    this.#retentionMs = options.retentionMs ?? 0;
    this.#onError = options.onError ?? ((message, err) => console.error(message, err));
    if (options.resume ?? true) this.scheduler.resume();
    if (this.#retentionMs > 0) {
      this.#retentionTimer = setInterval(() => void this.applyRetention(), Math.min(RETENTION_SWEEP_MS, this.#retentionMs));
      this.#retentionTimer.unref();
      setImmediate(() => void this.applyRetention());
    }
  }

  /** True once `close` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Validates and starts a batch.
   * @throws SolverError for bad input (see `planBatch`), `quota_exceeded` past a quota, `overloaded` while shutting down.
   */
  create(req: BatchRequest, caller: BatchCaller = { owner: null }): BatchStatus {
    if (this.#closed) throw new SolverError('overloaded', 'the service is shutting down');
    const { spec, total } = planBatch(req, this.#limits, this.#maxDeals);
    const mode = resultsMode(spec);
    checkQuota(this.#quotas, mode, caller.owner, this.store.queuedDeals(mode, caller.owner), total);
    const record = this.store.create(randomUUID(), spec, total, Date.now(), caller.owner);
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
    return record && progressState(record);
  }

  /** Results after `query.after` with the state read first (see `BatchResultsPage`), or undefined. */
  page(id: string, query: BatchPageQuery): BatchResultsPage | undefined {
    const record = this.store.get(id);
    if (!record) return undefined;
    const slice = this.store.resultsSlice(id, query.after, query.limit, query.verdicts);
    return { ...progressState(record), results: slice.results.map((r) => toWireResult(record, r, query.withMoves)), scannedTo: slice.scannedTo };
  }

  /**
   * Deletes the stored results of an ended batch, a bounded slice at a time
   * (the event loop gets a turn between slices), then gives the file's free
   * pages back to the file system (incremental vacuum) and truncates the
   * WAL. The status and summary stay.
   * @throws SolverError `conflict` while the batch is running.
   */
  async purge(id: string): Promise<BatchStatus | undefined> {
    const record = this.store.get(id);
    if (!record) return undefined;
    if (record.status === 'running') {
      throw new SolverError('conflict', `batch "${id}" is running: cancel it first (DELETE /v1/batches/${id}), then delete its results`, { path: 'id' });
    }
    if (record.purgedAt === null) {
      let purging = this.#purging.get(id);
      if (!purging) {
        purging = this.#purge(id).finally(() => this.#purging.delete(id));
        this.#purging.set(id, purging);
      }
      await purging;
    }
    return this.status(id);
  }

  async #purge(id: string): Promise<void> {
    while (!this.#closed && this.store.purgeSlice(id, PURGE_ROWS) > 0) await nextTurn();
    while (!this.#closed && this.store.vacuumSlice(VACUUM_PAGES) > 0) await nextTurn();
  }

  /** Purges the stored results of every batch that ended more than the retention time ago (none when it is 0). */
  async applyRetention(now = Date.now()): Promise<void> {
    if (this.#retentionMs <= 0 || this.#closed) return;
    try {
      for (const id of this.store.endedBefore(now - this.#retentionMs)) {
        if (this.#closed) return;
        await this.purge(id);
      }
    } catch (err) {
      this.#onError('batches: could not delete the results past their retention time', err);
    }
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
    clearInterval(this.#retentionTimer);
    await this.scheduler.stop(drainMs);
    await Promise.allSettled(this.#purging.values());
    this.store.close();
  }
}

function progressState(record: BatchRecord): BatchProgressState {
  return { status: record.status, done: record.done, total: record.total, stored: record.stored, mode: resultsMode(record.spec) };
}

/** Creates the batch service and resumes the batches left running. */
export function createBatchService(options: BatchServiceOptions): BatchService {
  return new BatchService(options);
}
