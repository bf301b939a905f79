/**
 * Batch benchmark: the throughput of a batch through the API against the same
 * engine called directly, and the latency of `POST /v1/solve` while a large
 * batch runs against an idle server. Prints numbers; not a test.
 *
 *   npm run bench:batch                                   # MS FreeCell 1..32000
 *   npm run bench:batch -- --from 1 --to 2000 --threads 2 --json bench-batch.json
 *   npm run bench:batch -- --to 1000000 --single-every 10 --api-only --readers 0 --requests 0
 *
 * 1. single: one engine on the main thread, every deal in turn (run again
 *    after 3, and the mean of both taken: the host's speed drifts), in CPU
 *    time of this thread; with `--single-every n`, every n-th deal of the
 *    range only, its rate standing for the range's (a range of a million
 *    deals need not be dealt in memory or solved twice more).
 * 2. direct: every deal through the service's worker pool (`createPool`) as
 *    the batch scheduler hands them (shared runs of 512 deals through
 *    `pool.solveManyPacked`, `threads` in flight), no HTTP, no database:
 *    the pool's own pace. Deals are generated before the clock starts.
 * 3. api: the real server (child process, loopback port, fresh SQLite file,
 *    THREADS = threads), `POST /v1/batches` with the same deals, polled
 *    every 200 ms until `done`; wall time from the POST to the status `done`.
 *    Overhead ratio = api wall time / direct wall time; scaling = each
 *    one's deals/s over the single engine's (what a user gets from the
 *    cores). The server's CPU a deal meanwhile, its main thread and all its
 *    threads (/proc), beside the single engine's. `--api-only` skips 2.
 * 4. latency: `--requests` sequential `POST /v1/solve` (MS FreeCell deals 1,
 *    2, 3, ... in turn) on the idle server, then the same requests while a
 *    large batch runs (`--busy-deals`, default MS 1..100000; started 2 s
 *    earlier, cancelled after); p50,
 *    p90, p99 and max, and the batch's deals/s meanwhile.
 * 5. readers (`--readers`, default 8): a batch that keeps every result
 *    (`--reader-deals`, default MS 1..1000000) is run to its end; its
 *    storage is read off the SQLite file (and its WAL) and divided by its
 *    results; then `--readers` clients (curl processes, reading as fast as
 *    the socket gives) read all its results at once (`?follow=false`)
 *    while `/healthz` is asked every 20 ms: its p50, p99 and max, each
 *    reader's time and bytes; then `DELETE /v1/batches/{id}/results`: how
 *    long it took and the file's size after it.
 *
 * The server is the compiled one (`dist/server/main.js`, as `npm start`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import type { BatchStatus } from '../client-sdk/api/batch-schemas.js';
import { Engine, loadEngineModule } from '../client-sdk/core/engine/index.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import type { Deal } from '../client-sdk/core/rules.js';
import { createPool } from '../server/pool.js';
import { startServer, type ServerProcess } from '../tests/helpers/server-process.js';
import { ROOT } from '../tests/helpers/paths.js';
import { cpuReading } from './proc-cpu.js';
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
  readers: number;
  readerDeals: string;
  readersOnly?: boolean;
  singleEvery: number;
  apiOnly?: boolean;
  json?: string;
}

const options = new Command()
  .name('bench:batch')
  .option('--game <id>', 'game', 'freecell')
  .option('--numbering <n>', 'numbering', 'ms')
  .option('--from <n>', 'first deal', positiveInt, 1)
  .option('--to <n>', 'last deal', positiveInt, 32000)
  .option('--threads <n>', 'solver threads (pool and server)', positiveInt, availableParallelism())
  .option('--requests <n>', 'POST /v1/solve requests per latency run (phase 4; 0 = skip it)', (v) => (v === '0' ? 0 : positiveInt(v)), 300)
  .option('--batch-concurrency <n>', 'BATCH_CONCURRENCY of the server (default: threads)', positiveInt)
  .option('--latency-only', 'skip the throughput runs (1 and 2)')
  .option('--busy-deals <range>', 'MS FreeCell deals of the batch that runs during the loaded latency run', '1..100000')
  .option('--readers <n>', 'clients reading a large batch at once (phase 5; 0 = skip it)', (v) => (v === '0' ? 0 : positiveInt(v)), 8)
  .option('--reader-deals <range>', 'MS FreeCell deals of the batch the readers read', '1..1000000')
  .option('--readers-only', 'run phase 5 only')
  .option('--single-every <n>', 'the single engine solves every n-th deal of the range only (phase 1)', positiveInt, 1)
  .option('--api-only', 'skip the direct pool run (phase 2)')
  .option('--json <file>', 'also write the numbers to this file')
  .parse()
  .opts<Options>();

const total = options.to - options.from + 1;
/** Deals a shared run in the direct run (about what the scheduler dispatches of MS deals: 100 ms of 0.2 ms deals). */
const RUN_DEALS = 512;
const limits = { maxStates: 5_000_000, timeoutMs: 30_000 };
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

/** The set's deals (every `every`-th), dealt before any clock starts. */
function dealSet(every = 1): Deal[] {
  const deals: Deal[] = [];
  for (let n = options.from; n <= options.to; n += every) deals.push(resolveDeal({ game: options.game, numbering: options.numbering, deal: n }));
  return deals;
}

/** CPU time of this thread so far, ms (the single engine runs on it alone). */
function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * One engine on this thread, every deal of `deals` in turn: the baseline
 * the pool and the API scale from. `ms`: the whole range's time at the
 * measured CPU time a deal.
 */
async function single(deals: readonly Deal[]): Promise<{ ms: number; cpuMsPerDeal: number }> {
  const engine = Engine.instantiate(await loadEngineModule());
  engine.solve(deals[0], { limits });
  const t = ownCpuMs();
  for (const deal of deals) engine.solve(deal, { limits });
  const cpuMsPerDeal = (ownCpuMs() - t) / deals.length;
  return { ms: cpuMsPerDeal * total, cpuMsPerDeal };
}

/**
 * The service's worker pool with no HTTP and no database, handed the deals
 * as the batch scheduler hands them: shared runs of RUN_DEALS
 * (`pool.solveManyPacked`; the scheduler's 100 ms of MS deals), `threads`
 * runs in flight.
 */
async function direct(deals: readonly Deal[]): Promise<{ ms: number; counts: Record<string, number> }> {
  const pool = createPool({ module: await loadEngineModule(), threads: options.threads });
  await Promise.all(Array.from({ length: options.threads }, () => pool.solve(deals[0], { maxStates: 1000, timeoutMs: 5000 })));
  const counts: Record<string, number> = {};
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: options.threads }, async () => {
      while (next < deals.length) {
        const from = next;
        next = Math.min(deals.length, next + RUN_DEALS);
        for (const answer of await pool.solveManyPacked(deals.slice(from, next), limits)) {
          const verdict = answer instanceof Error ? 'error' : answer.outcome.verdict;
          counts[verdict] = (counts[verdict] ?? 0) + 1;
        }
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

async function apiBatch(s: ServerProcess): Promise<{ ms: number; status: BatchStatus; mainCpuMsPerDeal: number; serverCpuMsPerDeal: number }> {
  const pid = s.child.pid!;
  const cpu0 = cpuReading(pid);
  const t = performance.now();
  const res = await post(s, '/v1/batches', { game: options.game, numbering: options.numbering, deals: `${options.from}..${options.to}`, limits });
  if (res.status !== 202) throw new Error(`POST /v1/batches: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as BatchStatus;
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const st = await status(s, id);
    if (st.status !== 'running') {
      const ms = performance.now() - t;
      const cpu = cpuReading(pid);
      return { ms, status: st, mainCpuMsPerDeal: (cpu.main - cpu0.main) / total, serverCpuMsPerDeal: (cpu.all - cpu0.all) / total };
    }
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

/** The SQLite file and its WAL, bytes. */
function storageOf(path: string): number {
  return [path, `${path}-wal`].reduce((n, p) => n + (existsSync(p) ? statSync(p).size : 0), 0);
}

/**
 * Phase 5: a batch of `--reader-deals` to its end, then `--readers` curl
 * clients reading all of it at once while `/healthz` is timed every 20 ms,
 * then its results deleted.
 */
async function readers(s: ServerProcess, db: string) {
  const t = performance.now();
  const res = await post(s, '/v1/batches', { game: 'freecell', numbering: 'ms', deals: options.readerDeals, limits });
  if (res.status !== 202) throw new Error(`POST /v1/batches: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as BatchStatus;
  let st: BatchStatus;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    st = await status(s, id);
    if (st.status !== 'running') break;
  }
  const solveSeconds = (performance.now() - t) / 1000;
  const stored = storageOf(db);
  console.log(`readers: batch of ${st.done} results in ${solveSeconds.toFixed(0)} s; storage ${(stored / 2 ** 20).toFixed(1)} MiB, ${Math.round(stored / st.done)} bytes a result; load ${load()}`);

  const started = performance.now();
  const clients = Array.from({ length: options.readers }, () => {
    const child = spawn('curl', ['-s', '-o', '/dev/null', '-w', '%{size_download} %{time_total}', `${s.url}/v1/batches/${id}/results?follow=false`]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise<{ bytes: number; seconds: number }>((resolve) =>
      child.on('exit', () => {
        const [bytes, seconds] = out.trim().split(' ').map(Number);
        resolve({ bytes, seconds });
      }),
    );
  });
  let reading = true;
  const all = Promise.all(clients).finally(() => (reading = false));
  const healthz: number[] = [];
  while (reading) {
    const h = performance.now();
    await (await fetch(`${s.url}/healthz`)).arrayBuffer();
    healthz.push(performance.now() - h);
    await new Promise((r) => setTimeout(r, 20));
  }
  const read = await all;
  const readSeconds = (performance.now() - started) / 1000;
  const healthzMs = percentiles(healthz);
  console.log(
    `readers: ${options.readers} clients read ${read[0].bytes} bytes each in ${readSeconds.toFixed(1)} s (each ${read.map((r) => r.seconds.toFixed(1)).join(', ')} s); ` +
      `/healthz meanwhile ${JSON.stringify(healthzMs)} ms; load ${load()}`,
  );
  const p = performance.now();
  const purge = await fetch(`${s.url}/v1/batches/${id}/results`, { method: 'DELETE' });
  if (purge.status !== 200) throw new Error(`DELETE /v1/batches/${id}/results: ${purge.status} ${await purge.text()}`);
  const purgeMs = performance.now() - p;
  const after = storageOf(db);
  console.log(`readers: DELETE .../results in ${(purgeMs / 1000).toFixed(1)} s; storage ${(stored / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB`);
  return {
    deals: st.done,
    solveSeconds,
    storageBytes: stored,
    bytesPerResult: stored / st.done,
    readers: options.readers,
    readSeconds,
    perReader: read,
    healthzMs,
    purgeMs,
    storageAfterPurgeBytes: after,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-batch-'));
console.log(`${options.game} ${options.numbering} ${options.from}..${options.to} (${total} deals), ${options.threads} threads; load average ${load()}`);

const throughput = !options.latencyOnly && !options.readersOnly;
const deals = throughput ? dealSet(options.singleEvery) : [];
const single1 = throughput ? await single(deals) : null;
const sampled = options.singleEvery > 1 ? ` (every ${options.singleEvery}th deal: ${deals.length})` : '';
if (single1) console.log(`single engine (this thread)${sampled}: ${single1.cpuMsPerDeal.toFixed(4)} ms CPU a deal, ${(1000 / single1.cpuMsPerDeal).toFixed(1)} deals/s; load ${load()}`);
const d = throughput && !options.apiOnly ? await direct(deals) : null;
const directRate = d ? total / (d.ms / 1000) : 0;
if (d && single1) {
  console.log(
    `direct (pool, no HTTP/DB, runs of ${RUN_DEALS}): ${(d.ms / 1000).toFixed(1)} s, ${directRate.toFixed(1)} deals/s, ${(single1.ms / d.ms).toFixed(2)}× the single engine, ${JSON.stringify(d.counts)}; load ${load()}`,
  );
}

const dbPath = join(dir, 'bench.sqlite');
const server = await startServer(
  {
    BATCH_DB_PATH: dbPath,
    THREADS: String(options.threads),
    LOG_LEVEL: 'warn',
    ...(options.batchConcurrency ? { BATCH_CONCURRENCY: String(options.batchConcurrency) } : {}),
  },
  undefined,
  join(ROOT, 'dist/server/main.js'),
);
let results: Record<string, unknown>;
try {
  const a = throughput ? await apiBatch(server) : null;
  const apiRate = a ? total / (a.ms / 1000) : 0;
  // the single engine again after the API run: the host's speed drifts by tens of percent over minutes, and the mean of both brackets the other runs
  const single2 = a ? await single(deals) : null;
  const singleMs = single1 && single2 ? (single1.ms + single2.ms) / 2 : 0;
  if (a && single1 && single2) {
    const engineMs = (single1.cpuMsPerDeal + single2.cpuMsPerDeal) / 2;
    console.log(
      `api (POST /v1/batches → done): ${(a.ms / 1000).toFixed(1)} s, ${apiRate.toFixed(1)} deals/s, ${JSON.stringify(a.status.counts)}` +
        `${d ? `; overhead ratio ${(a.ms / d.ms).toFixed(3)}` : ''}; load ${load()}\n` +
        `  server CPU a deal: main thread ${a.mainCpuMsPerDeal.toFixed(4)} ms, all threads ${a.serverCpuMsPerDeal.toFixed(4)} ms (${(a.serverCpuMsPerDeal / engineMs).toFixed(2)}× the single engine's ${engineMs.toFixed(4)} ms)\n` +
        `single engine again: ${single2.cpuMsPerDeal.toFixed(4)} ms CPU a deal; scaling by the mean of both single runs:${d ? ` direct ${(singleMs / d.ms).toFixed(2)}×,` : ''} api ${(singleMs / a.ms).toFixed(2)}×`,
    );
  }

  let idle: ReturnType<typeof percentiles> | null = null;
  let busy: ReturnType<typeof percentiles> | null = null;
  let batchRate = 0;
  if (!options.readersOnly && options.requests > 0) {
    idle = await latency(server);
    console.log(`POST /v1/solve idle: ${JSON.stringify(idle)}`);

    const big = (await (await post(server, '/v1/batches', { game: 'freecell', numbering: 'ms', deals: options.busyDeals, limits })).json()) as BatchStatus;
    await new Promise((r) => setTimeout(r, 2000));
    const before = await status(server, big.id);
    const t = performance.now();
    busy = await latency(server);
    const after = await status(server, big.id);
    batchRate = (after.done - before.done) / ((performance.now() - t) / 1000);
    await fetch(`${server.url}/v1/batches/${big.id}`, { method: 'DELETE' });
    console.log(
      `POST /v1/solve during a batch of ${options.busyDeals} (BATCH_CONCURRENCY ${options.batchConcurrency ?? options.threads}): ${JSON.stringify(busy)}; ` +
        `the batch meanwhile ${batchRate.toFixed(1)} deals/s`,
    );
  }
  const reading = options.readers > 0 ? await readers(server, dbPath) : null;
  results = {
    set: { game: options.game, numbering: options.numbering, from: options.from, to: options.to, threads: options.threads },
    single: single1 && single2 && { seconds: [single1.ms / 1000, single2.ms / 1000], dealsPerSecond: total / (singleMs / 1000) },
    direct: d && { seconds: d.ms / 1000, dealsPerSecond: directRate, counts: d.counts, scaling: singleMs / d.ms },
    api: a && {
      seconds: a.ms / 1000,
      dealsPerSecond: apiRate,
      counts: a.status.counts,
      ...(d ? { overheadRatio: a.ms / d.ms } : {}),
      scaling: singleMs / a.ms,
      mainCpuMsPerDeal: a.mainCpuMsPerDeal,
      serverCpuMsPerDeal: a.serverCpuMsPerDeal,
    },
    solveLatencyMs: idle && { idle, duringBatch: busy, batchDealsPerSecondMeanwhile: batchRate },
    readers: reading,
    loadAverageAtEnd: load(),
  };
} finally {
  await server.kill();
  rmSync(dir, { recursive: true, force: true });
}
if (options.json) writeFileSync(options.json, JSON.stringify(results, null, 2));
