/**
 * One HTTP front of the service: the JSON logger, the metrics, the engine
 * module compiled once, the worker pool (warmed up before `/readyz` says
 * ready), the batches, the HTTP server with its operations layer
 * (`service.ts`). `main.ts` runs one in its own process when `FRONTS` is 1,
 * else one in each process the primary forks (server/fronts/primary.ts),
 * with its share of the threads and a `FrontLink` to the primary: batches
 * of the embedded backend are then run by the batch front alone (the others
 * pass their calls on), `/metrics` is the whole service's, the rate limits
 * are counted in the primary, `/readyz` waits for every front.
 *
 * Shutdown on SIGTERM/SIGINT, or the primary's word (`lifecycle.ts`
 * `gracefulShutdown`): not ready, stop accepting, run the `onShutdown`
 * hooks, let running solves finish for `SHUTDOWN_DRAIN_MS` and cancel the
 * rest (they are answered), close, flush the logs, exit 0. An unref'd timer
 * forces the exit (status 1) after `SHUTDOWN_TIMEOUT_MS` if something hangs;
 * a second signal exits at once.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { resolveDeal } from '../client-sdk/api/request.js';
import { BATCH_FRONT, type ServiceConfig } from './config.js';
import { exitOnTermination, gracefulShutdown, ServiceState, type ShutdownHook } from './lifecycle.js';
import { createLogger, exitOnListenFault, exitOnStartupFault, logProcessFaults } from './logger.js';
import { createMetrics } from './metrics.js';
import type { BatchBackend } from './batches/backend.js';
import { redactUrl, RedisBatchBackend } from './batches/redis/backend.js';
import { registerQueueMetrics } from './batches/redis/metrics.js';
import { createBatchService } from './batches/embedded/service.js';
import { FrontLink, RemoteBatches } from './fronts/front-link.js';
import { FrontsRateLimitStore } from './fronts/rate-limit.js';
import { BATCH_SOLVE, type PoolStats, type SolverPool } from './pool.js';
import { createServicePool } from './service-pool.js';
import { createServiceApp, serviceServer } from './service.js';
import { securityHeaderValues } from './middleware/security.js';

/**
 * Starts a front with `config` (its share: config.ts `frontConfig`).
 * @param front with several fronts, this front's number and count (the
 *   primary's `FRONT_INDEX`); absent: the only one, no primary.
 */
export async function startFront(config: ServiceConfig, front?: { index: number; count: number }): Promise<void> {
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
  const onShutdown: ShutdownHook[] = [];

  const base = createLogger({ level: config.logLevel });
  const logger = front ? base.child({ front: front.index }) : base;
  logProcessFaults(logger);
  const link = front ? new FrontLink(front.index, front.count, logger) : undefined;
  const state = new ServiceState();
  link?.watch(state);
  let pool: SolverPool | undefined;
  const metrics = createMetrics({ poolStats: () => pool?.stats(), ...(link ? { render: () => link.call('metrics') as Promise<string> } : {}) });
  link?.shareMetrics(metrics.registry);

  pool = await createServicePool(config, metrics, logger, config.maxQueue);
  const solverPool = pool;
  link?.shareStats(() => solverPool.stats());

  /** Batch analysis on the configured backend (`BATCH_BACKEND`). */
  async function openBatches(): Promise<BatchBackend> {
    if (config.batch.backend === 'redis') {
      // Batch state in Redis, deals run by `npm run worker` processes; this process only enqueues and reads.
      const { url, prefix, chunkDeals, censusChunkDeals } = config.batch.redis;
      const { maxDeals, quotas, retentionMs } = config.batch;
      let backend: RedisBatchBackend;
      try {
        backend = await RedisBatchBackend.open({ url, prefix, chunkDeals, censusChunkDeals, limits: config.limits, maxDeals, quotas, retentionMs, log: logger });
      } catch (err) {
        exitOnStartupFault(logger, `REDIS_URL ${redactUrl(url)}: cannot open the redis batch backend`, err);
      }
      registerQueueMetrics(metrics.registry, backend);
      logger.info({ backend: 'redis', redis: redactUrl(url), prefix, chunkDeals }, 'batches');
      onShutdown.push(() => backend.close());
      return backend;
    }
    if (link && link.index !== BATCH_FRONT) {
      // Embedded, several fronts: the batch front runs and stores every batch; this one passes the calls on.
      const remote = new RemoteBatches(link);
      onShutdown.push(() => remote.close());
      return remote;
    }
    // Embedded: resumes the batches left running by the last process.
    let service: ReturnType<typeof createBatchService>;
    try {
      service = createBatchService({
        dbPath: config.batch.dbPath,
        pool: {
          solve: (deal, limits, signal) => solverPool.solve(deal, limits, signal, BATCH_SOLVE),
          solveBatch: (source, limits, signal) => solverPool.solveBatch(source, limits, signal),
          solveCensus: (source, limits, signal) => solverPool.solveCensus(source, limits, signal),
        },
        concurrency: config.batch.concurrency,
        limits: config.limits,
        maxDeals: config.batch.maxDeals,
        quotas: config.batch.quotas,
        retentionMs: config.batch.retentionMs,
        onError: (message, err) => logger.error({ err }, message),
      });
    } catch (err) {
      exitOnStartupFault(logger, `BATCH_DB_PATH ${config.batch.dbPath}: cannot open the batch database`, err);
    }
    logger.info({ db: config.batch.dbPath, resumed: service.store.running().length }, 'batches');
    link?.serveBatches(service);
    // Stop starting batch deals; those running may finish (and be stored) while the pool drains.
    onShutdown.push(() => service.close(config.shutdownDrainMs));
    return service;
  }
  const batches = await openBatches();

  const securityHeaders = await securityHeaderValues();
  const app = createServiceApp({
    solve: solverPool.solve,
    solveRequest: (job, signal) => solverPool.solveRequest(job, signal),
    logger,
    metrics,
    state,
    // several fronts: /healthz and /readyz show the whole service's pool
    poolStats: link ? () => link.call('stats') as Promise<PoolStats> : () => solverPool.stats(),
    shed: (priority) => !solverPool.admits(priority),
    config,
    ...(link ? { front, rateLimitStore: new FrontsRateLimitStore(link) } : {}),
    app: { batches, parallelism: config.threads },
    securityHeaders,
  });

  // Node checks request and header deadlines every connectionsCheckingInterval
  // (30 s by default, which let a slow client hold a connection up to twice
  // REQUEST_TIMEOUT_MS); once a second keeps them within a second.
  const serverOptions = { connectionsCheckingInterval: 1000 };
  // this front's requests that its pool would refuse are answered 503 before they are read (server/refusal.ts)
  const createServer = await serviceServer({ admits: (cls) => solverPool.admits(cls), logger, metrics, config, securityHeaders });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host, serverOptions, createServer }, (info: AddressInfo) => {
    logger.info(
      {
        address: info.address,
        port: info.port,
        ...(front ? { fronts: front.count } : {}),
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

  const stop = exitOnTermination(
    (reason) =>
      gracefulShutdown({
        reason,
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
  link?.onShutdown(stop);
}
