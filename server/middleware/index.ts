/**
 * The operations layer around the API, installed by `createApp` (through
 * `AppDeps.operations`) before any route, so that it wraps every route,
 * the batch routes and the web page included. In order:
 *
 *  1. request id, access log, HTTP metrics (`request-log.ts`);
 *  2. secure headers on every answer; CORS where configured (`security.ts`);
 *  3. `GET /metrics` (Prometheus; bearer `METRICS_TOKEN` when set; with
 *     several fronts the whole service's, `Metrics.render`) and `GET
 *     /readyz` (200 when warm and not stopping, and with several fronts when
 *     every front is: `ServiceState.fronts`; else 503);
 *  4. on `/v1/*`: the shutdown gate (503 `overloaded` + `Connection: close`
 *     once stopping), then API keys and per-key rate limits when keys are
 *     configured (`api-keys.ts`).
 *
 * Load shedding is not a middleware: `admission` builds the check that the
 * solve routes call once their request is parsed and validated (so that bad
 * input keeps its 4xx under overload) and before any solve is submitted.
 *
 * `/healthz` (liveness) stays open and answers 200 as long as the process
 * serves HTTP.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { HTTPException } from 'hono/http-exception';
import type { Store } from 'hono-rate-limiter';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { ApiKey } from '../config.js';
import type { ServiceState } from '../lifecycle.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { PoolStats, SolvePriority } from '../pool.js';
import { apiKeys } from './api-keys.js';
import { requestLog } from './request-log.js';
import { corsFor, securityHeaders } from './security.js';

/** Options of `operations`. */
export interface OperationsOptions {
  logger: Logger;
  metrics?: Metrics;
  state?: ServiceState;
  /** Pool numbers for `/readyz`, now or later. */
  poolStats?: () => PoolStats | Promise<PoolStats>;
  /** With several fronts: this one's number and their count, for `/readyz`. */
  front?: { index: number; count: number };
  apiKeys?: ApiKey[];
  rateLimit?: { max: number; windowMs: number };
  /** Where the rate limits' counts are kept; default this process's memory (`api-keys.ts`). */
  rateLimitStore?: Store;
  corsOrigins?: '*' | string[] | null;
  metricsToken?: string | null;
  /** The secure headers' values (`securityHeaderValues`), set on Node's response of each request (`securityHeaders`); absent: hono's middleware adds them to each answer. */
  securityHeaders?: Readonly<Record<string, string>>;
}

/**
 * The admission check of the solve routes (`AppDeps.admit`): refuses a
 * request when `shed(priority)` says the pool would refuse its work now
 * (`!SolverPool.admits(priority)`: the class's queue full, or an
 * interactive solve bound to wait too long), counting the refusal in
 * `solver_failures_total{code="overloaded"}`. Costs one call of `shed`; the
 * routes call it after validating their request, before any solve.
 * @param shed true when work of that class submitted now would be refused.
 * @param metrics where refusals are counted; absent: not counted.
 * @returns a function that returns when admitted.
 * @throws (the returned function) SolverError `overloaded` (503, with
 *   `Retry-After` set by the app's error handler) when shedding.
 */
export function admission(shed: (priority: SolvePriority) => boolean, metrics?: Pick<Metrics, 'observeRefusal'>): (priority: SolvePriority) => void {
  return (priority) => {
    if (!shed(priority)) return;
    metrics?.observeRefusal('overloaded');
    throw new SolverError('overloaded', 'the solver is busy (every worker busy and the queue full); retry later');
  };
}

/** The installer of the operations layer; see the module comment. */
export function operations(options: OperationsOptions): (app: OpenAPIHono) => void {
  return (app) => {
    app.use('*', requestLog({ logger: options.logger, metrics: options.metrics }));
    app.use('*', securityHeaders(options.securityHeaders));
    const cors = corsFor(options.corsOrigins ?? null);
    if (cors) {
      app.use('/v1/*', cors);
      app.use('/openapi.json', cors);
    }

    if (options.metrics) {
      const metrics = options.metrics;
      if (options.metricsToken) app.use('/metrics', unauthorizedAsError(bearerAuth({ token: options.metricsToken })));
      app.get('/metrics', async (c) => {
        c.header('Content-Type', metrics.contentType);
        c.header('Cache-Control', 'no-store');
        return c.body(await metrics.render());
      });
    }

    app.get('/readyz', async (c) => {
      const state = options.state;
      const pool = await options.poolStats?.();
      const fronts = state?.fronts?.();
      const stopping = (state?.stopping ?? false) || (fronts?.stopping ?? false);
      const ready =
        (state?.ready ?? true) && !stopping && (pool === undefined || pool.threads > 0) && (fronts === undefined || (fronts.fronts > 0 && fronts.ready === fronts.fronts));
      const status = stopping ? 'stopping' : ready ? 'ready' : 'starting';
      c.header('Cache-Control', 'no-store');
      const front = options.front;
      return c.json(
        { status, ...(pool ? { pool } : {}), ...(front ? { front } : {}), ...(fronts ? { fronts: { running: fronts.fronts, ready: fronts.ready } } : {}) },
        ready ? 200 : 503,
      );
    });

    const state = options.state;
    if (state) {
      app.use('/v1/*', async (c, next) => {
        if (state.stopping) {
          c.header('Connection', 'close');
          throw new SolverError('overloaded', 'the service is shutting down; retry on another instance');
        }
        await next();
      });
    }
    if (options.apiKeys && options.apiKeys.length > 0) {
      app.use('/v1/*', ...apiKeys({ keys: options.apiKeys, rateLimit: options.rateLimit, store: options.rateLimitStore }));
    }
  };
}

/** Turns a bearer-auth failure into the API's `unauthorized` error. */
function unauthorizedAsError(auth: MiddlewareHandler): MiddlewareHandler {
  return async (c, next) => {
    let failed = false;
    await auth(c, next).catch((err: unknown) => {
      if (!(err instanceof HTTPException)) throw err;
      const challenge = err.getResponse().headers.get('WWW-Authenticate');
      if (challenge) c.header('WWW-Authenticate', challenge);
      failed = true;
    });
    if (failed) throw new SolverError('unauthorized', 'GET /metrics needs the metrics token: send Authorization: Bearer <token>');
  };
}
