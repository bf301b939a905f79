/**
 * Operations: Prometheus metrics, liveness and readiness, structured JSON
 * logs with request ids; with the real engine behind the app.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SolverError } from '../../client-sdk/core/errors.js';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { ServiceState } from '../../server/lifecycle.js';
import { createLogger, poolLog } from '../../server/logger.js';
import { createMetrics, type Metrics } from '../../server/metrics.js';
import { requestLog } from '../../server/middleware/request-log.js';
import { createPool, type SolverPool } from '../../server/pool.js';
import { createServiceApp } from '../../server/service.js';
import { post } from '../helpers/http.js';

let pool: SolverPool;
let metrics: Metrics;
let app: ReturnType<typeof createServiceApp>;
const state = new ServiceState();
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  metrics = createMetrics({ poolStats: () => pool.stats() });
  pool = createPool({ module: await loadEngineModule(), threads: 1, maxQueue: 3, onSettled: metrics.observeSolve, log: poolLog(logger) });
  app = createServiceApp({ solve: pool.solve, logger, metrics, state, poolStats: () => pool.stats(), app: { webRoot: null } });
});
afterAll(() => pool.close());


/** The value of one sample line of the exposition text, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('readiness and liveness', () => {
  it('/readyz is 503 "starting" until the pool is warm, then 200; /healthz is 200 throughout', async () => {
    const before = await app.request('/readyz');
    expect(before.status).toBe(503);
    expect(await before.json()).toMatchObject({ status: 'starting' });
    expect((await app.request('/healthz')).status).toBe(200);
    await pool.warmUp(resolveDeal({ game: 'freecell', deal: 1 }));
    state.ready = true;
    const after = await app.request('/readyz');
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ status: 'ready', pool: { threads: 1, maxQueue: 3, queued: 0 } });
    const health = await app.request('/healthz');
    expect(await health.json()).toMatchObject({ status: 'ok', pool: { threads: 1 } });
  });
});

describe('GET /metrics', () => {
  it('counts requests by route and status, latency, verdicts, states expanded, queue depth; in Prometheus text format', async () => {
    const solved = await post(app, { game: 'freecell', deal: 1 });
    expect(solved.status).toBe(200);
    const { stats } = (await solved.json()) as { stats: { statesExpanded: number } };
    const cut = await post(app, { game: 'freecell', deal: 2, limits: { maxStates: 5 } });
    expect(((await cut.json()) as { reason: string }).reason).toBe('max_states');
    expect((await post(app, { game: 'nope', deal: 1 })).status).toBe(404);
    expect((await app.request('/no/such/route')).status).toBe(404);

    const res = await app.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(sample(text, 'http_requests_total', '{method="POST",route="/v1/solve",status="200"}')).toBe(2);
    expect(sample(text, 'http_requests_total', '{method="POST",route="/v1/solve",status="404"}')).toBe(1);
    expect(sample(text, 'http_requests_total', '{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', '{method="POST",route="/v1/solve",status="200"}')).toBe(2);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.1",method="POST",route="\/v1\/solve",status="200"\} \d/);
    expect(sample(text, 'solver_solves_total', '{verdict="solved",reason=""}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'solver_solves_total', '{verdict="unknown",reason="max_states"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'solver_states_expanded_total')).toBeGreaterThanOrEqual(stats.statesExpanded);
    expect(sample(text, 'solver_queue_depth')).toBe(0);
    expect(sample(text, 'solver_queue_capacity')).toBe(3);
    expect(sample(text, 'solver_threads')).toBe(1);
    expect(text).toMatch(/^solver_solve_duration_seconds_bucket/m);
    expect(text).toMatch(/^solver_queue_wait_seconds_count \d+/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });
});

describe('structured logs', () => {
  it('one JSON line per request with level, time, request id, route, status and duration', async () => {
    lines.length = 0;
    await post(app, { game: 'freecell', deal: 3 }, { headers: { 'x-request-id': 'trace-me-1' } });
    await post(app, { game: 'freecell', board: 'XX' }, { headers: { 'x-request-id': 'trace-me-2' } });
    const ok = lines.find((l) => l.reqId === 'trace-me-1');
    expect(ok).toMatchObject({ level: 'info', msg: 'request', method: 'POST', path: '/v1/solve', route: '/v1/solve', status: 200, service: 'solitaire-solver' });
    expect(typeof ok!.ms).toBe('number');
    expect(new Date(String(ok!.time)).getTime()).toBeGreaterThan(0);
    expect(lines.find((l) => l.reqId === 'trace-me-2')).toMatchObject({ level: 'info', status: 400, code: 'malformed_board' });
  });

  it('probes log at debug only', async () => {
    lines.length = 0;
    await app.request('/healthz');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'debug', route: '/healthz' });
  });
});

describe('refusals under a flood', () => {
  it('503s are logged one by one at debug only, and summed up in one warn line per period', async () => {
    const logged: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void logged.push(JSON.parse(s)) } });
    const app = new Hono();
    app.onError((err, c) => c.json({ error: { code: (err as SolverError).code } }, 503));
    app.use('*', requestLog({ logger, refusalLogEveryMs: 100 }));
    app.post('/v1/solve', () => {
      throw new SolverError('overloaded', 'busy');
    });
    // The period's timer on a fake clock: on the real one, 50 requests that
    // take over 100 ms (a busy CI machine) would see the summary mid-flood.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      for (let i = 0; i < 50; i++) expect((await app.request('/v1/solve', { method: 'POST' })).status).toBe(503);
      expect(logged).toHaveLength(0);
      vi.advanceTimersByTime(99);
      expect(logged).toHaveLength(0);
      vi.advanceTimersByTime(1);
    } finally {
      vi.useRealTimers();
    }
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'warn', msg: 'requests refused (503)', refused: 50, example: { status: 503, code: 'overloaded', route: '/v1/solve' } });
  });
});
