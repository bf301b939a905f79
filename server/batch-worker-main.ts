/**
 * `npm run worker`: a batch worker of the `redis` backend. It runs the deals
 * of the batches that the API servers enqueue in BullMQ, on a solver pool of
 * its own (server/pool.ts, THREADS threads, default one per core), and
 * stores their results in Redis (server/batches/redis/consumer.ts). Start any
 * number of them, on any machine that reaches `REDIS_URL`.
 *
 * Configuration: the service's variables (config.ts) that apply: `REDIS_URL`,
 * `REDIS_PREFIX`, `THREADS`, `MAX_MEMORY_MB`, `STOP_GRACE_MS`,
 * `WORKER_CONCURRENCY`, `WORKER_LOCK_MS`, `WORKER_STALLED_INTERVAL_MS`,
 * `WORKER_NAME`, `WORKER_METRICS_PORT` (+ `HOST`, `METRICS_TOKEN`: its own
 * `GET /metrics` and `GET /healthz`), `SHUTDOWN_DRAIN_MS`,
 * `SHUTDOWN_TIMEOUT_MS`, `LOG_LEVEL`.
 *
 * SIGTERM/SIGINT: drain (no new job; running deals may finish for
 * `SHUTDOWN_DRAIN_MS` and are stored; jobs with deals left go back to the
 * queue), close the pool, exit 0. It exits 1 after `SHUTDOWN_TIMEOUT_MS`
 * whatever hangs; a second signal exits at once.
 */
import { createServer, type Server } from 'node:http';
import { resolveDeal } from '../client-sdk/api/request.js';
import { BatchConsumer } from './batches/redis/consumer.js';
import { registerWorkerMetrics } from './batches/redis/metrics.js';
import { redactUrl } from './batches/redis/backend.js';
import { loadConfigOrExit } from './config.js';
import { exitOnTermination } from './lifecycle.js';
import { createLogger, exitOnListenFault, exitOnStartupFault, logProcessFaults } from './logger.js';
import { createMetrics } from './metrics.js';
import { BATCH_SOLVE, type SolverPool } from './pool.js';
import { createServicePool } from './service-pool.js';

const config = loadConfigOrExit();

const logger = createLogger({ level: config.logLevel });
let pool: SolverPool | undefined;
const metrics = createMetrics({ poolStats: () => pool?.stats() });

logProcessFaults(logger);

const { url, prefix } = config.batch.redis;
pool = await createServicePool(config, metrics, logger, Math.max(4 * config.threads, config.worker.concurrency), false);
const solverPool = pool;
await solverPool.warmUp(resolveDeal({ game: 'freecell', deal: 1 }));

let consumer: BatchConsumer;
try {
  consumer = await BatchConsumer.start({
    url,
    prefix,
    solve: (deal, limits, signal) => solverPool.solve(deal, limits, signal, BATCH_SOLVE),
    solveBatch: (source, limits, signal) => solverPool.solveBatch(source, limits, signal),
    solveCensus: (source, limits, signal) => solverPool.solveCensus(source, limits, signal),
    threads: config.threads,
    concurrency: config.worker.concurrency,
    lockMs: config.worker.lockMs,
    stalledIntervalMs: config.worker.stalledIntervalMs,
    name: config.worker.name,
    log: logger,
  });
} catch (err) {
  await solverPool.close();
  exitOnStartupFault(logger, `REDIS_URL ${redactUrl(url)}: cannot start the batch worker`, err);
}
registerWorkerMetrics(metrics.registry, consumer);

let http: Server | undefined;
if (config.worker.metricsPort !== null) {
  const token = config.metricsToken;
  http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', worker: consumer.name, pool: solverPool.stats(), ...consumer.stats() }));
      return;
    }
    if (req.method === 'GET' && path === '/metrics') {
      if (token !== null && req.headers.authorization !== `Bearer ${token}`) {
        res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
        return;
      }
      metrics.render().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        (err: unknown) => {
          logger.error({ err }, 'metrics failed');
          res.writeHead(500).end();
        },
      );
      return;
    }
    res.writeHead(404).end();
  });
  exitOnListenFault(http, logger, `WORKER_METRICS_PORT ${config.worker.metricsPort} on HOST ${config.host}`);
  http.listen(config.worker.metricsPort, config.host);
}

logger.info(
  { worker: consumer.name, redis: redactUrl(url), prefix, threads: config.threads, concurrency: config.worker.concurrency, metricsPort: config.worker.metricsPort },
  'batch worker ready',
);

exitOnTermination(
  async (signal) => {
    const started = Date.now();
    logger.info({ signal, drainMs: config.shutdownDrainMs, ...consumer.stats() }, 'batch worker draining');
    await consumer.drain(config.shutdownDrainMs);
    await solverPool.close();
    http?.close();
    logger.info({ ms: Date.now() - started, ...consumer.stats() }, 'batch worker stopped');
  },
  { timeoutMs: config.shutdownTimeoutMs, logger },
);
