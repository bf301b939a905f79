/**
 * What the batch routes (`routes.ts`) need from a queue backend, so that the
 * HTTP API and its answers are the same whichever backend runs the batches:
 *
 * - `embedded` (default): `BatchService` (embedded/service.ts): SQLite and the
 *   in-process scheduler on this process's pool; its methods answer at once.
 * - `redis`: `RedisBatchBackend` (redis/backend.ts): batch state in Redis,
 *   deals in BullMQ jobs run by `npm run worker` processes on any machine;
 *   its methods answer promises.
 *
 * The routes `await` every call, so either kind of answer works.
 */
import type { BatchRequest, BatchResult, BatchStatus, BatchVerdict } from '../../client-sdk/api/batch-schemas.js';
import type { ResultsMode } from './census.js';
import type { BatchState } from './model.js';

/** A value now or later. */
export type MaybePromise<T> = T | Promise<T>;

/** Where a batch stands: enough to end a results stream. */
export interface BatchProgressState {
  status: BatchState;
  done: number;
  total: number;
  /** Results stored one by one (the highest `seq`). */
  stored: number;
  /** What the batch keeps. */
  mode: ResultsMode;
}

/**
 * A page of results in completion order, with the batch's state read BEFORE
 * them: when that state is no longer `running`, every result is stored, so
 * a page that reaches `stored` (`scannedTo`) then means the stream is at its end.
 */
export interface BatchResultsPage extends BatchProgressState {
  results: BatchResult[];
  /** The seq up to which the results were read (past the last result when a filter skipped some): the next page's `after`. */
  scannedTo: number;
}

/** Who asks: the API key's name, or null without keys (quotas count per key, or overall). */
export interface BatchCaller {
  owner: string | null;
}

/** A page request: from `after`, at most `limit`, with JSON moves or not, of these verdicts only (all when absent). */
export interface BatchPageQuery {
  after: number;
  limit: number;
  withMoves: boolean;
  verdicts?: readonly BatchVerdict[];
}

/**
 * Limits on the deals queued in running batches (per API key when keys are
 * on, overall otherwise): a batch that would pass one is refused with 429
 * `quota_exceeded`.
 */
export interface BatchQuotas {
  /** Deals not yet finished in running batches that keep every result. */
  maxQueuedDeals: number;
  /** Deals not yet finished in running batches that keep exceptions only. */
  maxQueuedCensusDeals: number;
}

/** A batch queue backend, as the routes use it. */
export interface BatchBackend {
  /** True once the backend is closing: result streams end (clients resume from their cursor elsewhere). */
  readonly closed: boolean;
  /**
   * Validates and starts a batch.
   * @throws SolverError for bad input (`planBatch`), `quota_exceeded` past a quota (`BatchQuotas`), `overloaded` while shutting down.
   */
  create(req: BatchRequest, caller?: BatchCaller): MaybePromise<BatchStatus>;
  /** The status of a batch, or undefined when there is none of that id. */
  status(id: string): MaybePromise<BatchStatus | undefined>;
  /** Cancels a running batch; its status (unchanged when it had ended), or undefined. */
  cancel(id: string): MaybePromise<BatchStatus | undefined>;
  /** The batch's state, or undefined when there is none of that id. */
  state(id: string): MaybePromise<BatchProgressState | undefined>;
  /** Up to `query.limit` results with `seq > query.after`; undefined when there is no such batch. */
  page(id: string, query: BatchPageQuery): MaybePromise<BatchResultsPage | undefined>;
  /**
   * Deletes the stored results of an ended batch and gives their storage
   * back; the status and summary stay. Returns the status (`stored` 0,
   * `purgedAt` set), or undefined when there is no such batch.
   * @throws SolverError `conflict` while the batch is running (cancel it first).
   */
  purge(id: string): MaybePromise<BatchStatus | undefined>;
  /**
   * Calls `listener` when results of batch `id` may have been stored or the
   * batch may have ended (it may also call it spuriously). Returns the
   * function that unsubscribes.
   */
  subscribe(id: string, listener: () => void): () => void;
}
