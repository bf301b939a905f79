/**
 * The service's HTTP app with its operations layer: `createApp` (routes)
 * plus request ids, JSON logs, metrics, secure headers, CORS, API keys and
 * rate limits, `/metrics` and `/readyz` (`server/middleware/`).
 *
 * `main.ts` builds the production service with it; tests build the same app
 * around a fake or fixture solve.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { SolverError } from '../client-sdk/core/errors.js';
import { createApp, type AppDeps } from './app.js';
import type { ServiceConfig } from './config.js';
import type { ServiceState } from './lifecycle.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { admission, operations } from './middleware/index.js';
import type { Cancellation, PoolStats, RequestJob, SolveFn, WireResponse } from './pool.js';

/** What `createServiceApp` needs. */
export interface ServiceAppDeps {
  solve: SolveFn;
  /** `pool.solveRequest`: `POST /v1/solve` and `/v1/proofs` answered with the bytes a worker built (`AppDeps.solveRequest`). */
  solveRequest?: (job: RequestJob, signal?: Cancellation) => Promise<WireResponse>;
  logger: Logger;
  metrics?: Metrics;
  state?: ServiceState;
  poolStats?: () => PoolStats;
  /**
   * True when a solve would be refused now (`pool.isFull()`): a solve request
   * is then answered 503 `overloaded` once it has been validated (bad input
   * still gets its 4xx), before any solve is submitted (`admission`).
   */
  shed?: () => boolean;
  /** Configuration; the fields absent take the app's defaults and no security options. */
  config?: Partial<Pick<ServiceConfig, 'bodyLimitBytes' | 'limits' | 'apiKeys' | 'rateLimit' | 'corsOrigins' | 'metricsToken'>>;
  /** Passed on to `createApp` (e.g. `webRoot`). */
  app?: Partial<Pick<AppDeps, 'webRoot' | 'batches' | 'parallelism'>>;
}

/** Builds the service's app; see the module comment. */
export function createServiceApp(deps: ServiceAppDeps): OpenAPIHono {
  const { logger, config = {} } = deps;
  return createApp({
    ...deps.app,
    solve: deps.solve,
    ...(deps.solveRequest ? { solveRequest: deps.solveRequest } : {}),
    ...(deps.shed ? { admit: admission(deps.shed, deps.metrics) } : {}),
    config: { bodyLimitBytes: config.bodyLimitBytes, limits: config.limits },
    health: deps.poolStats ? () => ({ pool: deps.poolStats!() }) : undefined,
    // A 503 (overloaded, stopping) is expected under load: the access log's
    // warn line records it; a stack per refusal would only cost time.
    logError: (message, err) => {
      if (!(err instanceof SolverError && err.status === 503)) logger.error({ err }, message);
    },
    operations: operations({
      logger,
      metrics: deps.metrics,
      state: deps.state,
      poolStats: deps.poolStats,
      apiKeys: config.apiKeys,
      rateLimit: config.rateLimit,
      corsOrigins: config.corsOrigins,
      metricsToken: config.metricsToken,
    }),
  });
}
