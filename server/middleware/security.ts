/**
 * Response hardening: hono's secure-headers on every answer (nosniff,
 * frame and referrer policies, HSTS, cross-origin isolation headers, no
 * `X-Powered-By`), and CORS only where configured.
 *
 * CORS: unset = no CORS headers, so browsers allow same-origin calls only;
 * `'*'` = any origin (without credentials: the API uses bearer tokens, not
 * cookies); a list = exactly those origins. Preflights are answered here,
 * before authentication (a preflight carries no Authorization header).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';

/** Secure headers on every response. */
export function securityHeaders(): MiddlewareHandler {
  return secureHeaders();
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
