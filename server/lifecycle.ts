/**
 * The service's life: ready or not (`/readyz`), and the graceful shutdown on
 * SIGTERM/SIGINT.
 *
 * Shutdown, in order (`gracefulShutdown`):
 *  1. not ready any more: `/readyz` answers 503 and new API requests get 503
 *     `overloaded` with `Connection: close`; for `readyDelayMs` the server
 *     still accepts connections (so a load balancer polling `/readyz` sees
 *     the 503 and takes the instance out), then the listening socket closes
 *     and idle connections with it;
 *  2. the shutdown hooks run (e.g. the batch runner stops taking new work
 *     and saves what it has: the batch backend registers its hook in main.ts), each
 *     with the time left;
 *  3. running solves may finish for `drainMs`; what still runs then is
 *     cancelled (`pool.close()`: those requests answer `unknown`/`cancelled`,
 *     so every accepted request gets an answer);
 *  4. idle connections close; the logs are flushed; the caller exits.
 * `exitOnTermination` wires the signals and adds the forced exit after
 * `timeoutMs`, whatever hangs.
 */
import type { Server } from 'node:http';
import type { Logger } from './logger.js';

/** The whole service's readiness when it runs several fronts: the primary's view (server/fronts/). */
export interface FrontsReadiness {
  /** Fronts running (not stopping, not exited). */
  fronts: number;
  /** Of those, the ones ready. */
  ready: number;
  /** The primary is shutting the service down. */
  stopping: boolean;
}

/**
 * Ready and stopping flags, read by `/readyz` and the shutdown gate; with
 * several fronts, also the service's readiness (`fronts`). A change of
 * `ready` or `stopping` calls the `onChange` listeners (a front reports it
 * to the primary).
 */
export class ServiceState {
  #ready = false;
  #stopping = false;
  readonly #listeners = new Set<() => void>();
  /** With several fronts: the service's readiness as the primary last told it; absent: this process is the service. */
  fronts?: () => FrontsReadiness;

  /** True once the pool is warm and the server listens; false again at shutdown. */
  get ready(): boolean {
    return this.#ready;
  }
  set ready(value: boolean) {
    if (value === this.#ready) return;
    this.#ready = value;
    for (const listener of this.#listeners) listener();
  }

  /** True from the first shutdown signal on. */
  get stopping(): boolean {
    return this.#stopping;
  }
  set stopping(value: boolean) {
    if (value === this.#stopping) return;
    this.#stopping = value;
    for (const listener of this.#listeners) listener();
  }

  /** Calls `listener` after each change of `ready` or `stopping`. */
  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }
}

/** What a shutdown hook is told. */
export interface ShutdownContext {
  /** The signal (or reason) that started the shutdown. */
  reason: string;
  /** `Date.now()` by which the process will have exited, forcibly if need be. */
  deadline: number;
  logger: Logger;
}

/**
 * A function run at shutdown, after the server stopped accepting and before
 * running solves are cancelled. It may return a promise; it is given until
 * the deadline. It must not throw (a throw is logged and ignored).
 */
export type ShutdownHook = (ctx: ShutdownContext) => void | Promise<void>;

/** The pool as the shutdown needs it. */
export interface DrainablePool {
  drain(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
  stats(): { inFlight: number };
}

/** Options of `gracefulShutdown`. */
export interface ShutdownOptions {
  reason: string;
  state: ServiceState;
  server: Pick<Server, 'close' | 'closeIdleConnections' | 'closeAllConnections'>;
  pool: DrainablePool;
  hooks: readonly ShutdownHook[];
  /**
   * How long the server keeps accepting connections (answering `/readyz` and
   * the API with 503) before the listener closes, ms; 0 = close at once.
   */
  readyDelayMs?: number;
  /** How long running solves may finish before they are cancelled, ms (counted after `readyDelayMs`). */
  drainMs: number;
  /** The whole shutdown's budget, ms (the caller forces the exit then). */
  timeoutMs: number;
  logger: Logger;
}

/**
 * Runs the shutdown described in the module comment. Resolves when
 * everything is closed (or when only open connections are left at the
 * deadline, which are then dropped).
 */
export async function gracefulShutdown(o: ShutdownOptions): Promise<void> {
  const started = Date.now();
  const deadline = started + o.timeoutMs;
  o.state.stopping = true;
  o.state.ready = false;
  const readyDelayMs = o.readyDelayMs ?? 0;
  o.logger.info({ reason: o.reason, inFlight: o.pool.stats().inFlight, readyDelayMs, drainMs: o.drainMs, timeoutMs: o.timeoutMs }, 'shutting down');
  // running solves go on meanwhile; only the listener waits
  if (readyDelayMs > 0) await new Promise((r) => setTimeout(r, readyDelayMs));

  const closed = new Promise<void>((resolve) => o.server.close(() => resolve()));
  // Connections idle now close at once; those serving a request close when it is answered.
  o.server.closeIdleConnections();
  const sweeper = setInterval(() => o.server.closeIdleConnections(), 50);

  try {
    const hooks = Promise.allSettled(
      o.hooks.map(async (hook) => {
        try {
          await hook({ reason: o.reason, deadline, logger: o.logger });
        } catch (err) {
          o.logger.error({ err }, 'shutdown hook failed');
        }
      }),
    );
    const drained = await o.pool.drain(o.drainMs);
    if (!drained) o.logger.warn({ inFlight: o.pool.stats().inFlight }, 'shutdown: cancelling the solves still running');
    await hooks;
    await o.pool.close();
    const left = Math.max(0, deadline - Date.now() - 100);
    const timedOut = await Promise.race([closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), left).unref())]);
    if (timedOut) {
      o.logger.warn('shutdown: dropping connections still open');
      o.server.closeAllConnections();
    }
    o.logger.info({ ms: Date.now() - started }, 'shut down');
  } finally {
    clearInterval(sweeper);
    o.logger.flush();
  }
}

/**
 * Wires SIGTERM and SIGINT to `stop` for a process that ends when it stops
 * (the service, a front, the batch worker). The first signal runs
 * `stop(signal)`; the process then exits with 0, or with 1 when `stop`
 * throws. A second signal, or `timeoutMs` (ms) passing after the first,
 * exits with 1 at once, whatever hangs. The logs are flushed before every
 * exit.
 *
 * @returns a function that starts the same shutdown without a signal (a
 *   front told to stop by its primary, `reason` e.g. "SIGTERM"): it counts as
 *   the first signal but not as a signal, so that a front that gets the
 *   primary's word and the signal itself (a terminal's Ctrl+C, systemd's
 *   SIGTERM to the whole group) drains once instead of exiting at once.
 */
export function exitOnTermination(
  stop: (reason: string) => Promise<void>,
  options: { timeoutMs: number; logger: Logger },
): (reason: string) => void {
  const { timeoutMs, logger } = options;
  let stopping = false;
  let signalled = false;
  const exit = (code: number): never => {
    logger.flush();
    process.exit(code);
  };
  const begin = async (reason: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown took too long: exiting');
      exit(1);
    }, timeoutMs).unref();
    try {
      await stop(reason);
      exit(0);
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      exit(1);
    }
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.error({ signal }, 'second signal: exiting now');
      exit(1);
    }
    signalled = true;
    void begin(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return (reason) => void begin(reason);
}
