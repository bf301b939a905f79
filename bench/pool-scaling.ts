/**
 * Pool scaling measured so that the machine's drift falls on both sides
 * alike: the deals are cut into chunks, and every chunk is solved once by
 * one engine on the main thread and once by the pool (the order alternating
 * from chunk to chunk), each side timed separately. The scaling is the
 * single engine's wall time over the pool's, summed over the chunks; the
 * per-chunk ratios give its spread. The host's speed drifts by ±30 % over
 * minutes (docs/benchmarks.md, "Pool scaling"), far more than a pool change, so
 * two separate runs (`npm run bench` single, then pool) cannot show a
 * 1.8× reliably; chunks of a second or two can. Prints numbers; not a test.
 *
 *   npm run bench:pool-scaling                                      # MS 1..32000 as batches run them: 512 deals a shared run, 2 in flight, the compiled worker
 *   npm run bench:pool-scaling -- --per-task 1 --in-flight 32       # one deal a task (as POST /v1/solve under load: grouped)
 *   npm run bench:pool-scaling -- --game seahaven_towers --to 1000 --chunk 100
 *
 * The pool runs `--worker` (default dist/server/pool-worker.js, as production
 * runs it: the npm script compiles it first), `threads` calls in
 * flight (`--in-flight n` for more, as on a server under load), `--per-task`
 * deals a call through `pool.solveManyPacked` (a shared run, moves left as
 * bytes, as the batch stores take them) or `pool.solve` for 1. The defaults
 * are what the batch scheduler hands the pool for MS deals (100 ms of deals
 * a dispatch, `threads` dispatches in flight: server/batches/model.ts
 * `DEFAULT_CHUNK_MS`).
 * Both sides get `--warmup` other deals first (the deals after the set),
 * untimed, so the JIT of every isolate is warm. CPU: the process's, and by
 * thread from /proc (Linux, 10 ms ticks) for the pool's chunks.
 *
 * The single engine's side of each chunk is solved in equal parts on each
 * vCPU in turn (bench/single-on-each-cpu.ts; `--no-pin` leaves it to the
 * scheduler): one vCPU here can run far slower than the other for minutes,
 * and the pool runs on both.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { Engine, loadEngineModule } from '../client-sdk/core/engine/index.js';
import { defaultNumbering, requirePreset, resolveDeal } from '../client-sdk/api/request.js';
import type { Deal } from '../client-sdk/core/rules.js';
import { DEFAULT_LIMITS_CONFIG } from '../server/limits.js';
import { createPool } from '../server/pool.js';
import { exitOnUsageError, positiveInt } from '../server/cli/usage.js';
import { threadCpuMs } from './proc-cpu.js';
import { singleEngineSide } from './single-on-each-cpu.js';

const opts = new Command()
  .name('pool-scaling')
  .description('one engine against the pool, chunk by chunk, alternating')
  .option('--game <id>', 'game preset', 'freecell')
  .option('--from <n>', 'first deal', positiveInt, 1)
  .option('--to <n>', 'last deal', positiveInt, 32000)
  .option('--chunk <n>', 'deals a chunk (each chunk: single, then pool, or the other way round)', positiveInt, 8000)
  .option('--per-task <n>', 'deals a pool call (1: pool.solve, as POST /v1/solve; more: pool.solveManyPacked, a shared run, as batches)', positiveInt, 512)
  .option('--threads <n>', 'pool workers', positiveInt, 2)
  .option('--worker <file>', 'the pool\'s worker file', 'dist/server/pool-worker.js')
  .option('--in-flight <n>', 'pool calls in flight at once (default threads, as the batch scheduler; more stands for a server under load: the queue limit is raised to fit)', positiveInt)
  .option('--warmup <n>', 'deals after the set solved by both sides first, untimed', positiveInt, 4000)
  .option('--no-pin', 'leave the single engine\'s thread to the scheduler (default: each chunk\'s single side in equal parts on each vCPU, pinned with taskset)')
  .exitOverride(exitOnUsageError)
  .parse()
  .opts<{ game: string; from: number; to: number; chunk: number; perTask: number; threads: number; worker: string; warmup: number; inFlight?: number; pin: boolean }>();
const inFlight = opts.inFlight ?? opts.threads;

const preset = requirePreset(opts.game);
const numbering = defaultNumbering(preset);
if (numbering === null) throw new Error(`${preset.name} has no deal numbers`);
const dealsOf = (from: number, to: number): Deal[] => {
  const out: Deal[] = [];
  for (let n = from; n <= to; n++) out.push(resolveDeal({ game: preset.id, numbering, deal: n } as Parameters<typeof resolveDeal>[0]));
  return out;
};
const warmup = dealsOf(opts.to + 1, opts.to + opts.warmup);
const limits = { maxStates: DEFAULT_LIMITS_CONFIG.defaultMaxStates, timeoutMs: DEFAULT_LIMITS_CONFIG.defaultTimeoutMs };

const single = singleEngineSide(opts.pin);

const module = await loadEngineModule();
const engine = Engine.instantiate(module);
const pool = createPool({ module, threads: opts.threads, maxQueue: Math.max(4 * opts.threads, inFlight - opts.threads), filename: resolve(opts.worker) });

/** Solves `set` through the pool, `--in-flight` calls in flight (default threads), `--per-task` deals a call. */
async function throughPool(set: Deal[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < set.length) {
      const from = next;
      next = Math.min(set.length, next + opts.perTask);
      if (opts.perTask === 1) await pool.solve(set[from], limits);
      else await pool.solveManyPacked(set.slice(from, next), limits);
    }
  }));
}

try {
  for (const deal of warmup) engine.solve(deal, { limits });
  await throughPool(warmup);
  const side = { single: { wallMs: 0, cpuMs: 0, main: 0, other: 0 }, pool: { wallMs: 0, cpuMs: 0, main: 0, workers: 0, other: 0 } };
  const ratios: number[] = [];
  const n = opts.to - opts.from + 1;
  for (let c = 0, k = 0; c < n; c += opts.chunk, k++) {
    // each chunk's deals dealt when it comes (untimed), as a batch deals them: the main thread's heap holds one chunk, not the whole set
    const chunk = dealsOf(opts.from + c, Math.min(opts.to, opts.from + c + opts.chunk - 1));
    let singleMs = 0;
    let poolMs = 0;
    for (const which of k % 2 === 0 ? ['single', 'pool'] : ['pool', 'single']) {
      const before = threadCpuMs();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      let singleWallMs = 0;
      if (which === 'single') singleWallMs = single.run(chunk.length, (i) => engine.solve(chunk[i], { limits }), k);
      else await throughPool(chunk);
      const wallMs = which === 'single' ? singleWallMs : performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      if (which === 'single') {
        singleMs = wallMs;
        side.single.wallMs += wallMs;
        side.single.cpuMs += cpuMs;
        const used = [...threadCpuMs()].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
        side.single.main += used.find((t) => t.tid === String(process.pid))?.ms ?? 0;
        side.single.other += used.filter((t) => t.tid !== String(process.pid)).reduce((sum, t) => sum + t.ms, 0);
      } else {
        poolMs = wallMs;
        side.pool.wallMs += wallMs;
        side.pool.cpuMs += cpuMs;
        const used = [...threadCpuMs()].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
        const others = used.filter((t) => t.tid !== String(process.pid)).sort((a, b) => b.ms - a.ms);
        side.pool.main += used.find((t) => t.tid === String(process.pid))?.ms ?? 0;
        side.pool.workers += others.slice(0, opts.threads).reduce((sum, t) => sum + t.ms, 0);
        side.pool.other += others.slice(opts.threads).reduce((sum, t) => sum + t.ms, 0);
      }
    }
    ratios.push(singleMs / poolMs);
    console.log(`chunk ${k + 1} (deals ${opts.from + c}..${opts.from + c + chunk.length - 1}): single ${singleMs.toFixed(0)} ms, pool ${poolMs.toFixed(0)} ms, ${(singleMs / poolMs).toFixed(2)}×`);
  }
  const perDeal = (ms: number) => (ms / n).toFixed(3);
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(
    `\n${preset.id} ${opts.from}..${opts.to}, chunks of ${opts.chunk}, pool of ${opts.threads} at ${opts.perTask} a task, ${inFlight} in flight (${opts.worker}), single engine ${single.pinned ? 'on each vCPU in turn' : 'unpinned'}, load ${loadavg()[0].toFixed(1)} at the end\n` +
      `single engine: ${(n / (side.single.wallMs / 1000)).toFixed(0)} deals/s, ${perDeal(side.single.cpuMs)} CPU ms a deal (main ${perDeal(side.single.main)}, other ${perDeal(side.single.other)})` +
      (single.pinned ? `; by vCPU ${single.rates()}\n` : '\n') +
      `pool:          ${(n / (side.pool.wallMs / 1000)).toFixed(0)} deals/s, ${perDeal(side.pool.cpuMs)} CPU ms a deal (main ${perDeal(side.pool.main)}, workers ${perDeal(side.pool.workers)}, other ${perDeal(side.pool.other)})\n` +
      `scaling (single wall / pool wall, all chunks): ${(side.single.wallMs / side.pool.wallMs).toFixed(2)}×; per chunk ${sorted[0].toFixed(2)}-${sorted[sorted.length - 1].toFixed(2)}, median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)}×`,
  );
} finally {
  await pool.close();
}
