/**
 * A front's side of the channel to its primary (server/fronts/protocol.ts):
 * calls to the primary, the service's readiness as the primary last told
 * it, the primary's word to shut down, batch result subscriptions, the
 * share of this front's metrics in the service's `/metrics`, and what the
 * batch front serves to the others.
 *
 * A front whose primary is gone (its channel closes: the primary was
 * killed) exits at once, status 1: it can get no new connection (the primary
 * holds the listening socket) and must not keep writing the batch store
 * that a new service may open.
 */
import type { Registry } from 'prom-client';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { BatchBackend, BatchCaller, BatchPageQuery } from '../batches/backend.js';
import type { FrontsReadiness, ServiceState } from '../lifecycle.js';
import type { Logger } from '../logger.js';
import { answer, CHANNEL, isOurs, PendingCalls, type FrontMessage, type PrimaryMessage, type PrimaryOp } from './protocol.js';

/** How long a call to the primary may take before it fails, ms (the batch front's answer included). */
const CALL_TIMEOUT_MS = 30_000;

/** The `BatchBackend` methods other fronts may call on the batch front. */
const BATCH_METHODS = new Set(['create', 'status', 'cancel', 'state', 'page', 'purge']);

/** See the module comment. */
export class FrontLink {
  /** This front's number, 0-based. */
  readonly index: number;
  /** Fronts of the service. */
  readonly count: number;
  readonly #logger: Logger;
  readonly #calls = new PendingCalls();
  #readiness: FrontsReadiness;
  #onShutdown: ((reason: string) => void) | undefined;
  /** Set once the primary said to shut down (before `onShutdown` was called, it waits here). */
  #shutdownReason: string | undefined;
  /** This front's batch result subscriptions, by id. */
  readonly #subscriptions = new Map<number, () => void>();
  #nextSubscription = 1;
  /** The registry this front's part of `/metrics` is read from. */
  #metrics: Registry | undefined;
  /** This front's pool numbers. */
  #stats: (() => object) | undefined;
  /** The batch front only: the backend it serves, and the other fronts' subscriptions to it. */
  #batches: BatchBackend | undefined;
  readonly #served = new Map<string, () => void>();

  /**
   * @param index this front's number (0-based; the primary sets `FRONT_INDEX`).
   * @param count fronts of the service.
   * @throws Error when this process has no IPC channel (not a cluster worker).
   */
  constructor(index: number, count: number, logger: Logger) {
    if (!process.send) throw new Error('a front runs as a node:cluster worker (no IPC channel)');
    this.index = index;
    this.count = count;
    this.#logger = logger;
    this.#readiness = { fronts: count, ready: 0, stopping: false };
    process.on('message', (message: unknown) => {
      if (isOurs(message)) this.#receive(message as PrimaryMessage);
    });
    process.on('disconnect', () => {
      this.#calls.failAll(() => new SolverError('overloaded', 'the service is stopping'));
      this.#logger.error('the primary process is gone: exiting');
      this.#logger.flush();
      process.exit(1);
    });
  }

  /**
   * Calls `op` of the primary (protocol.ts) with `args`.
   * @throws SolverError `overloaded` when no answer comes within 30 s; the
   *   error the other side threw (a `SolverError` keeps its code).
   */
  call(op: PrimaryOp, args: unknown[] = []): Promise<unknown> {
    const { id, answer: reply } = this.#calls.start(CALL_TIMEOUT_MS, () => new SolverError('overloaded', `the service's primary process did not answer (${op}) in time; retry later`));
    this.#send({ channel: CHANNEL, t: 'call', id, op, args });
    return reply;
  }

  /**
   * Keeps the primary told of `state`'s ready and stopping flags, and makes
   * `state.fronts` the service's readiness as the primary last told it
   * (`/readyz`).
   */
  watch(state: ServiceState): void {
    state.fronts = () => this.#readiness;
    const report = () => this.#send({ channel: CHANNEL, t: 'state', ready: state.ready, stopping: state.stopping });
    state.onChange(report);
    report();
  }

  /**
   * `stop(reason)` runs when the primary says to shut down (at once if it
   * already has; once per message: `exitOnTermination`'s trigger ignores
   * repeats).
   */
  onShutdown(stop: (reason: string) => void): void {
    this.#onShutdown = stop;
    if (this.#shutdownReason !== undefined) stop(this.#shutdownReason);
  }

  /** Lets the primary read `registry` for the service's `/metrics` (op `metrics`). */
  shareMetrics(registry: Registry): void {
    this.#metrics = registry;
  }

  /** Lets the primary read this front's pool numbers for the service's (op `stats`). */
  shareStats(stats: () => object): void {
    this.#stats = stats;
  }

  /**
   * Calls `listener` when batch `batch` may have news (the batch front's
   * `BatchBackend.subscribe`, through the primary). Returns the function
   * that unsubscribes.
   */
  subscribe(batch: string, listener: () => void): () => void {
    const sub = this.#nextSubscription++;
    this.#subscriptions.set(sub, listener);
    this.#send({ channel: CHANNEL, t: 'subscribe', sub, batch });
    return () => {
      if (this.#subscriptions.delete(sub)) this.#send({ channel: CHANNEL, t: 'unsubscribe', sub });
    };
  }

  /** On the batch front: serves the other fronts' batch calls and subscriptions from `backend`. */
  serveBatches(backend: BatchBackend): void {
    this.#batches = backend;
  }

  #receive(message: PrimaryMessage): void {
    switch (message.t) {
      case 'reply':
        this.#calls.settle(message);
        return;
      case 'service':
        this.#readiness = { fronts: message.fronts, ready: message.ready, stopping: message.stopping };
        return;
      case 'shutdown':
        this.#shutdownReason = message.reason;
        this.#onShutdown?.(message.reason);
        return;
      case 'notify':
        this.#subscriptions.get(message.sub)?.();
        return;
      case 'call': {
        if (message.op === 'metrics' || message.op === 'stats') {
          const read = message.op === 'metrics' ? () => this.#metrics?.getMetricsAsJSON() ?? [] : () => this.#stats?.() ?? {};
          void answer(message.id, read).then((reply) => this.#send(reply));
          return;
        }
        const [method, ...args] = message.args as [string, ...unknown[]];
        void answer(message.id, () => {
          const backend = this.#batches;
          if (!BATCH_METHODS.has(method)) throw new SolverError('internal_error', `no batch call ${String(method)}`);
          if (!backend) throw new SolverError('overloaded', 'the batch service is starting; retry later');
          return (backend[method as 'status'] as (...a: unknown[]) => unknown).apply(backend, args);
        }).then((reply) => this.#send(reply));
        return;
      }
      case 'subscribe': {
        const key = `${message.front}:${message.sub}`;
        const { front, sub } = message;
        this.#served.get(key)?.();
        const unsubscribe = this.#batches?.subscribe(message.batch, () => this.#send({ channel: CHANNEL, t: 'notify', front, sub }));
        if (unsubscribe) this.#served.set(key, unsubscribe);
        return;
      }
      case 'unsubscribe': {
        const key = `${message.front}:${message.sub}`;
        this.#served.get(key)?.();
        this.#served.delete(key);
        return;
      }
    }
  }

  #send(message: FrontMessage): void {
    if (!process.connected) return;
    process.send!(message, undefined, undefined, (err: Error | null) => {
      if (err) this.#logger.warn({ err }, 'a message to the primary process was lost');
    });
  }
}

/**
 * The batch routes of a front other than the batch front: every call goes
 * to the batch front's backend (through the primary), so that one process
 * runs and stores the embedded batches whichever front a request reaches.
 */
export class RemoteBatches implements BatchBackend {
  readonly #link: FrontLink;
  #closed = false;

  constructor(link: FrontLink) {
    this.#link = link;
  }

  /** True once this front is closing (its result streams end; clients resume from their cursor). */
  get closed(): boolean {
    return this.#closed;
  }

  create(req: Parameters<BatchBackend['create']>[0], caller?: BatchCaller) {
    return this.#call('create', req, caller) as ReturnType<BatchBackend['create']>;
  }

  status(id: string) {
    return this.#call('status', id) as ReturnType<BatchBackend['status']>;
  }

  cancel(id: string) {
    return this.#call('cancel', id) as ReturnType<BatchBackend['cancel']>;
  }

  state(id: string) {
    return this.#call('state', id) as ReturnType<BatchBackend['state']>;
  }

  page(id: string, query: BatchPageQuery) {
    return this.#call('page', id, query) as ReturnType<BatchBackend['page']>;
  }

  purge(id: string) {
    return this.#call('purge', id) as ReturnType<BatchBackend['purge']>;
  }

  subscribe(id: string, listener: () => void): () => void {
    return this.#link.subscribe(id, listener);
  }

  /** Ends this front's result streams (a shutdown hook). */
  close(): void {
    this.#closed = true;
  }

  #call(method: string, ...args: unknown[]): Promise<unknown> {
    return this.#link.call('batch', [method, ...args]);
  }
}
