/**
 * The service's HTTP app with its operations layer: `createApp` (routes)
 * plus request ids, JSON logs, metrics, secure headers, CORS, API keys and
 * rate limits, `/metrics` and `/readyz` (`server/middleware/`).
 *
 * `main.ts` builds the production service with it; tests build the same app
 * around a fake or fixture solve.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Store } from 'hono-rate-limiter';
import { SolverError } from '../client-sdk/core/errors.js';
import { createServer, type RequestListener, type ServerOptions } from 'node:http';
import { createApp, RETRY_AFTER_SECONDS, type AppDeps } from './app.js';
import type { ServiceConfig } from './config.js';
import type { ServiceState } from './lifecycle.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { admission, operations } from './middleware/index.js';
import { securityHeaderValues } from './middleware/security.js';
import { refusingListener, type RefusalOptions } from './refusal.js';
import { clientErrorListener } from './client-errors.js';
import type { Cancellation, PoolStats, RequestJob, SolveFn, SolvePriority, WireResponse } from './pool.js';

/** What `createServiceApp` needs. */
export interface ServiceAppDeps {
  solve: SolveFn;
  /** `pool.solveRequest`: `POST /v1/solve` and `/v1/proofs` answered with the bytes a worker built (`AppDeps.solveRequest`). */
  solveRequest?: (job: RequestJob, signal?: Cancellation) => Promise<WireResponse>;
  logger: Logger;
  metrics?: Metrics;
  state?: ServiceState;
  /** The pool's numbers for `/healthz` and `/readyz`, now or later (several fronts: the sum over the fronts, from the primary). */
  poolStats?: () => PoolStats | Promise<PoolStats>;
  /**
   * True when work of a class would be refused now (`!pool.admits(priority)`):
   * a request that got past the refusal before its body is read
   * (server/refusal.ts) is then answered 503 `overloaded` once it has been
   * validated (bad input still gets its 4xx), before any solve is submitted
   * (`admission`).
   */
  shed?: (priority: SolvePriority) => boolean;
  /** Configuration; the fields absent take the app's defaults and no security options. */
  config?: Partial<Pick<ServiceConfig, 'bodyLimitBytes' | 'limits' | 'apiKeys' | 'rateLimit' | 'corsOrigins' | 'metricsToken'>>;
  /** With several fronts: this one's number and their count, shown by `/healthz` and `/readyz` (`front: {index, count}`). */
  front?: { index: number; count: number };
  /** Where the per-key rate limits' counts are kept; default this process's memory (server/middleware/api-keys.ts). */
  rateLimitStore?: Store;
  /** The secure headers' values (`securityHeaderValues`): set on Node's response of each request instead of added to each answer (`OperationsOptions.securityHeaders`). */
  securityHeaders?: Readonly<Record<string, string>>;
  /** Passed on to `createApp` (e.g. `webRoot`). */
  app?: Partial<Pick<AppDeps, 'webRoot' | 'batches' | 'parallelism'>>;
}

/** Options of `serviceServer`. */
export interface ServiceServerOptions {
  /** `SolverPool.admits`: whether work of a class would be accepted now. */
  admits: RefusalOptions['admits'];
  logger: Logger;
  metrics?: Metrics;
  config: Pick<ServiceConfig, 'bodyLimitBytes' | 'apiKeys'>;
  /** The secure headers a refusal carries; default `securityHeaderValues()`. */
  securityHeaders?: Readonly<Record<string, string>>;
}

/**
 * `createServer` for @hono/node-server's `serve`: Node's HTTP server with
 * the app's listener behind the refusal gate of server/refusal.ts (a 503
 * before the request is read when the pool would refuse its work), and
 * the faults of a connection below the app (bytes that are not HTTP, a
 * request past its deadline) answered with the API's JSON errors
 * (server/client-errors.ts) rather than Node's bare status lines.
 */
export async function serviceServer(options: ServiceServerOptions): Promise<typeof createServer> {
  const headers = options.securityHeaders ?? (await securityHeaderValues());
  return ((serverOptions: ServerOptions, listener: RequestListener) => {
    const server = createServer(
      serverOptions,
      refusingListener(listener, {
        admits: options.admits,
        bodyLimitBytes: options.config.bodyLimitBytes,
        retryAfterSeconds: RETRY_AFTER_SECONDS,
        headers,
        keys: options.config.apiKeys.length > 0,
        metrics: options.metrics,
        logger: options.logger,
      }),
    );
    server.on('clientError', clientErrorListener(server, { logger: options.logger, headers }));
    return server;
  }) as typeof createServer;
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
    health: deps.poolStats ? async () => ({ pool: await deps.poolStats!(), ...(deps.front ? { front: deps.front } : {}) }) : undefined,
    // A 503 (overloaded, stopping) is expected under load: the access log's
    // warn line records it; a stack per refusal would only cost time.
    logError: (message, err, context) => {
      if (!(err instanceof SolverError && err.status === 503)) logger.error({ ...context, err }, message);
    },
    operations: operations({
      logger,
      metrics: deps.metrics,
      state: deps.state,
      poolStats: deps.poolStats,
      front: deps.front,
      apiKeys: config.apiKeys,
      rateLimit: config.rateLimit,
      rateLimitStore: deps.rateLimitStore,
      corsOrigins: config.corsOrigins,
      metricsToken: config.metricsToken,
      securityHeaders: deps.securityHeaders,
    }),
  });
}
