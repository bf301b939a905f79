/**
 * Prometheus metrics (prom-client), served at `GET /metrics`.
 *
 * | metric | type | labels | meaning |
 * |---|---|---|---|
 * | `http_requests_total` | counter | method, route, status | requests answered; status 499 = the client closed the connection before the answer (request-log.ts) |
 * | `http_request_duration_seconds` | histogram | method, route, status | time to answer |
 * | `solver_queue_depth` | gauge | | solves waiting for a worker |
 * | `solver_running` | gauge | | solves on a worker |
 * | `solver_queue_capacity` | gauge | | most solves that may wait |
 * | `solver_threads` | gauge | | live worker threads |
 * | `solver_solves_total` | counter | verdict, reason | answered solves (`reason` only for `unknown`) |
 * | `solver_failures_total` | counter | code | solves that got no answer (`overloaded`, `engine_trap`, ...) |
 * | `solver_states_expanded_total` | counter | | positions expanded by all solves |
 * | `solver_solve_duration_seconds` | histogram | verdict | engine time per solve |
 * | `solver_queue_wait_seconds` | histogram | | time from submission to a worker |
 * | `solver_worker_recycles_total` | counter | | workers replaced after a solve because their engine memory grew past `RECYCLE_MEMORY_MB` |
 *
 * plus prom-client's default process metrics (`process_resident_memory_bytes`,
 * event loop lag, GC, ...). `route` is the route pattern (`/v1/solve`), or
 * `unmatched`, so label values stay few.
 *
 * Every registry is its own (no global state), so tests can build many apps.
 * With several fronts (`FRONTS`), each front has its registry and `GET
 * /metrics` answers the sum over the fronts (server/fronts/primary.ts): the
 * counters and histograms add up, and so do the pool gauges (queue depth,
 * running, capacity, threads: the service's), as prom-client's cluster
 * aggregation does; `service_fronts` and `service_fronts_scraped` say how
 * many fronts there are and how many the scrape summed.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats, SolveEvent } from './pool.js';

/** The service's metrics. */
export interface Metrics {
  readonly registry: Registry;
  /** Records one answered HTTP request. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** The recorder of `observeRequest` for one method, route and status, looked up once (for a caller that records many). */
  requestSeries(method: string, route: string, status: number): { record(seconds: number): void };
  /** Records one settled solve (the pool's `onSettled`). */
  observeSolve(event: SolveEvent): void;
  /** Records a solve refused before it reached the pool (load shedding): `solver_failures_total{code}`. */
  observeRefusal(code: string): void;
  /** Records a worker replaced for its engine memory (the pool's `onRecycle`). */
  observeRecycle(): void;
  /** The text exposition of every metric. */
  render(): Promise<string>;
  /** Its content type. */
  readonly contentType: string;
}

/** Options of `createMetrics`. */
export interface MetricsOptions {
  /** The pool's numbers, read at every scrape (queue depth and friends). */
  poolStats?: () => PoolStats | undefined;
  /** Also collect prom-client's default process metrics; default true. */
  defaultMetrics?: boolean;
  /**
   * What `render` answers instead of this registry's text: with several
   * fronts, the whole service's metrics (server/fronts/front-link.ts).
   */
  render?: () => Promise<string>;
}

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Creates the metrics in a registry of their own; see the module comment. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const stat = (name: string, help: string, pick: (s: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const s = options.poolStats?.();
        if (s) this.set(pick(s));
      },
    });
  stat('solver_queue_depth', 'Solves waiting for a worker.', (s) => s.queued);
  stat('solver_running', 'Solves running on a worker.', (s) => s.running);
  stat('solver_queue_capacity', 'Most solves that may wait for a worker.', (s) => s.maxQueue);
  stat('solver_threads', 'Live solver worker threads.', (s) => s.threads);
  const solves = new Counter({
    name: 'solver_solves_total',
    help: 'Answered solves, by verdict and (for unknown) reason.',
    labelNames: ['verdict', 'reason'] as const,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'solver_failures_total',
    help: 'Solves that got no answer, by error code.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const expanded = new Counter({
    name: 'solver_states_expanded_total',
    help: 'Positions expanded by all solves.',
    registers: [registry],
  });
  const solveTime = new Histogram({
    name: 'solver_solve_duration_seconds',
    help: 'Engine time per answered solve, by verdict.',
    labelNames: ['verdict'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const recycles = new Counter({
    name: 'solver_worker_recycles_total',
    help: 'Solver workers replaced after a solve because their engine memory grew past RECYCLE_MEMORY_MB.',
    registers: [registry],
  });
  const queueWait = new Histogram({
    name: 'solver_queue_wait_seconds',
    help: 'Time from submission until a worker started the solve.',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  // every request and solve records under a few label sets: their children are looked up once (prom-client hashes a labels object on every call)
  type Series = { count: { inc(): void }; time: { observe(value: number): void } };
  const requestSeries = new Map<string, Series>();
  const solveSeries = new Map<string, Series>();
  const failureSeries = new Map<string, { inc(): void }>();
  const seriesOf = (method: string, route: string, status: number): Series => {
    const key = `${method} ${route} ${status}`;
    let series = requestSeries.get(key);
    if (series === undefined) {
      const labels = { method, route, status: String(status) };
      series = { count: requests.labels(labels), time: latency.labels(labels) };
      requestSeries.set(key, series);
    }
    return series;
  };

  return {
    registry,
    contentType: registry.contentType,
    observeRequest(method, route, status, seconds) {
      const series = seriesOf(method, route, status);
      series.count.inc();
      series.time.observe(seconds);
    },
    requestSeries(method, route, status) {
      const series = seriesOf(method, route, status);
      return {
        record(seconds: number) {
          series.count.inc();
          series.time.observe(seconds);
        },
      };
    },
    observeSolve(event) {
      if (event.outcome) {
        const o = event.outcome;
        const key = `${o.verdict} ${o.reason ?? ''}`;
        let series = solveSeries.get(key);
        if (series === undefined) {
          series = { count: solves.labels({ verdict: o.verdict, reason: o.reason ?? '' }), time: solveTime.labels({ verdict: o.verdict }) };
          solveSeries.set(key, series);
        }
        series.count.inc();
        expanded.inc(o.stats.statesExpanded);
        series.time.observe(o.stats.elapsedMs / 1000);
        queueWait.observe(event.queuedMs / 1000);
      } else if (event.error) {
        failures.inc({ code: event.error.code });
      } else if (event.census) {
        // a census job's deals, counted by verdict on the worker: no time, reason or error code of each (its exceptions are in the batch)
        const c = event.census;
        for (const verdict of ['solved', 'unsolvable', 'unknown'] as const) if (c[verdict] > 0) solves.inc({ verdict, reason: '' }, c[verdict]);
        expanded.inc(c.sumPositions);
      }
    },
    observeRefusal(code) {
      let series = failureSeries.get(code);
      if (series === undefined) failureSeries.set(code, (series = failures.labels({ code })));
      series.inc();
    },
    observeRecycle() {
      recycles.inc();
    },
    render: options.render ?? (() => registry.metrics()),
  };
}
