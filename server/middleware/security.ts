/**
 * Response hardening: hono's secure-headers on every answer (nosniff,
 * frame and referrer policies, HSTS, cross-origin isolation headers, no
 * `X-Powered-By`), and CORS only where configured.
 *
 * Served by Node (@hono/node-server), the secure headers' values, read
 * once from hono's middleware (`securityHeaderValues`), are set on Node's
 * response before the route runs, and Node writes them with the answer's
 * own headers: no `Headers` object is built or copied for them on each
 * answer (docs/operations.md, "What a request costs the main thread").
 *
 * CORS: unset = no CORS headers, so browsers allow same-origin calls only;
 * `'*'` = any origin (without credentials: the API uses bearer tokens, not
 * cookies); a list = exactly those origins. Preflights are answered here,
 * before authentication (a preflight carries no Authorization header).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import { nodeResponse } from './node-response.js';

/**
 * Secure headers on every response.
 * @param values the headers `securityHeaderValues` read; given, a request
 *   served by Node gets them on Node's response before its route runs (a
 *   header the route sets itself wins); absent, or without Node's response
 *   (`app.request` in tests), hono's secure-headers adds them to the answer.
 */
export function securityHeaders(values?: Readonly<Record<string, string>>): MiddlewareHandler {
  const secure = secureHeaders();
  if (values === undefined) return secure;
  const entries = Object.entries(values);
  return async (c, next) => {
    const outgoing = nodeResponse(c);
    if (outgoing === undefined) return secure(c, next);
    for (const [name, value] of entries) outgoing.setHeader(name, value);
    await next();
  };
}

/**
 * The headers `securityHeaders` puts on an answer, read from it once (the
 * refusals written before the app routes a request carry the same:
 * server/refusal.ts).
 */
export async function securityHeaderValues(): Promise<Record<string, string>> {
  const probe = new Hono();
  probe.use(securityHeaders());
  probe.get('/', (c) => c.body(null, 204));
  const res = await probe.request('/');
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** CORS for the given origins, or null when none are configured. */
export function corsFor(origins: '*' | string[] | null): MiddlewareHandler | null {
  if (origins === null) return null;
  return cors({
    origin: origins,
    allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'Authorization', 'X-Request-Id'],
    exposeHeaders: ['Retry-After', 'X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'],
    maxAge: 600,
  });
}
