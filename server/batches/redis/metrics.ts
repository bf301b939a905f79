/**
 * Prometheus metrics of the `redis` batch backend (prom-client, on the
 * registry of server/metrics.ts).
 *
 * On an API server's `/metrics` (read from Redis at each scrape):
 *
 * | metric | labels | meaning |
 * |---|---|---|
 * | `batch_queue_jobs` | state | BullMQ jobs (chunks) by state: `waiting`, `prioritized` (both: the queue depth), `delayed` (retries), `active`, `failed` |
 * | `batch_workers` | | workers with a heartbeat in the last 30 s |
 * | `batch_worker_deals_per_second` | worker | each worker's deals finished per second (last 30 s) |
 * | `batch_worker_jobs_in_flight` | worker | jobs each worker is running |
 * | `batch_worker_deals_in_flight` | worker | deals each worker is solving |
 * | `batch_worker_deals_finished` | worker | deals each worker finished since it started |
 *
 * On a worker's own `/metrics` (`WORKER_METRICS_PORT`): the same numbers of
 * that worker without the label (`batch_worker_*`), the jobs it completed and
 * handed back, the results it wrote that were already stored
 * (`batch_worker_duplicates_refused_total`), and the solver pool's metrics
 * (`solver_*`) and process metrics as on an API server.
 */
import { Gauge, type Registry } from 'prom-client';
import type { RedisBatchBackend, WorkerHeartbeat } from './backend.js';
import type { BatchConsumer } from './consumer.js';

/** Reads `fn` at most once per `ms` (one Redis read per scrape for several gauges). */
function memo<T>(fn: () => Promise<T>, ms = 500): () => Promise<T> {
  let at = 0;
  let value: Promise<T> | undefined;
  return () => {
    const now = Date.now();
    if (!value || now - at > ms) {
      at = now;
      value = fn();
      value.catch(() => (value = undefined));
    }
    return value;
  };
}

/**
 * Adds the queue depth and the per-worker gauges to an API server's registry.
 * They are read from Redis, the same for every front of a service, so the
 * sum over the fronts (`FRONTS` > 1) takes one front's (aggregator `first`).
 */
export function registerQueueMetrics(registry: Registry, backend: RedisBatchBackend): void {
  const counts = memo(() => backend.queueCounts());
  const workers = memo(() => backend.workers());
  new Gauge({
    name: 'batch_queue_jobs',
    help: 'BullMQ jobs (chunks of batch deals) by state; waiting + prioritized is the queue depth.',
    labelNames: ['state'] as const,
    registers: [registry],
    aggregator: 'first',
    async collect() {
      try {
        for (const [state, n] of Object.entries(await counts())) this.set({ state }, n);
      } catch {
        // Redis unreachable: the gauge keeps its last values; the API answers 503 meanwhile.
      }
    },
  });
  new Gauge({
    name: 'batch_workers',
    help: 'Batch workers with a heartbeat in the last 30 s.',
    registers: [registry],
    aggregator: 'first',
    async collect() {
      try {
        this.set((await workers()).length);
      } catch {
        // as above
      }
    },
  });
  const perWorker = (name: string, help: string, pick: (hb: WorkerHeartbeat) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['worker'] as const,
      registers: [registry],
      aggregator: 'first',
      async collect() {
        try {
          const live = await workers();
          this.reset();
          for (const hb of live) this.set({ worker: hb.name }, pick(hb));
        } catch {
          // as above
        }
      },
    });
  perWorker('batch_worker_deals_per_second', 'Deals a worker finished per second over the last 30 s (from its heartbeat).', (hb) => hb.dealsPerSecond);
  perWorker('batch_worker_jobs_in_flight', 'Jobs a worker is running (from its heartbeat).', (hb) => hb.jobsInFlight);
  perWorker('batch_worker_deals_in_flight', 'Deals a worker is solving (from its heartbeat).', (hb) => hb.dealsInFlight);
  perWorker('batch_worker_deals_finished', 'Deals a worker finished since it started (from its heartbeat).', (hb) => hb.dealsTotal);
}

/** Adds a worker's own numbers to its registry. */
export function registerWorkerMetrics(registry: Registry, worker: BatchConsumer): void {
  const gauge = (name: string, help: string, pick: (s: ReturnType<BatchConsumer['stats']>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(pick(worker.stats()));
      },
    });
  gauge('batch_worker_deals_per_second', 'Deals finished per second over the last 30 s.', (s) => s.dealsPerSecond);
  gauge('batch_worker_jobs_in_flight', 'Jobs running now.', (s) => s.jobsInFlight);
  gauge('batch_worker_deals_in_flight', 'Deals being solved now.', (s) => s.dealsInFlight);
  gauge('batch_worker_deals_total', 'Deals finished since start.', (s) => s.dealsTotal);
  gauge('batch_worker_jobs_total', 'Jobs completed since start.', (s) => s.jobsTotal);
  gauge('batch_worker_jobs_handed_back_total', 'Jobs handed back to the queue (drain) since start.', (s) => s.jobsHandedBack);
  gauge('batch_worker_duplicates_refused_total', 'Results this worker wrote that were already stored (a job run twice).', (s) => s.duplicatesRefused);
}
