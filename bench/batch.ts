/**
 * Batch benchmark: the throughput of a batch through the API against the same
 * engine called directly, and the latency of `POST /v1/solve` while a large
 * batch runs against an idle server. Prints numbers; not a test.
 *
 *   npm run bench:batch                                   # MS FreeCell 1..32000
 *   npm run bench:batch -- --from 1 --to 2000 --threads 2 --json bench-batch.json
 *
 * 1. direct: every deal through the service's worker pool (`createPool`),
 *    `threads` solves in flight, no HTTP, no database: the engine's own pace
 *    on this many threads. Deals are generated before the clock starts.
 * 2. api: the real server (child process, loopback port, fresh SQLite file,
 *    THREADS = threads), `POST /v1/batches` with the same deals, polled
 *    every 200 ms until `done`; wall time from the POST to the status `done`.
 *    Overhead ratio = api wall time / direct wall time.
 * 3. latency: `--requests` sequential `POST /v1/solve` (MS FreeCell deals 1,
 *    2, 3, ... in turn) on the idle server, then the same requests while a
 *    large batch runs (`--busy-deals`, default MS 1..100000; started 2 s
 *    earlier, cancelled after); p50,
 *    p90, p99 and max, and the batch's deals/s meanwhile.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import type { BatchStatus } from '../client-sdk/api/batch-schemas.js';
import { loadEngineModule } from '../client-sdk/core/engine.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import type { Deal } from '../client-sdk/core/rules.js';
import { createPool } from '../server/pool.js';
import { startServer, type ServerProcess } from '../tests/helpers/server-process.js';
import { positiveInt } from '../server/cli/usage.js';

interface Options {
  game: string;
  numbering: 'ms' | 'pysolfc';
  from: number;
  to: number;
  threads: number;
  requests: number;
  batchConcurrency?: number;
  busyDeals: string;
  latencyOnly?: boolean;
  json?: string;
}

const options = new Command()
  .name('bench:batch')
  .option('--game <id>', 'game', 'freecell')
  .option('--numbering <n>', 'numbering', 'ms')
  .option('--from <n>', 'first deal', positiveInt, 1)
  .option('--to <n>', 'last deal', positiveInt, 32000)
  .option('--threads <n>', 'solver threads (pool and server)', positiveInt, availableParallelism())
  .option('--requests <n>', 'POST /v1/solve requests per latency run', positiveInt, 300)
  .option('--batch-concurrency <n>', 'BATCH_CONCURRENCY of the server (default: threads)', positiveInt)
  .option('--latency-only', 'skip the throughput runs (1 and 2)')
  .option('--busy-deals <range>', 'MS FreeCell deals of the batch that runs during the loaded latency run', '1..100000')
  .option('--json <file>', 'also write the numbers to this file')
  .parse()
  .opts<Options>();

const total = options.to - options.from + 1;
const limits = { maxStates: 5_000_000, timeoutMs: 30_000 };
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

async function direct(): Promise<{ ms: number; counts: Record<string, number> }> {
  const deals: Deal[] = [];
  for (let n = options.from; n <= options.to; n++) deals.push(resolveDeal({ game: options.game, numbering: options.numbering, deal: n }));
  const pool = createPool({ module: await loadEngineModule(), threads: options.threads });
  await Promise.all(Array.from({ length: options.threads }, () => pool.solve(deals[0], { maxStates: 1000, timeoutMs: 5000 })));
  const counts: Record<string, number> = {};
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: options.threads }, async () => {
      while (next < deals.length) {
        const outcome = await pool.solve(deals[next++], limits);
        counts[outcome.verdict] = (counts[outcome.verdict] ?? 0) + 1;
      }
    }),
  );
  const ms = performance.now() - t;
  await pool.close();
  return { ms, counts };
}

async function post(s: ServerProcess, path: string, body: unknown): Promise<Response> {
  return fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function status(s: ServerProcess, id: string): Promise<BatchStatus> {
  return (await fetch(`${s.url}/v1/batches/${id}`)).json() as Promise<BatchStatus>;
}

async function apiBatch(s: ServerProcess): Promise<{ ms: number; status: BatchStatus }> {
  const t = performance.now();
  const res = await post(s, '/v1/batches', { game: options.game, numbering: options.numbering, deals: `${options.from}..${options.to}`, limits });
  if (res.status !== 202) throw new Error(`POST /v1/batches: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as BatchStatus;
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const st = await status(s, id);
    if (st.status !== 'running') return { ms: performance.now() - t, status: st };
  }
}

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: sorted.length, p50: r(at(50)), p90: r(at(90)), p99: r(at(99)), max: r(sorted[sorted.length - 1]), mean: r(sorted.reduce((a, b) => a + b, 0) / sorted.length) };
}

async function latency(s: ServerProcess): Promise<ReturnType<typeof percentiles>> {
  const samples: number[] = [];
  for (let i = 0; i < options.requests; i++) {
    const t = performance.now();
    const res = await post(s, '/v1/solve', { game: 'freecell', deal: (i % 200) + 1 });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`POST /v1/solve: ${res.status}`);
    samples.push(performance.now() - t);
  }
  return percentiles(samples);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-batch-'));
console.log(`${options.game} ${options.numbering} ${options.from}..${options.to} (${total} deals), ${options.threads} threads; load average ${load()}`);

const d = options.latencyOnly ? null : await direct();
const directRate = d ? total / (d.ms / 1000) : 0;
if (d) console.log(`direct (pool, no HTTP/DB): ${(d.ms / 1000).toFixed(1)} s, ${directRate.toFixed(1)} deals/s, ${JSON.stringify(d.counts)}; load ${load()}`);

const server = await startServer({
  BATCH_DB_PATH: join(dir, 'bench.sqlite'),
  THREADS: String(options.threads),
  LOG_LEVEL: 'warn',
  ...(options.batchConcurrency ? { BATCH_CONCURRENCY: String(options.batchConcurrency) } : {}),
});
let results: Record<string, unknown>;
try {
  const a = d ? await apiBatch(server) : null;
  const apiRate = a ? total / (a.ms / 1000) : 0;
  if (a && d) {
    console.log(
      `api (POST /v1/batches → done): ${(a.ms / 1000).toFixed(1)} s, ${apiRate.toFixed(1)} deals/s, ${JSON.stringify(a.status.counts)}; ` +
        `overhead ratio ${(a.ms / d.ms).toFixed(3)}; load ${load()}`,
    );
  }

  const idle = await latency(server);
  console.log(`POST /v1/solve idle: ${JSON.stringify(idle)}`);

  const big = (await (await post(server, '/v1/batches', { game: 'freecell', numbering: 'ms', deals: options.busyDeals, limits })).json()) as BatchStatus;
  await new Promise((r) => setTimeout(r, 2000));
  const before = await status(server, big.id);
  const t = performance.now();
  const busy = await latency(server);
  const after = await status(server, big.id);
  const batchRate = (after.done - before.done) / ((performance.now() - t) / 1000);
  await fetch(`${server.url}/v1/batches/${big.id}`, { method: 'DELETE' });
  console.log(
    `POST /v1/solve during a batch of ${options.busyDeals} (BATCH_CONCURRENCY ${options.batchConcurrency ?? options.threads}): ${JSON.stringify(busy)}; ` +
      `the batch meanwhile ${batchRate.toFixed(1)} deals/s`,
  );
  results = {
    set: { game: options.game, numbering: options.numbering, from: options.from, to: options.to, threads: options.threads },
    direct: d && { seconds: d.ms / 1000, dealsPerSecond: directRate, counts: d.counts },
    api: a && d && { seconds: a.ms / 1000, dealsPerSecond: apiRate, counts: a.status.counts, overheadRatio: a.ms / d.ms },
    solveLatencyMs: { idle, duringBatch: busy, batchDealsPerSecondMeanwhile: batchRate },
    loadAverageAtEnd: load(),
  };
} finally {
  await server.kill();
  rmSync(dir, { recursive: true, force: true });
}
if (options.json) writeFileSync(options.json, JSON.stringify(results, null, 2));
