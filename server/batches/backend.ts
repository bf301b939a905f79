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
import type { BatchRequest, BatchResult, BatchStatus } from '../../client-sdk/api/batch-schemas.js';
import type { BatchState } from './model.js';

/** A value now or later. */
export type MaybePromise<T> = T | Promise<T>;

/** Where a batch stands: enough to end a results stream. */
export interface BatchProgressState {
  status: BatchState;
  done: number;
  total: number;
}

/**
 * A page of results in completion order, with the batch's state read BEFORE
 * them: when that state is no longer `running`, every result is stored, so
 * an empty page then means the stream is at its end.
 */
export interface BatchResultsPage extends BatchProgressState {
  results: BatchResult[];
}

/** A batch queue backend, as the routes use it. */
export interface BatchBackend {
  /** True once the backend is closing: result streams end (clients resume from their cursor elsewhere). */
  readonly closed: boolean;
  /**
   * Validates and starts a batch.
   * @throws SolverError for bad input (`planBatch`), `overloaded` while shutting down.
   */
  create(req: BatchRequest): MaybePromise<BatchStatus>;
  /** The status of a batch, or undefined when there is none of that id. */
  status(id: string): MaybePromise<BatchStatus | undefined>;
  /** Cancels a running batch; its status (unchanged when it had ended), or undefined. */
  cancel(id: string): MaybePromise<BatchStatus | undefined>;
  /** The batch's state, or undefined when there is none of that id. */
  state(id: string): MaybePromise<BatchProgressState | undefined>;
  /** Up to `limit` results with `seq > after`; undefined when there is no such batch. */
  page(id: string, after: number, limit: number, withMoves: boolean): MaybePromise<BatchResultsPage | undefined>;
  /**
   * Calls `listener` when results of batch `id` may have been stored or the
   * batch may have ended (it may also call it spuriously). Returns the
   * function that unsubscribes.
   */
  subscribe(id: string, listener: () => void): () => void;
}
