/**
 * The solver pool of a service process, built from its configuration: the
 * API server (server/main.ts) and the BullMQ batch worker
 * (server/batch-worker-main.ts) both start theirs here, so that every pool setting
 * of docs/configuration.md (`THREADS`, `MEMORY_LIMIT_MB`,
 * `RECYCLE_MEMORY_MB`, `STOP_GRACE_MS`, `HELPER_PASS_AFTER_MS`,
 * `SOLVE_GROUP_MAX`) means the
 * same in both.
 */
import { loadEngineModule } from '../client-sdk/core/engine/index.js';
import type { ServiceConfig } from './config.js';
import { poolLog, type Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { createPool, type SolverPool } from './pool.js';

/**
 * Loads the engine module and starts a pool with `config`'s settings, its
 * recycles counted in `metrics` and logged, each settled solve observed.
 *
 * @param maxQueue solves that may wait for a worker (the API server: `MAX_QUEUE`;
 *   the batch worker: enough for its concurrency).
 * @param interactive the API server's pool: interactive solves wait at most
 *   `INTERACTIVE_WAIT_MS`, and its lane (one thread more) takes them while
 *   long searches hold every worker; the batch worker's has neither.
 * @throws what `loadEngineModule` and `createPool` throw (an engine file that
 *   does not compile, a setting out of range: RangeError).
 */
export async function createServicePool(
  config: ServiceConfig,
  metrics: Metrics,
  logger: Logger,
  maxQueue: number,
  interactive = true,
): Promise<SolverPool> {
  const lane = interactive && config.interactiveWaitMs > 0;
  return createPool({
    ...(lane ? { lane: true, startWaitMs: config.interactiveWaitMs } : {}),
    module: await loadEngineModule(),
    threads: config.threads,
    maxQueue,
    memoryLimitBytes: config.memoryLimitBytes,
    recycleMemoryBytes: config.recycleMemoryBytes,
    onRecycle: ({ threadId }) => {
      metrics.observeRecycle();
      logger.info(
        { threadId, recycleMemoryMb: config.recycleMemoryBytes / 2 ** 20 },
        'solver worker replaced: its engine memory grew past RECYCLE_MEMORY_MB',
      );
    },
    stopGraceMs: config.stopGraceMs,
    helperPassAfterMs: config.helperPassAfterMs,
    groupMax: config.groupMax,
    onSettled: metrics.observeSolve,
    log: poolLog(logger),
  });
}
