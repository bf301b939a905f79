/**
 * The primary process of a service with several HTTP fronts (`FRONTS` > 1):
 * node:cluster forks `FRONTS` copies of the service (server/front.ts), each
 * with its share of the solver threads (config.ts `frontConfig`); they all
 * listen on `PORT`, and the primary, which holds the listening socket, hands
 * each new connection to the next front in turn (cluster's round robin).
 * Why node:cluster rather than processes sharing the port through
 * SO_REUSEPORT: Node 20 cannot set SO_REUSEPORT (`reusePort` came in Node
 * 22.12), and cluster brings the channel the fronts need to share one
 * service: docs/operations.md "Several fronts".
 *
 * The primary serves no HTTP and solves nothing. It
 * - relays the fronts' batch calls to the batch front (`BATCH_FRONT`, which
 *   alone runs the embedded batches), and the batch front's news back;
 * - answers `/metrics` for the whole service: every front's metrics,
 *   summed by prom-client's `AggregatorRegistry.aggregate` (a front that does
 *   not answer within a second is left out, and `service_fronts_scraped`
 *   says how many were summed);
 * - keeps the per-key rate limits' counts for every front (rate-limit.ts);
 * - tells every front the service's readiness (all fronts ready);
 * - restarts a front that dies after it was ready (a front that dies
 *   before, or more than `MAX_RESTARTS` times a minute, stops the service:
 *   a fault of the start, such as the port in use, would only repeat);
 * - on SIGTERM/SIGINT tells every front to shut down (each drains its own
 *   requests and pool: lifecycle.ts), waits for them and exits 0 (1 if a
 *   front did not exit cleanly); a second signal, or `SHUTDOWN_TIMEOUT_MS`
 *   plus a second, kills what is left and exits 1.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, Gauge, Registry } from 'prom-client';
import { SolverError } from '../../client-sdk/core/errors.js';
import { BATCH_FRONT, type ServiceConfig } from '../config.js';
import type { FrontsReadiness } from '../lifecycle.js';
import { createLogger, logProcessFaults } from '../logger.js';
import { answer, CHANNEL, isOurs, PendingCalls, type FrontMessage, type FrontOp, type PrimaryMessage } from './protocol.js';
import { sharedRateLimitStore } from './rate-limit.js';

/** The environment variable that tells a forked front its number. */
export const FRONT_INDEX_VAR = 'FRONT_INDEX';

/** Most restarts of one front within a minute before the service stops. */
const MAX_RESTARTS = 3;
/** How long the batch front may take to answer a relayed call, ms. */
const BATCH_CALL_TIMEOUT_MS = 25_000;
/** How long a front may take to give its metrics, ms. */
const METRICS_TIMEOUT_MS = 1000;

interface Front {
  index: number;
  worker: Worker;
  /** True once its channel is up (its first `state`): it can answer calls. */
  linked: boolean;
  ready: boolean;
  stopping: boolean;
  everReady: boolean;
  /** Calls the primary relayed to this front and awaits. */
  calls: PendingCalls;
  /** Restart times within the last minute. */
  restarts: number[];
}

/** Starts the primary; the process then lives until it exits (see the module comment). */
export function runPrimary(config: ServiceConfig): void {
  const logger = createLogger({ level: config.logLevel }).child({ role: 'primary' });
  logProcessFaults(logger);
  cluster.setupPrimary({ serialization: 'advanced' });
  // the primary's own numbers: how many fronts a scrape summed
  const own = new Registry();
  const scraped = new Gauge({ name: 'service_fronts_scraped', help: 'Fronts whose metrics the last /metrics summed (of service_fronts).', registers: [own], aggregator: 'first' });
  new Gauge({ name: 'service_fronts', help: 'HTTP front processes of the service (FRONTS).', registers: [own], aggregator: 'first' }).set(config.fronts);
  const rate = sharedRateLimitStore(config.rateLimit.windowMs);
  const fronts: (Front | undefined)[] = new Array(config.fronts);
  /** Batch subscriptions of the fronts, `front:sub` → batch id (sent again to a new batch front). */
  const subscriptions = new Map<string, { front: number; sub: number; batch: string }>();
  let stopping = false;
  let failed = false;

  const send = (front: Front | undefined, message: PrimaryMessage) => {
    // a channel closing meanwhile loses the message (the front is going; its exit is handled below)
    if (front?.worker.isConnected()) front.worker.send(message, undefined, undefined, () => {});
  };
  const readiness = (): FrontsReadiness => {
    const live = fronts.filter((f): f is Front => f !== undefined && !f.stopping);
    return { fronts: live.length, ready: live.filter((f) => f.ready).length, stopping };
  };
  let wasReady = false;
  const broadcast = () => {
    const view = readiness();
    for (const front of fronts) send(front, { channel: CHANNEL, t: 'service', ...view });
    const ready = !stopping && view.fronts === config.fronts && view.ready === view.fronts;
    if (ready !== wasReady) {
      wasReady = ready;
      if (ready) logger.info({ fronts: config.fronts }, 'service ready');
    }
  };

  const start = (index: number, restarts: number[] = []) => {
    const worker = cluster.fork({ [FRONT_INDEX_VAR]: String(index) });
    const front: Front = { index, worker, linked: false, ready: false, stopping: false, everReady: false, calls: new PendingCalls(), restarts };
    fronts[index] = front;
    worker.on('message', (message: unknown) => {
      if (isOurs(message)) void receive(front, message as FrontMessage);
    });
    worker.on('exit', (code, signal) => onExit(front, code, signal));
  };

  const receive = async (front: Front, message: FrontMessage): Promise<void> => {
    switch (message.t) {
      case 'state': {
        front.linked = true;
        // a front that was starting when the shutdown began missed the word: tell it again
        if (stopping && !message.stopping) send(front, { channel: CHANNEL, t: 'shutdown', reason: 'the service is shutting down' });
        const firstReady = message.ready && !front.everReady;
        front.ready = message.ready;
        front.everReady ||= message.ready;
        front.stopping = message.stopping;
        broadcast();
        if (firstReady && front.index === BATCH_FRONT) {
          // a new batch front, its backend open: the other fronts' result streams subscribe (again)
          for (const s of subscriptions.values()) send(front, { channel: CHANNEL, t: 'subscribe', ...s });
        }
        return;
      }
      case 'reply':
        front.calls.settle(message);
        return;
      case 'subscribe':
      case 'unsubscribe': {
        const key = `${front.index}:${message.sub}`;
        if (message.t === 'subscribe') subscriptions.set(key, { front: front.index, sub: message.sub, batch: message.batch });
        else subscriptions.delete(key);
        send(fronts[BATCH_FRONT], { ...message, front: front.index });
        return;
      }
      case 'notify':
        send(fronts[message.front], { channel: CHANNEL, t: 'notify', sub: message.sub });
        return;
      case 'call': {
        const { op, args } = message;
        const reply = await answer(message.id, () => {
          if (op === 'metrics') return serviceMetrics();
          if (op === 'stats') return serviceStats();
          if (op === 'rate') return rate(args);
          return relayBatchCall(args);
        });
        send(front, reply);
        return;
      }
    }
  };

  /** Calls `op` of `front` (protocol.ts); rejects with `late()` after `timeoutMs`. */
  const callFront = (front: Front, op: FrontOp, args: unknown[], timeoutMs: number, late: () => Error): Promise<unknown> => {
    const { id, answer: reply } = front.calls.start(timeoutMs, late);
    send(front, { channel: CHANNEL, t: 'call', id, op, args });
    return reply;
  };

  /** The fronts' pool numbers: numbers summed, flags true when any front's is (`closing`). */
  const serviceStats = async (): Promise<Record<string, number | boolean>> => {
    const sum: Record<string, number | boolean> = {};
    for (const stats of (await gather('stats')) as Record<string, unknown>[]) {
      for (const [key, value] of Object.entries(stats)) {
        if (typeof value === 'number') sum[key] = ((sum[key] as number | undefined) ?? 0) + value;
        else if (typeof value === 'boolean') sum[key] = sum[key] === true || value;
      }
    }
    return sum;
  };

  const relayBatchCall = (args: unknown[]): Promise<unknown> => {
    const owner = fronts[BATCH_FRONT];
    // ready: its batch backend is open (it opens before the pool warms up)
    if (!owner?.ready || !owner.worker.isConnected()) {
      return Promise.reject(new SolverError('overloaded', owner?.stopping ? 'the batch service is stopping; retry later' : 'the batch service is starting; retry later'));
    }
    return callFront(owner, 'batch', args, BATCH_CALL_TIMEOUT_MS, () => new SolverError('overloaded', 'the batch service did not answer in time; retry later'));
  };

  /** `op` of every linked front, the answers of those that gave one within `METRICS_TIMEOUT_MS`. */
  const gather = async (op: FrontOp): Promise<unknown[]> => {
    const asked = fronts.filter((f): f is Front => f !== undefined && f.linked);
    const answers = await Promise.allSettled(asked.map((f) => callFront(f, op, [], METRICS_TIMEOUT_MS, () => new Error(`front ${f.index}: no ${op} in time`))));
    return answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
  };

  /** Every linked front's metrics, summed (prom-client's cluster aggregation), with how many fronts answered. */
  const serviceMetrics = async (): Promise<string> => {
    const parts = (await gather('metrics')) as object[];
    scraped.set(parts.length);
    parts.push(await own.getMetricsAsJSON());
    return AggregatorRegistry.aggregate(parts).metrics();
  };

  const onExit = (front: Front, code: number | null, signal: string | null) => {
    if (fronts[front.index] !== front) return;
    fronts[front.index] = undefined;
    front.calls.failAll(() => new SolverError('overloaded', 'the batch service stopped; retry later'));
    for (const [key, s] of subscriptions) {
      if (s.front === front.index) {
        subscriptions.delete(key);
        send(fronts[BATCH_FRONT], { channel: CHANNEL, t: 'unsubscribe', front: s.front, sub: s.sub });
      }
    }
    if (stopping) {
      if (code !== 0) failed = true;
      logger.info({ front: front.index, code, signal }, 'front exited');
      if (fronts.every((f) => f === undefined)) exit(failed ? 1 : 0);
      return;
    }
    broadcast();
    const now = Date.now();
    const restarts = [...front.restarts.filter((t) => now - t < 60_000), now];
    if (!front.everReady || restarts.length > MAX_RESTARTS) {
      logger.fatal(
        { front: front.index, code, signal },
        front.everReady ? `a front exited ${restarts.length} times within a minute: stopping the service` : 'a front exited before it was ready: stopping the service',
      );
      failed = true;
      shutdown('front failure');
      if (fronts.every((f) => f === undefined)) exit(1);
      return;
    }
    logger.error({ front: front.index, code, signal }, 'a front exited: starting another');
    start(front.index, restarts);
  };

  const exit = (code: number): never => {
    logger.info({ code }, 'shut down');
    logger.flush();
    process.exit(code);
  };

  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, fronts: fronts.filter(Boolean).length }, 'shutting down');
    broadcast();
    for (const front of fronts) send(front, { channel: CHANNEL, t: 'shutdown', reason });
    setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'fronts still running after the shutdown timeout: killing them');
      killAll();
      exit(1);
    }, config.shutdownTimeoutMs + 1000).unref();
  };
  const killAll = () => {
    for (const front of fronts) front?.worker.process.kill('SIGKILL');
  };

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.error({ signal }, 'second signal: killing the fronts and exiting now');
      killAll();
      exit(1);
    }
    signalled = true;
    shutdown(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  logger.info({ fronts: config.fronts, threads: config.threads, maxQueue: config.maxQueue }, 'starting the fronts');
  for (let i = 0; i < config.fronts; i++) start(i);
}

