/**
 * API keys and per-key rate limits.
 *
 * - Keys are bearer tokens (`Authorization: Bearer <token>`), checked by
 *   hono's bearer-auth (constant-time comparison). A missing, malformed or
 *   unknown token answers 401 `unauthorized` with a `WWW-Authenticate`
 *   challenge, in the API's error shape.
 * - Each key has its own fixed-window budget (hono-rate-limiter): beyond
 *   `max` requests in `windowMs`, 429 `rate_limited` with `Retry-After`
 *   (seconds until the window ends) and the draft-6 `RateLimit-*` headers.
 *   The counts are kept by the `store` given, by default hono-rate-limiter's
 *   memory store of this process; a service of several fronts passes the
 *   primary's (server/fronts/rate-limit.ts), so the budget is the whole
 *   service's. Behind N replicas (machines) a key gets N times the budget.
 * - The key's name (never the token) goes on the request's log lines.
 */
import type { MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { HTTPException } from 'hono/http-exception';
import { rateLimiter, type Store } from 'hono-rate-limiter';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { ApiKey } from '../config.js';
import { API_KEY_VAR } from './api-key-name.js';
import { requestContextOf } from './request-log.js';

/** Options of `apiKeys`. */
export interface ApiKeysOptions {
  keys: ApiKey[];
  /** Requests per key per window; 0 or absent = no limit. */
  rateLimit?: { max: number; windowMs: number };
  /** Where the counts are kept; default a memory store of this process. */
  store?: Store;
}

const KEY_VAR = API_KEY_VAR;

/** See the module comment. */
export function apiKeys(options: ApiKeysOptions): MiddlewareHandler[] {
  const byToken = new Map(options.keys.map((k) => [k.token, k.name]));
  const auth = bearerAuth({ token: options.keys.map((k) => k.token) });
  const authenticate: MiddlewareHandler = async (c, next) => {
    let failure: HTTPException | undefined;
    // bearerAuth throws before calling next() on failure; errors from later
    // handlers never reach here (Hono answers them at their own level).
    await auth(c, async () => {
      const token = c.req.header('authorization')!.replace(/^\s*bearer\s+/i, '').trim();
      const name = byToken.get(token) ?? 'unknown';
      c.set(KEY_VAR as never, name as never);
      const ctx = requestContextOf(c);
      if (ctx) ctx.key = name;
      await next();
    }).catch((err: unknown) => {
      if (!(err instanceof HTTPException)) throw err;
      failure = err;
    });
    if (failure) {
      const challenge = failure.getResponse().headers.get('WWW-Authenticate');
      if (challenge) c.header('WWW-Authenticate', challenge);
      throw new SolverError(
        'unauthorized',
        c.req.header('authorization') === undefined
          ? 'this API needs a key: send Authorization: Bearer <key>'
          : 'the API key is not valid',
      );
    }
  };
  const handlers = [authenticate];

  const limit = options.rateLimit;
  if (limit && limit.max > 0) {
    handlers.push(
      rateLimiter({
        windowMs: limit.windowMs,
        limit: limit.max,
        standardHeaders: 'draft-6',
        keyGenerator: (c) => String(c.get(KEY_VAR as never)),
        ...(options.store ? { store: options.store } : {}),
        handler: () => {
          throw new SolverError('rate_limited', `this API key made more than ${limit.max} requests in ${Math.round(limit.windowMs / 1000)} s; retry after Retry-After seconds`);
        },
      }),
    );
  }
  return handlers;
}
