/**
 * Request ids, access logs and HTTP metrics, in one middleware that wraps
 * every request.
 *
 * - The request id is the client's `X-Request-Id` when it is a sane token
 *   (letters, digits, `_ - =`, at most 128 characters), else a fresh UUID;
 *   it is echoed in the `X-Request-Id` response header (set on Node's
 *   response when Node serves the request). With the API key's name it
 *   makes the request's log context (`requestContextOf`), whose fields the
 *   lines about the request carry: the access log line, the app's error
 *   lines, and the pool's lines about its solves (through `clientSignal`).
 * - One access log line per request: method, path, route, status, ms, and
 *   for errors the error code. 2xx-4xx log at `info`, other 5xx at `error`
 *   (the error with its stack is logged by the app's `onError`, same
 *   request id); 503 refusals at `debug`, summed up at `warn` at most every
 *   10 s; probes (`/healthz`, `/readyz`, `/metrics`) at `debug`.
 * - A request whose client hung up before the answer was written
 *   (`clientSignal`: the connection closed early) is logged and counted as status 499 (nginx's
 *   "client closed request"), with `clientClosed: true` and the status the
 *   answer would have had (`answered`), at `info`: the search was cancelled,
 *   nobody got the 200 the handler built.
 * - `http_requests_total` / `http_request_duration_seconds` by route pattern.
 */
import type { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { Logger, RequestContext } from '../logger.js';
import { nodeResponse } from './node-response.js';
import type { Metrics } from '../metrics.js';
import type { Cancellation } from '../pool.js';

/** Options of `requestLog`. */
export interface RequestLogOptions {
  logger: Logger;
  metrics?: Metrics;
  /** How often refused (503) requests are summed up in one `warn` line; default 10 s. */
  refusalLogEveryMs?: number;
}

const REQUEST_ID = /^[\w=-]{1,128}$/;
/** Status logged and counted for a request whose client closed the connection before the answer (nginx's convention). */
export const CLIENT_CLOSED_STATUS = 499;
/** Probes of load balancers and scrapers: logged at debug, not to drown the rest. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** The registered pattern of the route that answered, or `unmatched`. */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    if (routes[i].method !== 'ALL') return routes[i].path;
  }
  return 'unmatched';
}

/**
 * Fires when the client goes away before its answer was written: on the
 * Node server, the close of the response's connection before it finished
 * (one listener on it, where the request's `AbortSignal` would cost an
 * AbortController and its transfer bookkeeping a request); without Node's
 * objects (`app.request` in tests), the request's own signal. Either way it
 * carries the request's log context (`Cancellation.logContext`), so that
 * the pool's lines about the request's solves name it.
 */
class ClientGone implements Cancellation {
  aborted = false;
  readonly #listeners = new Set<() => void>();
  readonly logContext: RequestContext | undefined;

  constructor(outgoing: ServerResponse, logContext: RequestContext | undefined) {
    this.logContext = logContext;
    if (outgoing.destroyed && !outgoing.writableFinished) this.aborted = true;
    outgoing.once('close', () => {
      if (outgoing.writableFinished) return;
      this.aborted = true;
      for (const listener of this.#listeners) listener();
      this.#listeners.clear();
    });
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.delete(listener);
  }
}

/** The client's going away as a `Cancellation` (see `ClientGone`), one for the request. */
export function clientSignal(c: Context): Cancellation {
  const known = c.get('clientSignal' as never) as Cancellation | undefined;
  if (known !== undefined) return known;
  const outgoing = nodeResponse(c);
  const logContext = requestContextOf(c);
  const signal: Cancellation = outgoing !== undefined ? new ClientGone(outgoing, logContext) : requestSignal(c.req.raw.signal, logContext);
  c.set('clientSignal' as never, signal as never);
  return signal;
}

/** The request's own `AbortSignal` as a `Cancellation` with the request's log context. */
function requestSignal(signal: AbortSignal, logContext: RequestContext | undefined): Cancellation {
  return {
    get aborted() {
      return signal.aborted;
    },
    logContext,
    addEventListener: (type, listener, options) => signal.addEventListener(type, listener, options),
    removeEventListener: (type, listener) => signal.removeEventListener(type, listener),
  };
}

/** The current request's log context (set by `requestLog`). */
export function requestContextOf(c: Context): RequestContext | undefined {
  return c.get('requestContext' as never) as RequestContext | undefined;
}

/** See the module comment. */
export function requestLog(options: RequestLogOptions): MiddlewareHandler {
  const { logger, metrics } = options;
  const refusals = refusalLog(logger, options.refusalLogEveryMs);
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const reqId = given !== undefined && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    const ctx: RequestContext = { reqId };
    c.set('requestContext' as never, ctx as never);
    c.set('requestId' as never, reqId as never);
    // watched from the start: a client that leaves mid-request is seen
    clientSignal(c);
    const outgoing = nodeResponse(c);
    if (outgoing !== undefined) {
      // on Node's response: written with every answer, no Headers object built for it
      outgoing.setHeader('X-Request-Id', reqId);
      await next();
    } else {
      // Set before the answer exists, so it is built in (setting it afterwards
      // copies the Response); a handler that returns its own Response gets it after.
      c.header('X-Request-Id', reqId);
      await next();
      if (!c.res.headers.has('x-request-id')) c.header('X-Request-Id', reqId);
    }

    const clientClosed = clientSignal(c).aborted;
    const status = clientClosed ? CLIENT_CLOSED_STATUS : c.res.status;
    const ms = performance.now() - started;
    const route = routeLabel(c);
    metrics?.observeRequest(c.req.method, route, status, ms / 1000);
    const err = c.error;
    const fields: Record<string, unknown> = {
      reqId,
      ...(ctx.key ? { key: ctx.key } : {}),
      method: c.req.method,
      path: c.req.path,
      route,
      status,
      ...(clientClosed ? { clientClosed: true, answered: c.res.status } : {}),
      ms: Math.round(ms * 10) / 10,
    };
    if (err instanceof SolverError) fields.code = err.code;
    // The error itself (with its stack) was logged by the app's onError, with this request id.
    if (PROBES.has(route)) logger.debug(fields, 'request');
    else if (clientClosed) logger.info(fields, 'request abandoned by the client');
    else if (status === 503) refusals.count(fields);
    else if (status >= 500) logger.error(fields, 'request failed');
    else logger.info(fields, 'request');
  };
}

/**
 * 503 refusals (overloaded, stopping) are logged at `debug` one by one and
 * summed up at `warn` at most once per `everyMs`: under a flood, a line per
 * refusal would cost the time the refusals are there to save.
 */
function refusalLog(logger: Logger, everyMs = 10_000) {
  let refused = 0;
  let since = 0;
  let first: Record<string, unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (refused === 0) return;
    logger.warn({ refused, seconds: Math.round((Date.now() - since) / 100) / 10, example: first }, 'requests refused (503)');
    refused = 0;
    first = undefined;
  };
  return {
    count(fields: Record<string, unknown>) {
      logger.debug(fields, 'request refused');
      if (refused++ === 0) {
        since = Date.now();
        first = fields;
        timer = setTimeout(flush, everyMs);
        timer.unref();
      }
    },
  };
}
