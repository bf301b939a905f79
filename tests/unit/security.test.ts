/**
 * Security of the HTTP layer, in-process (`app.request`): API keys (bearer
 * tokens), per-key rate limits, secure headers, CORS, the metrics token,
 * request ids, and error bodies that never leak a stack or a path.
 */
import { describe, expect, it } from 'vitest';
import { SolverError } from '../../client-sdk/core/errors.js';
import { ErrorResponseSchema } from '../../client-sdk/api/schemas.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import type { ApiKey } from '../../server/config.js';
import { ServiceState } from '../../server/lifecycle.js';
import { createLogger } from '../../server/logger.js';
import { createMetrics } from '../../server/metrics.js';
import type { SolveFn } from '../../server/pool.js';
import { createServiceApp, type ServiceAppDeps } from '../../server/service.js';
import { post } from '../helpers/http.js';

const OUTCOME: SolveOutcome = { verdict: 'unknown', reason: 'max_states', moves: [], stats: { statesExpanded: 1, statesStored: 1, elapsedMs: 1, memoryBytes: 1 } };
const fakeSolve: SolveFn = async () => structuredClone(OUTCOME);

const ALICE: ApiKey = { name: 'alice', token: 'alice-token-0123456789abcdef' };
const BOB: ApiKey = { name: 'bob', token: 'bob-token-0123456789abcdef=' };

/** An app with a fake solve and a logger whose lines the test can read. */
function makeApp(config: ServiceAppDeps['config'] = {}, extra: Partial<ServiceAppDeps> = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  const app = createServiceApp({ solve: fakeSolve, logger, config, app: { webRoot: null }, ...extra });
  return { app, lines };
}

/** POST /v1/solve of MS FreeCell #1 (or `body`) with `headers`. */
function solve(app: ReturnType<typeof makeApp>['app'], headers: Record<string, string> = {}, body: unknown = { game: 'freecell', deal: 1 }) {
  return post(app, body, { headers });
}

const bearer = (k: ApiKey) => ({ authorization: `Bearer ${k.token}` });

async function errorOf(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(ErrorResponseSchema.parse(JSON.parse(text)).error.code).toBe(code);
  expect(text).not.toMatch(/\bat (?:async )?(?:[^ ()]+ \([^)]*:\d+:\d+\)|\S+:\d+:\d+)|\/work\/|\.ts:\d+|node_modules|Error:/);
  return text;
}

describe('API keys', () => {
  it('without API_KEYS every route is open', async () => {
    const { app } = makeApp();
    expect((await solve(app)).status).toBe(200);
    expect((await app.request('/v1/games')).status).toBe(200);
  });

  it('with keys, /v1/* needs a valid bearer token: 401 unauthorized with a WWW-Authenticate challenge otherwise', async () => {
    const { app } = makeApp({ apiKeys: [ALICE, BOB] });
    const none = await solve(app);
    await errorOf(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await errorOf(await solve(app, { authorization: 'Bearer not-a-known-token-0123456' }), 401, 'unauthorized');
    await errorOf(await solve(app, { authorization: `Basic ${ALICE.token}` }), 401, 'unauthorized');
    await errorOf(await solve(app, { authorization: 'Bearer ' }), 401, 'unauthorized');
    await errorOf(await solve(app, { authorization: `Bearer ${ALICE.token}x` }), 401, 'unauthorized');
    await errorOf(await app.request('/v1/games'), 401, 'unauthorized');
    expect((await solve(app, bearer(ALICE))).status).toBe(200);
    expect((await solve(app, { authorization: `bearer ${BOB.token}` })).status).toBe(200);
  });

  it('authentication comes before the body is read (an unauthenticated oversized body is a 401, not a 413)', async () => {
    const { app } = makeApp({ apiKeys: [ALICE], bodyLimitBytes: 100 });
    await errorOf(await solve(app, {}, { game: 'freecell', board: 'x'.repeat(1000) }), 401, 'unauthorized');
    await errorOf(await solve(app, bearer(ALICE), { game: 'freecell', board: 'x'.repeat(1000) }), 413, 'payload_too_large');
  });

  it('probes, metrics, the OpenAPI document and the docs stay open', async () => {
    const { app } = makeApp({ apiKeys: [ALICE] }, { metrics: createMetrics({ defaultMetrics: false }), state: Object.assign(new ServiceState(), { ready: true }) });
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']) {
      expect((await app.request(path)).status, path).toBe(200);
    }
  });

  it('logs name the key, never the token', async () => {
    const { app, lines } = makeApp({ apiKeys: [ALICE] });
    await solve(app, bearer(ALICE));
    await solve(app, { authorization: 'Bearer wrong-token-0123456789' });
    const text = lines.map((l) => JSON.stringify(l)).join('\n');
    expect(text).not.toContain(ALICE.token);
    expect(text).not.toContain('wrong-token');
    expect(lines.find((l) => l.status === 200)).toMatchObject({ key: 'alice', route: '/v1/solve' });
    expect(lines.find((l) => l.status === 401)).toMatchObject({ code: 'unauthorized' });
  });
});

describe('per-key rate limits', () => {
  it('beyond the limit a key gets 429 rate_limited with Retry-After; other keys are not affected', async () => {
    const { app } = makeApp({ apiKeys: [ALICE, BOB], rateLimit: { max: 3, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++) {
      const res = await solve(app, bearer(ALICE));
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    const limited = await solve(app, bearer(ALICE));
    await errorOf(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect((await solve(app, bearer(BOB))).status).toBe(200);
  });

  it('the window ends and the key is served again', async () => {
    const { app } = makeApp({ apiKeys: [ALICE], rateLimit: { max: 1, windowMs: 1000 } });
    expect((await solve(app, bearer(ALICE))).status).toBe(200);
    expect((await solve(app, bearer(ALICE))).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await solve(app, bearer(ALICE))).status).toBe(200);
  });

  it('max 0 means no limit', async () => {
    const { app } = makeApp({ apiKeys: [ALICE], rateLimit: { max: 0, windowMs: 1000 } });
    for (let i = 0; i < 20; i++) expect((await solve(app, bearer(ALICE))).status).toBe(200);
  });
});

describe('headers', () => {
  it('secure headers on answers and on errors', async () => {
    const { app } = makeApp();
    for (const res of [await solve(app), await app.request('/nowhere'), await solve(app, {}, { game: 'nope', deal: 1 })]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('no CORS headers unless configured', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/games', { headers: { origin: 'https://elsewhere.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('CORS for the configured origins only; preflights pass before authentication', async () => {
    const { app } = makeApp({ corsOrigins: ['https://cards.example'], apiKeys: [ALICE] });
    const preflight = await app.request('/v1/solve', {
      method: 'OPTIONS',
      headers: { origin: 'https://cards.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://cards.example');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    const ok = await solve(app, { ...bearer(ALICE), origin: 'https://cards.example' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://cards.example');
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/retry-after/i);
    const other = await solve(app, { ...bearer(ALICE), origin: 'https://evil.example' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('CORS * allows any origin', async () => {
    const { app } = makeApp({ corsOrigins: '*' });
    const res = await app.request('/v1/games', { headers: { origin: 'https://any.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('request ids: a sane X-Request-Id is echoed, anything else is replaced by a UUID', async () => {
    const { app, lines } = makeApp();
    expect((await solve(app, { 'x-request-id': 'abc-123_X=' })).headers.get('x-request-id')).toBe('abc-123_X=');
    for (const bad of ['has space', 'x'.repeat(200), '<script>', 'a\tb']) {
      const id = (await solve(app, { 'x-request-id': bad })).headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    }
    expect(lines.some((l) => l.reqId === 'abc-123_X=')).toBe(true);
  });

  it("a solve's cancellation carries its request's log context, for the pool's lines about it", async () => {
    const contexts: unknown[] = [];
    const { app } = makeApp(
      {},
      {
        solve: async (_deal, _limits, signal) => {
          contexts.push(signal?.logContext);
          throw new SolverError('overloaded', 'busy');
        },
      },
    );
    await solve(app, { 'x-request-id': 'ctx-1' });
    expect(contexts).toEqual([{ reqId: 'ctx-1' }]);
  });
});

describe('the metrics token', () => {
  it('when set, GET /metrics needs it', async () => {
    const token = 'metrics-token-0123456789';
    const { app } = makeApp({ metricsToken: token }, { metrics: createMetrics({ defaultMetrics: false }) });
    await errorOf(await app.request('/metrics'), 401, 'unauthorized');
    await errorOf(await app.request('/metrics', { headers: { authorization: 'Bearer wrong-0123456789abcdef' } }), 401, 'unauthorized');
    const ok = await app.request('/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/http_requests_total/);
  });
});

describe('error bodies', () => {
  it('an unexpected error is a 500 internal_error without message, stack or path; the log has the details and the request id', async () => {
    const { app, lines } = makeApp(
      {},
      {
        solve: async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'x') at /work/main/server/secret.ts:12:3");
        },
      },
    );
    const res = await solve(app, { 'x-request-id': 'req-500' });
    const text = await errorOf(res, 500, 'internal_error');
    expect(text).not.toMatch(/secret|Cannot read/);
    const logged = lines.find((l) => l.level === 'error' && l.err);
    expect(logged).toMatchObject({ reqId: 'req-500' });
    expect(JSON.stringify(logged)).toMatch(/secret\.ts/);
  });

  it('a request stream cut off because the client went away is no server error: not logged at error; the same code with the client still there is', async () => {
    const reset = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    const gone = new AbortController();
    const left = makeApp({}, {
      solve: async () => {
        gone.abort(); // the client closes its connection; its request stream errors
        throw reset();
      },
    });
    await left.app.request('/v1/solve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"game":"freecell","deal":1}', signal: gone.signal });
    expect(left.lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
    expect(left.lines.find((l) => l.route === '/v1/solve')).toMatchObject({ level: 'info', status: 499, clientClosed: true, msg: 'request abandoned by the client' });
    // an ECONNRESET of something else (a Redis connection, say) while the client waits is the server's fault
    const { app, lines } = makeApp({}, { solve: async () => Promise.reject(reset()) });
    await errorOf(await solve(app), 500, 'internal_error');
    expect(lines.find((l) => l.level === 'error' && l.err)).toBeDefined();
  });

  it('engine failures keep their code and a message without internals', async () => {
    for (const code of ['engine_trap', 'worker_crashed', 'out_of_memory', 'engine_unresponsive'] as const) {
      const { app } = makeApp({}, { solve: async () => Promise.reject(new SolverError(code, `the solver failed (${code})`)) });
      await errorOf(await solve(app), 500, code);
    }
  });

  it('while shutting down, API requests get 503 with Connection: close; probes still answer', async () => {
    const state = Object.assign(new ServiceState(), { ready: true });
    const { app } = makeApp({}, { state });
    expect((await solve(app)).status).toBe(200);
    state.stopping = true;
    const res = await solve(app);
    await errorOf(res, 503, 'overloaded');
    expect(res.headers.get('connection')).toBe('close');
    expect((await app.request('/healthz')).status).toBe(200);
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'stopping' });
  });
});
