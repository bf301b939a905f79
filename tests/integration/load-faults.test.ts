/**
 * The service under faults, with the real engine: deadlines, client
 * disconnects (over a real socket), a full queue, a worker killed in the
 * middle of a search, an engine trap, the memory cap.
 *
 * The long search is Streets and Alleys rules on PySolFC deal 77, which runs
 * for over a minute: any answer in well under that came from a stop, not
 * from the search finishing.
 *
 * The 100 ms bounds are wall-clock on a shared 2-core machine, where other
 * test files run at the same time; a test whose bound is missed is retried
 * (`TIMING`), so a scheduling hiccup does not fail the suite while an engine
 * that does not stop (seconds late) fails every try.
 */
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import { ErrorResponseSchema, SolveResponseSchema } from '../../client-sdk/api/schemas.js';
import { createLogger } from '../../server/logger.js';
import { createMetrics, type Metrics } from '../../server/metrics.js';
import { createPool, type SolveFn, type SolverPool } from '../../server/pool.js';
import { createServiceApp, serviceServer } from '../../server/service.js';
import { fixtureDeal } from '../helpers/pool-fixture.js';
import { ROOT } from '../helpers/paths.js';
import { post } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

const CHAOS_WORKER = join(ROOT, 'tests/fixtures/chaos-worker.ts');
const FIXTURE_WORKER = join(ROOT, 'tests/fixtures/pool-worker.ts');

const LONG_REQUEST = {
  game: 'freecell',
  deal: 77,
  numbering: 'pysolfc' as const,
  rules: { build: 'rank' as const, freeCells: 0, sequenceMove: 'none' as const },
};
const LONG_DEAL = resolveDeal(LONG_REQUEST);
const silent = createLogger({ level: 'silent' });
/** Retries for the tests with wall-clock bounds (see the module comment). */
const TIMING = { retry: 2 };
const quiet = { warn: () => {}, error: () => {} };

describe('deadlines and disconnects (real engine, one worker)', () => {
  let pool: SolverPool;
  let app: ReturnType<typeof createServiceApp>;

  beforeAll(async () => {
    pool = createPool({ module: await loadEngineModule(), threads: 1, maxQueue: 4, stopGraceMs: 5000, log: quiet });
    app = createServiceApp({ solve: pool.solve, logger: silent, poolStats: () => pool.stats() });
    await pool.warmUp(resolveDeal({ game: 'freecell', deal: 1 }));
  });
  afterAll(() => pool.close());

  it.each([300, 1000])('a %i ms deadline is honoured within 100 ms (POST /v1/solve, wall clock)', TIMING, async (timeoutMs) => {
    const t0 = performance.now();
    const res = await post(app, { ...LONG_REQUEST, limits: { maxStates: 50_000_000, timeoutMs } });
    const wall = performance.now() - t0;
    expect(res.status).toBe(200);
    const body = SolveResponseSchema.parse(await res.json());
    expect(body).toMatchObject({ verdict: 'unknown', reason: 'timeout' });
    expect(body.stats.statesExpanded).toBeGreaterThan(0);
    // the request's deadline counts from its arrival: the search gets what is left when its worker begins (an idle worker here: within a few ms)
    expect(body.stats.elapsedMs).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(body.stats.elapsedMs - timeoutMs).toBeLessThan(100);
    expect(wall - timeoutMs).toBeLessThan(100);
  });

  it('a client that disconnects (real socket) frees its worker within 100 ms', TIMING, async () => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((r) => server.once('listening', () => r()));
    const { port } = server.address() as AddressInfo;
    try {
      const completedBefore = pool.stats().completed;
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/solve', headers: { 'content-type': 'application/json' } });
      req.on('error', () => {}); // the socket is destroyed on purpose
      req.end(JSON.stringify({ ...LONG_REQUEST, limits: { maxStates: 50_000_000, timeoutMs: 60_000 } }));
      await until('the long solve running', () => pool.stats().running === 1);
      await new Promise((r) => setTimeout(r, 200)); // deep in the search
      expect(pool.stats().running).toBe(1);

      const t0 = performance.now();
      req.destroy();
      await until('the worker freed', () => pool.stats().inFlight === 0, { timeoutMs: 5000, intervalMs: 1 });
      const freed = performance.now() - t0;
      expect(freed).toBeLessThan(100);
      expect(pool.stats().completed).toBe(completedBefore + 1); // it stopped itself: the worker was not terminated

      // The same worker takes the next solve at once.
      const next = await post(app, { game: 'freecell', deal: 2 });
      expect(next.status).toBe(200);
      expect(((await next.json()) as { verdict: string }).verdict).toBe('solved');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('a request abandoned by its client (real socket)', () => {
  it('is logged as status 499 with clientClosed, not 200, and counted so in http_requests_total', TIMING, async () => {
    const pool = createPool({ module: await loadEngineModule(), threads: 1, stopGraceMs: 5000, log: quiet });
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const metrics = createMetrics({ defaultMetrics: false });
    const app = createServiceApp({ solve: pool.solve, logger: createLogger({ level: 'info', destination }), metrics, poolStats: () => pool.stats() });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((r) => server.once('listening', () => r()));
    const { port } = server.address() as AddressInfo;
    try {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/solve', headers: { 'content-type': 'application/json' } });
      req.on('error', () => {}); // the socket is destroyed on purpose
      req.end(JSON.stringify({ ...LONG_REQUEST, limits: { maxStates: 50_000_000, timeoutMs: 60_000 } }));
      await until('the long solve running', () => pool.stats().running === 1);
      req.destroy();
      await until('the abandoned request logged', () => lines.some((l) => l.route === '/v1/solve'), { timeoutMs: 5000 });
      const line = lines.find((l) => l.route === '/v1/solve')!;
      expect(line).toMatchObject({ status: 499, clientClosed: true, answered: 200, msg: 'request abandoned by the client' });
      // A request answered in full is logged as it was.
      const ok = await fetch(`http://127.0.0.1:${port}/v1/solve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"game":"freecell","deal":1}' });
      expect(ok.status).toBe(200);
      await ok.json();
      await until('the answered request logged', () => lines.filter((l) => l.route === '/v1/solve').length === 2, { timeoutMs: 5000 });
      expect(lines.filter((l) => l.route === '/v1/solve')[1]).toMatchObject({ status: 200 });
      expect(lines.filter((l) => l.route === '/v1/solve')[1]).not.toHaveProperty('clientClosed');
      const text = await metrics.render();
      expect(text).toMatch(/http_requests_total\{method="POST",route="\/v1\/solve",status="499"\} 1/);
      expect(text).toMatch(/http_requests_total\{method="POST",route="\/v1\/solve",status="200"\} 1/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await pool.close();
    }
  });
});

describe('a full queue (fixture worker that blocks until stopped)', () => {
  it('answers 503 overloaded at once, with Retry-After, while the accepted solves go on', TIMING, async () => {
    const pool = createPool({ filename: FIXTURE_WORKER, threads: 1, maxQueue: 1, stopGraceMs: 100, log: quiet });
    const metrics = createMetrics({ defaultMetrics: false });
    const app = createServiceApp({ solve: pool.solve, logger: silent, metrics, poolStats: () => pool.stats(), shed: () => pool.isFull() });
    try {
      const ac = new AbortController();
      const running = post(app, { game: 'freecell', deal: 1 }, { signal: ac.signal });
      await until('the first solve running', () => pool.stats().running === 1);
      const queued = post(app, { game: 'freecell', deal: 2 }, { signal: ac.signal });
      await until('the second solve queued', () => pool.stats().queued === 1);

      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const res = await post(app, { game: 'freecell', deal: 3 + i });
        const took = performance.now() - t0;
        expect(res.status).toBe(503);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(ErrorResponseSchema.parse(await res.json()).error.code).toBe('overloaded');
        expect(took).toBeLessThan(100);
      }
      expect(pool.stats()).toMatchObject({ running: 1, queued: 1 });
      // Validated before the admission check: bad input keeps its 4xx (a retry
      // could never succeed), a valid request to any solve route gets the 503.
      expect(pool.isFull()).toBe(true);
      const send = (path: string, body?: string) =>
        app.request(path, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const invalid: [string, string | undefined, number, string][] = [
        ['/v1/solve', 'not json', 400, 'malformed_json'],
        ['/v1/solve', '{"game":"nope","deal":1}', 404, 'unknown_game'],
        ['/v1/solve', '{"deal":0}', 400, 'invalid_request'],
        ['/v1/solve', '{"game":"freecell","board":"XX"}', 400, 'malformed_board'],
        ['/v1/solve', '{"game":"freecell","deal":1,"limits":{"maxStates":0}}', 400, 'bad_limits'],
        ['/v1/proofs', '{"game":"freecell","deal":0,"numbering":"ms"}', 400, 'deal_out_of_range'],
        ['/v1/review', '{"game":"freecell","deal":1,"numbering":"ms","moves":["1h"]}', 400, 'illegal_move'],
        ['/v1/difficulty', '{"game":"beleaguered_castle","deal":1,"measure":"min_cells"}', 400, 'invalid_request'],
        ['/v1/deals?game=freecell&winnable=true&count=abc', undefined, 400, 'invalid_request'],
      ];
      for (const [path, body, status, code] of invalid) {
        const res = await send(path, body);
        expect({ path, body, status: res.status, code: ErrorResponseSchema.parse(await res.json()).error.code }).toEqual({ path, body, status, code });
      }
      const valid: [string, string | undefined][] = [
        ['/v1/solve', '{"game":"freecell","deal":1,"numbering":"ms"}'],
        ['/v1/proofs', '{"game":"freecell","deal":11982,"numbering":"ms"}'],
        ['/v1/review', '{"game":"freecell","deal":1,"numbering":"ms","moves":[]}'],
        ['/v1/difficulty', '{"game":"freecell","deal":1,"numbering":"ms"}'],
        ['/v1/deals?game=freecell&winnable=true&count=2', undefined],
      ];
      for (const [path, body] of valid) {
        const res = await send(path, body);
        expect({ path, status: res.status }).toEqual({ path, status: 503 });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(ErrorResponseSchema.parse(await res.json()).error.code).toBe('overloaded');
      }
      expect(pool.stats()).toMatchObject({ running: 1, queued: 1 });
      // every refusal counts as a solve that got no answer
      expect(await metrics.render()).toContain(`solver_failures_total{code="overloaded"} ${5 + valid.length}`);
      ac.abort();
      const answers = await Promise.all([running, queued]);
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
      }
      expect(pool.isFull()).toBe(false);
      expect((await post(app, { game: 'no_such_game', deal: 1 })).status).toBe(404);
    } finally {
      await pool.close();
    }
  });
});

describe('a refusal before the request is read (real socket, fixture worker)', () => {
  it('a full pool answers 503 with Retry-After before the body arrives; what is cheap to check keeps its 4xx; accepted solves go on', TIMING, async () => {
    const pool = createPool({ filename: FIXTURE_WORKER, threads: 1, maxQueue: 1, stopGraceMs: 100, log: quiet });
    const metrics = createMetrics({ defaultMetrics: false });
    const app = createServiceApp({ solve: pool.solve, solveRequest: (job, signal) => pool.solveRequest(job, signal), logger: silent, metrics, poolStats: () => pool.stats(), shed: () => pool.isFull() });
    const createServer = await serviceServer({ admits: (cls) => pool.admits(cls), logger: silent, metrics, config: { bodyLimitBytes: 1024 * 1024, apiKeys: [] } });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', createServer }) as Server;
    await new Promise<void>((r) => server.once('listening', () => r()));
    const { port } = server.address() as AddressInfo;
    /** Sends the headers of a request and `sent` of its body, then waits for the status line and headers. */
    const partial = (path: string, type: string, length: number, sent = '', headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: Promise<string> }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': type, 'content-length': String(length), ...headers } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          resolve({ status: res.statusCode!, headers: res.headers, body: new Promise((done) => res.on('end', () => done(text))) });
        });
        req.on('error', reject);
        req.write(sent);
      });
    const fixtureBody = (mode: string) => JSON.stringify({ game: 'freecell', deal: 1, mode });
    try {
      // the fixture pool takes any deal the app resolved; these two hold the worker and the queue
      const ac = new AbortController();
      const hold = pool.solve(fixtureDeal('wait').deal, { maxStates: 1, timeoutMs: 60_000 }, ac.signal);
      const queued = pool.solve(fixtureDeal('wait').deal, { maxStates: 1, timeoutMs: 60_000 }, ac.signal);
      await until('the pool full', () => !pool.admits('interactive'));
      // 1,000 bytes announced, none sent: the answer comes anyway, so the body was never waited for
      for (const path of ['/v1/solve', '/v1/proofs']) {
        const res = await partial(path, 'application/json', 1000);
        expect(res.status).toBe(503);
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(ErrorResponseSchema.parse(JSON.parse(await res.body)).error.code).toBe('overloaded');
      }
      // cheap faults keep their status: a content type that is not JSON, an encoded body, a body over the limit, a route that does not solve
      expect((await partial('/v1/solve', 'text/plain', 2, '{}')).status).toBe(415);
      expect((await partial('/v1/solve', 'application/json', 2, '{}', { 'content-encoding': 'gzip' })).status).toBe(415);
      expect((await partial('/v1/nothing', 'application/json', 2, '{}')).status).toBe(404);
      expect((await partial('/v1/solve', 'application/json', 2 * 1024 * 1024)).status).toBe(413);
      expect(await metrics.render()).toMatch(/http_requests_total\{method="POST",route="\/v1\/solve",status="503"\} 1/);
      ac.abort();
      await Promise.all([hold, queued]);
      // room again: a request goes through to the app (a fault of its position, found by the worker, is its 4xx)
      const res = await partial('/v1/solve', 'application/json', Buffer.byteLength(fixtureBody('solve')), fixtureBody('solve'));
      expect(res.status).not.toBe(503);
      await res.body;
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await pool.close();
    }
  });
});

describe('faults fail only their own request (real engine)', () => {
  let pool: SolverPool;
  let metrics: Metrics;
  let app: ReturnType<typeof createServiceApp>;
  const errors: string[] = [];

  beforeAll(async () => {
    metrics = createMetrics({ defaultMetrics: false, poolStats: () => pool.stats() });
    pool = createPool({
      module: await loadEngineModule(),
      filename: CHAOS_WORKER,
      threads: 2,
      log: { warn: () => {}, error: (m) => errors.push(m) },
      onSettled: metrics.observeSolve,
    });
    // Requests for the long deal kill their worker at the 50th stop-flag poll, mid-search.
    const solve: SolveFn = (deal, limits, signal) =>
      pool.solve(deal.rules.freeCells === 0 ? ({ ...deal, chaos: { exitAfterPolls: 50 } } as Deal) : deal, limits, signal);
    app = createServiceApp({ solve, logger: silent, metrics, poolStats: () => pool.stats() });
    await pool.warmUp(resolveDeal({ game: 'freecell', deal: 1 }));
  });
  afterAll(() => pool.close());

  it('a worker killed mid-solve → 500 worker_crashed for that request; a concurrent and the next request succeed', async () => {
    const [killed, concurrent] = await Promise.all([
      post(app, { ...LONG_REQUEST, limits: { maxStates: 50_000_000, timeoutMs: 60_000 } }),
      post(app, { game: 'freecell', deal: 3 }),
    ]);
    const text = await killed.text();
    expect(killed.status, text).toBe(500);
    expect(ErrorResponseSchema.parse(JSON.parse(text)).error.code).toBe('worker_crashed');
    expect(text).not.toMatch(/\bat (?:async )?(?:[^ ()]+ \([^)]*:\d+:\d+\)|\S+:\d+:\d+)|\/work\/|\.ts:\d+|node_modules|exited with code/);
    expect(concurrent.status).toBe(200);
    expect(errors.join('\n')).toMatch(/worker_crashed/);

    for (const deal of [4, 5, 6]) {
      const res = await post(app, { game: 'freecell', deal });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { verdict: string }).verdict).toBe('solved');
    }
    await until('two threads', () => pool.stats().threads === 2);
    const scraped = await metrics.render();
    expect(scraped).toMatch(/solver_failures_total\{code="worker_crashed"\} 1/);
  });

  it('an engine trap → engine_trap for that solve only; the worker resets its engine and serves on', async () => {
    // A deal that skips validation (the API never sends one): 200 columns are beyond the engine's layout,
    // and the engine traps on them rather than search them.
    const bad = resolveDeal({ game: 'freecell', deal: 1 });
    bad.rules = { ...bad.rules, columns: 200 };
    const err = await pool.solve(bad, { maxStates: 1000, timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SolverError);
    expect(err).toMatchObject({ code: 'engine_trap', status: 500 });
    expect((err as Error).message).toMatch(/trapped \(unreachable\)/);
    const again = await Promise.all([7, 8, 9].map((n) => pool.solve(resolveDeal({ game: 'freecell', deal: n }), { maxStates: 1_000_000, timeoutMs: 10_000 })));
    expect(again.map((o) => o.verdict)).toEqual(['solved', 'solved', 'solved']);
  });
});

describe('the memory cap per solve', () => {
  it('a search that outgrows MAX_MEMORY_MB ends unknown/memory, within the cap', async () => {
    const cap = 48 * 1024 * 1024;
    const pool = createPool({ module: await loadEngineModule(), threads: 1, memoryLimitBytes: cap, log: quiet });
    try {
      const outcome = await pool.solve(LONG_DEAL, { maxStates: 50_000_000, timeoutMs: 60_000 });
      expect(outcome).toMatchObject({ verdict: 'unknown', reason: 'memory' });
      expect(outcome.stats.memoryBytes).toBeLessThanOrEqual(cap);
      const next = await pool.solve(resolveDeal({ game: 'freecell', deal: 1 }), { maxStates: 1_000_000, timeoutMs: 10_000 });
      expect(next.verdict).toBe('solved');
    } finally {
      await pool.close();
    }
  });
});
