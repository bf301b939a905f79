/**
 * Starts the service: configuration from the environment (`config.ts`), the
 * JSON logger, the metrics, the engine module compiled once, the worker pool
 * (warmed up before `/readyz` says ready), the HTTP server with its
 * operations layer (`service.ts`).
 *
 * Shutdown on SIGTERM/SIGINT (`lifecycle.ts` `gracefulShutdown`): not ready,
 * stop accepting, run the `onShutdown` hooks, let running solves finish for
 * `SHUTDOWN_DRAIN_MS` and cancel the rest (they are answered), close, flush
 * the logs, exit 0. An unref'd timer forces the exit (status 1) after
 * `SHUTDOWN_TIMEOUT_MS` if something hangs; a second signal exits at once.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { resolveDeal } from '../client-sdk/api/request.js';
import { loadConfigOrExit } from './config.js';
import { exitOnTermination, gracefulShutdown, ServiceState, type ShutdownHook } from './lifecycle.js';
import { createLogger, exitOnListenFault, exitOnStartupFault, logProcessFaults } from './logger.js';
import { createMetrics } from './metrics.js';
import type { BatchBackend } from './batches/backend.js';
import { redactUrl, RedisBatchBackend } from './batches/redis/backend.js';
import { registerQueueMetrics } from './batches/redis/metrics.js';
import { createBatchService } from './batches/embedded/service.js';
import type { SolverPool } from './pool.js';
import { BATCH_SOLVE, createServicePool } from './service-pool.js';
import { createServiceApp, serviceServer } from './service.js';

/**
 * Shutdown hooks: run after the server stopped accepting and before running
 * solves are cancelled, each given the time left (`ShutdownContext.deadline`).
 * Register with `onShutdown.push(async ({ deadline, logger }) => { ... })`
 * where the component is wired below.
 *
 * For batch work (the batch backends): the hook should stop submitting new solves to
 * the pool, wait for or record the ones in flight, and persist what is not
 * done, so that no accepted batch work is lost. Solves still running when
 * `SHUTDOWN_DRAIN_MS` is over are cancelled: they resolve `unknown` with
 * reason `cancelled`, which a batch must treat as "not done", not as a result.
 */
export const onShutdown: ShutdownHook[] = [];

const config = loadConfigOrExit();

const logger = createLogger({ level: config.logLevel });
const state = new ServiceState();
let pool: SolverPool | undefined;
const metrics = createMetrics({ poolStats: () => pool?.stats() });

logProcessFaults(logger);

pool = await createServicePool(config, metrics, logger, config.maxQueue);
const solverPool = pool;

/** Batch analysis on the configured backend (`BATCH_BACKEND`). */
async function openBatches(): Promise<BatchBackend> {
  if (config.batch.backend === 'redis') {
    // Batch state in Redis, deals run by `npm run worker` processes; this process only enqueues and reads.
    const { url, prefix, chunkDeals } = config.batch.redis;
    let backend: RedisBatchBackend;
    try {
      backend = await RedisBatchBackend.open({ url, prefix, chunkDeals, limits: config.limits, maxDeals: config.batch.maxDeals, log: logger });
    } catch (err) {
      exitOnStartupFault(logger, `REDIS_URL ${redactUrl(url)}: cannot open the redis batch backend`, err);
    }
    registerQueueMetrics(metrics.registry, backend);
    logger.info({ backend: 'redis', redis: redactUrl(url), prefix, chunkDeals }, 'batches');
    onShutdown.push(() => backend.close());
    return backend;
  }
  // Embedded: resumes the batches left running by the last process.
  let service: ReturnType<typeof createBatchService>;
  try {
    service = createBatchService({
      dbPath: config.batch.dbPath,
      pool: { solve: (deal, limits, signal) => solverPool.solve(deal, limits, signal, BATCH_SOLVE), solveBatch: (source, limits, signal) => solverPool.solveBatch(source, limits, signal) },
      concurrency: config.batch.concurrency,
      limits: config.limits,
      maxDeals: config.batch.maxDeals,
      onError: (message, err) => logger.error({ err }, message),
    });
  } catch (err) {
    exitOnStartupFault(logger, `BATCH_DB_PATH ${config.batch.dbPath}: cannot open the batch database`, err);
  }
  logger.info({ db: config.batch.dbPath, resumed: service.store.running().length }, 'batches');
  // Stop starting batch deals; those running may finish (and be stored) while the pool drains.
  onShutdown.push(() => service.close(config.shutdownDrainMs));
  return service;
}
const batches = await openBatches();

const app = createServiceApp({
  solve: solverPool.solve,
  solveRequest: (job, signal) => solverPool.solveRequest(job, signal),
  logger,
  metrics,
  state,
  poolStats: () => solverPool.stats(),
  shed: (priority) => !solverPool.admits(priority),
  config,
  app: { batches, parallelism: config.threads },
});

// Node checks request and header deadlines every connectionsCheckingInterval
// (30 s by default, which let a slow client hold a connection up to twice
// REQUEST_TIMEOUT_MS); once a second keeps them within a second.
const serverOptions = { connectionsCheckingInterval: 1000 };
// a request the pool would refuse is answered 503 before it is read (server/refusal.ts)
const createServer = await serviceServer({ admits: (cls) => solverPool.admits(cls), logger, metrics, config });
const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host, serverOptions, createServer }, (info: AddressInfo) => {
  logger.info(
    {
      address: info.address,
      port: info.port,
      threads: config.threads,
      maxQueue: config.maxQueue,
      maxMemoryMb: config.memoryLimitBytes / 2 ** 20,
      apiKeys: config.apiKeys.length,
      rateLimit: config.apiKeys.length > 0 ? config.rateLimit : null,
      cors: config.corsOrigins,
    },
    'listening',
  );
}) as Server;
exitOnListenFault(server, logger, `PORT ${config.port} on HOST ${config.host}`);
// Slow or stalled clients may not hold a connection forever.
server.requestTimeout = config.requestTimeoutMs;
server.headersTimeout = Math.min(config.requestTimeoutMs, 20_000);

// Ready once every worker has its engine instantiated.
void solverPool.warmUp(resolveDeal({ game: 'freecell', deal: 1 })).then(() => {
  if (!state.stopping) state.ready = true;
  logger.info({ pool: solverPool.stats() }, 'ready');
});

exitOnTermination(
  (signal) =>
    gracefulShutdown({
      reason: signal,
      state,
      server,
      pool: solverPool,
      hooks: onShutdown,
      readyDelayMs: config.shutdownReadyDelayMs,
      drainMs: config.shutdownDrainMs,
      timeoutMs: config.shutdownTimeoutMs,
      logger,
    }),
  { timeoutMs: config.shutdownTimeoutMs, logger },
);
