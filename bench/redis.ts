/**
 * Benchmark of the `redis` batch backend. Prints numbers; not a test.
 *
 *   npm run bench:redis                                  # MS FreeCell 1..32000
 *   npm run bench:redis -- --to 4000 --runs embedded:2,redis:2x1 --json bench-redis.json
 *
 * 1. Throughput with the real engine (`--runs`): each run is a fresh real
 *    server on loopback and, for `redis:NxT`, N worker processes of T
 *    threads (`server/batch-worker-main.ts`); `POST /v1/batches` with the deals,
 *    deals/s = deals / (finishedAt - createdAt) of the batch. `embedded:T`
 *    is the default backend (SQLite, THREADS=T) for comparison;
 *    `redis-census:NxT` and `embedded-census:T` the same batch keeping
 *    exceptions only (`"results": "exceptions"`, jobs of `--census-chunk`
 *    deals). For the redis runs, Redis's own counters before and after
 *    (INFO commandstats, stats, cpu): commands executed per deal (those
 *    inside scripts included), EVALSHA calls per deal, bytes in/out per
 *    deal, Redis CPU per deal.
 * 2. Redis cost by chunk size (`--chunks`, and `--census-chunks` for
 *    batches that keep exceptions only), without the engine: two in-process
 *    workers whose "solve" answers at once (a 94-move solution, the size of
 *    a real one; a census worker's range solver summarises its sub-range at
 *    once), `--chunk-deals` deals per chunk size (a census: at least ten
 *    jobs): Redis CPU per deal, also beyond what the same seconds cost Redis
 *    with the workers idle (measured for 3 s before), commands per deal,
 *    and the deals/s that one Redis core would carry at 100 % and at 10 %.
 * 3. redis-benchmark of the commands the backend runs per deal: the RECORD
 *    script with 1 and with 100 results, the HMGET of a 200-deal chunk, and
 *    PING for scale (ops/s, 50 clients).
 *
 * The Redis is `REDIS_URL` (default redis://127.0.0.1:6399); when nothing
 * answers there, the bench starts `redis-server` on that port itself.
 * Redis, the workers and redis-benchmark share this machine's cores: read
 * Redis's numbers as upper bounds of its cost. The load average is printed
 * with every number.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { Redis } from 'ioredis';
import type { BatchStatus } from '../client-sdk/api/batch-schemas.js';
import type { Move } from '../client-sdk/core/moves.js';
import type { SolveOutcome } from '../client-sdk/core/solve-types.js';
import { RedisBatchBackend } from '../server/batches/redis/backend.js';
import { batchFields, encodeResult } from '../server/batches/redis/codec.js';
import { RedisKeys } from '../server/batches/redis/keys.js';
import { RECORD } from '../server/batches/redis/scripts.js';
import { BatchConsumer } from '../server/batches/redis/consumer.js';
import { summariseRange } from '../server/batches/census.js';
import type { ResultInput } from '../server/batches/model.js';
import type { RangeSolver } from '../server/batches/range-solver.js';
import { planBatch } from '../server/batches/positions.js';
import { DEFAULT_LIMITS_CONFIG } from '../server/limits.js';
import { deletePrefix, startWorker, type WorkerProcess } from '../tests/helpers/redis.js';
import { startServer, type ServerProcess } from '../tests/helpers/server-process.js';
import { positiveInt } from '../server/cli/usage.js';

interface Options {
  from: number;
  to: number;
  runs: string;
  chunk: number;
  censusChunk: number;
  chunks: string;
  censusChunks: string;
  chunkDeals: number;
  skipEngine?: boolean;
  skipChunks?: boolean;
  skipBenchmark?: boolean;
  json?: string;
}

const options = new Command()
  .name('bench:redis')
  .option('--from <n>', 'first MS FreeCell deal', positiveInt, 1)
  .option('--to <n>', 'last MS FreeCell deal', positiveInt, 32000)
  .option('--runs <list>', 'engine runs: embedded[-census]:THREADS or redis[-census]:WORKERSxTHREADS', 'embedded:2,redis:2x1,embedded-census:2,redis-census:2x1')
  .option('--chunk <n>', 'BATCH_CHUNK_DEALS of the engine runs', positiveInt, 200)
  .option('--census-chunk <n>', 'BATCH_CENSUS_CHUNK_DEALS of the engine runs', positiveInt, 10_000)
  .option('--chunks <list>', 'chunk sizes of the Redis cost runs', '1,10,50,200,1000')
  .option('--census-chunks <list>', 'chunk sizes of the Redis cost runs of batches that keep exceptions', '200,1000,10000')
  .option('--chunk-deals <n>', 'deals per Redis cost run', positiveInt, 20000)
  .option('--skip-engine', 'skip the engine runs (1)')
  .option('--skip-chunks', 'skip the Redis cost runs (2)')
  .option('--skip-benchmark', 'skip redis-benchmark (3)')
  .option('--json <file>', 'also write the numbers to this file')
  .parse()
  .opts<Options>();

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6399';
const REDIS_PORT = Number(new URL(REDIS_URL).port || 6379);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------ Redis counters

interface RedisCounters {
  commands: number;
  cpu: number;
  netIn: number;
  netOut: number;
  calls: Record<string, number>;
}

async function counters(redis: Redis): Promise<RedisCounters> {
  const info = await redis.info('all');
  const num = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
  return {
    commands: num('total_commands_processed'),
    cpu: num('used_cpu_sys') + num('used_cpu_user'),
    netIn: num('total_net_input_bytes'),
    netOut: num('total_net_output_bytes'),
    calls,
  };
}

/** Redis's work per deal between two snapshots (the INFO calls themselves left out). */
function perDeal(a: RedisCounters, b: RedisCounters, deals: number) {
  const byCommand: Record<string, number> = {};
  for (const [name, n] of Object.entries(b.calls)) {
    const d = n - (a.calls[name] ?? 0) - (name === 'info' ? 1 : 0);
    if (d > 0) byCommand[name] = round(d / deals, 3);
  }
  const cpuUs = ((b.cpu - a.cpu) * 1e6) / deals;
  return {
    commandsPerDeal: round((b.commands - a.commands - 1) / deals, 3),
    evalshaPerDeal: round(((b.calls.evalsha ?? 0) - (a.calls.evalsha ?? 0)) / deals, 4),
    bytesInPerDeal: Math.round((b.netIn - a.netIn) / deals),
    bytesOutPerDeal: Math.round((b.netOut - a.netOut) / deals),
    redisCpuUsPerDeal: round(cpuUs, 1),
    /** Deals/s one Redis core would carry at 100 % of its CPU on this work. */
    redisCapacityDealsPerSecond: cpuUs > 0 ? Math.round(1e6 / cpuUs) : null,
    byCommand: Object.fromEntries(Object.entries(byCommand).sort((x, y) => y[1] - x[1])),
  };
}

let ownRedis: ChildProcess | undefined;
async function connectRedis(): Promise<Redis> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return probe;
  } catch {
    probe.disconnect();
  }
  console.log(`no Redis at ${REDIS_URL}: starting redis-server on port ${REDIS_PORT}`);
  ownRedis = spawn('redis-server', ['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    await sleep(100);
    const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      await r.ping();
      return r;
    } catch {
      r.disconnect();
    }
  }
  throw new Error('could not start redis-server');
}

// ------------------------------------------------------------ 1. engine runs

async function runBatch(api: ServerProcess, deals: string, census: boolean): Promise<BatchStatus> {
  const res = await fetch(`${api.url}/v1/batches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ game: 'freecell', numbering: 'ms', deals, limits: { maxStates: 5_000_000, timeoutMs: 30_000 }, ...(census ? { results: 'exceptions' } : {}) }),
  });
  if (res.status !== 202) throw new Error(`POST /v1/batches: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as BatchStatus;
  for (;;) {
    await sleep(1000);
    const st = (await (await fetch(`${api.url}/v1/batches/${id}`)).json()) as BatchStatus;
    if (st.status !== 'running') return st;
  }
}

async function engineRun(redis: Redis, spec: string) {
  const total = options.to - options.from + 1;
  const deals = `${options.from}..${options.to}`;
  const embedded = /^embedded(?:-census)?:(\d+)$/.exec(spec);
  const distributed = /^redis(?:-census)?:(\d+)x(\d+)$/.exec(spec);
  const census = spec.includes('-census:');
  if (!embedded && !distributed) throw new Error(`--runs: "${spec}" is neither embedded[-census]:T nor redis[-census]:NxT`);
  const loadBefore = load();
  let st: BatchStatus;
  let redisWork: ReturnType<typeof perDeal> | null = null;
  if (embedded) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
    const api = await startServer({ BATCH_DB_PATH: join(dir, 'b.sqlite'), THREADS: embedded[1], LOG_LEVEL: 'warn' });
    try {
      st = await runBatch(api, deals, census);
    } finally {
      await api.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    const prefix = `bench-${Date.now()}`;
    const api = await startServer({
      BATCH_BACKEND: 'redis',
      REDIS_URL,
      REDIS_PREFIX: prefix,
      BATCH_CHUNK_DEALS: String(options.chunk),
      BATCH_CENSUS_CHUNK_DEALS: String(options.censusChunk),
      THREADS: '1',
      LOG_LEVEL: 'warn',
    });
    const workers: WorkerProcess[] = [];
    try {
      for (let i = 0; i < Number(distributed![1]); i++) workers.push(await startWorker({ REDIS_URL, REDIS_PREFIX: prefix, THREADS: distributed![2] }));
      const a = await counters(redis);
      st = await runBatch(api, deals, census);
      const b = await counters(redis);
      redisWork = perDeal(a, b, total);
    } finally {
      await Promise.all([api.kill(), ...workers.map((w) => w.kill())]);
      await deletePrefix(prefix);
    }
  }
  const seconds = (Date.parse(st.finishedAt!) - Date.parse(st.createdAt)) / 1000;
  const result = {
    run: spec,
    deals: total,
    seconds: round(seconds, 1),
    dealsPerSecond: round(total / seconds, 1),
    counts: st.counts,
    loadAverage: { before: loadBefore, after: load() },
    ...(redisWork ? { redis: redisWork } : {}),
  };
  console.log(
    `${spec.padEnd(12)} ${result.seconds} s, ${result.dealsPerSecond} deals/s, ${JSON.stringify(st.counts)}; load ${loadBefore} → ${result.loadAverage.after}` +
      (redisWork
        ? `\n             redis per deal: ${redisWork.commandsPerDeal} commands (${redisWork.evalshaPerDeal} EVALSHA), ${redisWork.redisCpuUsPerDeal} µs CPU, ` +
          `${redisWork.bytesInPerDeal} B in / ${redisWork.bytesOutPerDeal} B out; ${JSON.stringify(redisWork.byCommand)}`
        : ''),
  );
  return result;
}

// ------------------------------------------------------------ 2. Redis cost by chunk size

/** A real-sized solution (MS deals average about 94 moves). */
const MOVES: Move[] = Array.from({ length: 94 }, (_, i) => ({
  from: i % 3 === 0 ? 'cell' : 'column',
  fromIndex: i % 4,
  to: i % 2 === 0 ? 'foundation' : 'column',
  toIndex: (i + 1) % 4,
  count: 1 + (i % 3),
  card: 'TD',
  auto: i % 5 === 0,
}));
const INSTANT: SolveOutcome = { verdict: 'solved', moves: MOVES, stats: { statesExpanded: 800, statesStored: 1400, elapsedMs: 3.1, memoryBytes: 0 } };

/**
 * A census worker's range solver without the engine: every deal solved at
 * once with INSTANT's solution and stats (0.01 ms, so sub-ranges are of the
 * most deals), summarised as the real one does (census.ts).
 */
const instantRange: RangeSolver = async (job) => {
  await new Promise((r) => setImmediate(r));
  const results: ResultInput[] = [];
  for (let index = job.lo; index < job.hi; index++) results.push({ index, ...INSTANT, statesExpanded: 800, statesStored: 1400, elapsedMs: 0.01 });
  return { kind: 'done', ...summariseRange(results, job.mode) };
};

/** Redis CPU seconds a second with the workers idle (their heartbeats, BullMQ's checks, Redis's cron), over `ms`. */
async function idleCpuPerSecond(redis: Redis, ms: number): Promise<number> {
  const a = await counters(redis);
  await sleep(ms);
  const b = await counters(redis);
  return (b.cpu - a.cpu) / (ms / 1000);
}

async function chunkRun(redis: Redis, chunk: number, census: boolean) {
  const prefix = `bench-chunk-${chunk}-${Date.now()}`;
  const backend = await RedisBatchBackend.open({ url: REDIS_URL, prefix, chunkDeals: chunk, censusChunkDeals: chunk });
  const solve = async () => {
    await new Promise((r) => setImmediate(r));
    return structuredClone(INSTANT);
  };
  const workers = await Promise.all(
    [0, 1].map((i) => BatchConsumer.start({ url: REDIS_URL, prefix, solve, ...(census ? { solveRange: instantRange } : {}), threads: 4, name: `bench-${i}` })),
  );
  // a census counts whole jobs: enough deals for ten jobs of the largest size
  const total = census ? Math.max(options.chunkDeals, 10 * chunk) : options.chunkDeals;
  try {
    const idle = await idleCpuPerSecond(redis, 3000);
    const a = await counters(redis);
    const t = performance.now();
    const st = await backend.create({ game: 'freecell', deals: `1..${total}`, ...(census ? { results: 'exceptions' as const } : {}) });
    for (;;) {
      const s = (await backend.status(st.id))!;
      if (s.status !== 'running') break;
      await sleep(200);
    }
    const seconds = (performance.now() - t) / 1000;
    const b = await counters(redis);
    const work = perDeal(a, b, total);
    /** Redis CPU a deal beyond what the same seconds cost with nothing to do. */
    const beyondIdleUs = round(Math.max(0, (b.cpu - a.cpu - idle * seconds) * 1e6) / total, 3);
    const result = { chunk, census, deals: total, seconds: round(seconds, 1), dealsPerSecond: Math.round(total / seconds), idleRedisCpuMsPerSecond: round(idle * 1000, 2), redisCpuUsPerDealBeyondIdle: beyondIdleUs, loadAverage: load(), ...work };
    console.log(
      `${census ? 'census ' : ''}chunk ${String(chunk).padStart(5)}: ${work.commandsPerDeal} commands/deal (${work.evalshaPerDeal} EVALSHA), ${work.redisCpuUsPerDeal} µs Redis CPU/deal ` +
        `(${beyondIdleUs} µs beyond the idle ${result.idleRedisCpuMsPerSecond} ms/s) ` +
        `→ one Redis core at 100 %: ${work.redisCapacityDealsPerSecond} deals/s, at 10 %: ${work.redisCapacityDealsPerSecond ? Math.round(work.redisCapacityDealsPerSecond / 10) : '-'}; ` +
        `${result.dealsPerSecond} deals/s reached here (2 workers, no engine); load ${result.loadAverage}`,
    );
    return result;
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await backend.close();
    await deletePrefix(prefix);
  }
}

// ------------------------------------------------------------ 3. redis-benchmark

async function redisBenchmark(redis: Redis) {
  const prefix = 'bench-rb';
  const k = new RedisKeys(prefix);
  const { spec } = planBatch({ game: 'freecell', deals: '1..10' }, DEFAULT_LIMITS_CONFIG, 10);
  await redis.hset(k.batch('b'), batchFields('b', spec, 1e15, 200, Date.now()));
  await redis.script('LOAD', RECORD.lua);
  const payload = encodeResult({ index: 123456, ...INSTANT, statesExpanded: 800, statesStored: 1400, elapsedMs: 3.1 });
  const keys = [k.batch('b'), k.index('b'), k.results('b'), k.running];
  const result = (n: number) => ['EVALSHA', RECORD.sha, '4', ...keys, k.events, 'b', String(n), ...Array.from({ length: n }, () => ['__rand_int__', 'solved', '94', '3.1', payload]).flat()];
  const cases: [string, string[]][] = [
    ['PING', ['PING']],
    ['RECORD, 1 result', result(1)],
    ['RECORD, 100 results', result(100)],
    ['HMGET of a 200-deal chunk', ['HMGET', k.index('b'), ...Array.from({ length: 200 }, (_, i) => String(i))]],
    ['HGET status', ['HGET', k.batch('b'), 'status']],
  ];
  const out: Record<string, number> = {};
  for (const [name, args] of cases) {
    const n = name.startsWith('RECORD, 100') ? 2000 : 50000;
    const r = spawnSync('redis-benchmark', ['-p', String(REDIS_PORT), '-c', '50', '-n', String(n), '-r', '100000000', '-q', ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
    const m = /([\d.]+) requests per second/.exec(r.stdout ?? '');
    if (!m) throw new Error(`redis-benchmark ${name}: ${r.stdout} ${r.stderr}`);
    out[name] = Math.round(Number(m[1]));
    console.log(`redis-benchmark ${name.padEnd(26)} ${out[name]} ops/s; load ${load()}`);
  }
  await deletePrefix(prefix);
  return out;
}

// ------------------------------------------------------------ main

const redis = await connectRedis();
console.log(`bench:redis: MS FreeCell ${options.from}..${options.to}, ${availableParallelism()} cores, Redis at ${REDIS_URL} (${(await redis.info('server')).match(/redis_version:(\S+)/)?.[1]}); load average ${load()}`);
const report: Record<string, unknown> = { cores: availableParallelism(), started: new Date().toISOString() };
try {
  if (!options.skipEngine) {
    const runs = [];
    for (const spec of options.runs.split(',')) runs.push(await engineRun(redis, spec.trim()));
    report.engine = { chunk: options.chunk, censusChunk: options.censusChunk, runs };
  }
  if (!options.skipChunks) {
    const chunks = [];
    for (const c of options.chunks.split(',')) chunks.push(await chunkRun(redis, positiveInt(c.trim()), false));
    for (const c of options.censusChunks.split(',')) chunks.push(await chunkRun(redis, positiveInt(c.trim()), true));
    report.chunks = chunks;
  }
  if (!options.skipBenchmark) report.redisBenchmark = await redisBenchmark(redis);
  report.loadAverageAtEnd = load();
} finally {
  redis.disconnect();
  ownRedis?.kill();
}
if (options.json) writeFileSync(options.json, JSON.stringify(report, null, 2));
