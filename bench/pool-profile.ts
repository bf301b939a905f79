/**
 * Profiles the pool on MS FreeCell deals, main thread and workers:
 *
 *   node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/pool-profile.ts --to 8000 --per-task 1 --out DIR
 *
 * The workers run bench/profile-worker.ts (the real worker under an
 * inspector profile) and write DIR/worker-<n>.cpuprofile; `--cpu-prof`
 * writes the main thread's. `node bench/cpuprofile-top.ts FILE` prints the
 * self time by function. Also prints the CPU ms a deal of the whole process
 * and of each thread (`--single`: one engine on the main thread, for the
 * same split of the single run). `--warmup N` first solves N other deals
 * (MS 32001 on) the same way, untimed, so that the figures are the steady
 * state's: without it a run of 8,000 deals also counts the JIT compiling
 * each isolate's hot JavaScript on V8's helper threads (docs/engine.md,
 * "Pool scaling", session 11).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { loadavg } from 'node:os';
import { Engine, loadEngineModule } from '../client-sdk/core/engine.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import type { Deal } from '../client-sdk/core/rules.js';
import { createPool } from '../server/pool.js';
import { positiveInt } from '../server/cli/usage.js';

const opts = new Command()
  .option('--to <n>', 'last MS deal', positiveInt, 8000)
  .option('--per-task <n>', 'deals a task', positiveInt, 1)
  .option('--threads <n>', 'workers', positiveInt, 2)
  .option('--out <dir>', 'where the worker profiles go', 'prof')
  .option('--plain', 'the real worker, no profiles: only the CPU figures')
  .option('--worker <file>', 'with --plain: this worker file (e.g. dist/server/pool-worker.js, compiled, as production runs it)')
  .option('--verbose', 'also print each thread')
  .option('--packed', 'with --per-task above 1: pool.solveManyPacked (moves left packed, as the batch stores take them)')
  .option('--from <n>', 'first MS deal', positiveInt, 1)
  .option('--warmup <n>', 'deals solved before the measured run (MS deals 32001 on, so not the measured ones), in the same way as the run: V8 compiles the hot JavaScript of each isolate during its first few thousand deals, a one-off cost on the helper threads that a short run would count (default: 4 solves)', positiveInt)
  .option('--single', 'one engine on the main thread instead of the pool (engine.solve, as the bench\'s single run): the same CPU split by thread')
  .parse()
  .opts<{ from: number; to: number; perTask: number; threads: number; out: string; plain?: boolean; worker?: string; single?: boolean; verbose?: boolean; packed?: boolean; warmup?: number }>();

/** CPU ms of each thread of this process so far (Linux: /proc/self/task/<tid>/stat, 10 ms ticks), by thread name. */
function threadCpuMs(): { tid: string; name: string; ms: number }[] {
  const tick = 10; // USER_HZ = 100 on Linux
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { tid, name, ms: (Number(fields[11]) + Number(fields[12])) * tick };
  });
}

/**
 * Prints the run's CPU ms a deal (whole process) and deals/s, then by thread
 * since `before`: the main thread, the `workers` busiest others (the pool's
 * workers; 0 for the single run) and the rest (V8's helper threads: garbage
 * collection and compilation of every isolate), and with `--verbose` each thread.
 */
function report(cpu: NodeJS.CpuUsage, wallMs: number, before: Map<string, number>, what: string, workers: number): void {
  const n = deals.length;
  const used = threadCpuMs().map((t) => ({ ...t, ms: t.ms - (before.get(t.tid) ?? 0) }));
  const main = used.find((t) => t.tid === String(process.pid))?.ms ?? 0;
  const others = used.filter((t) => t.tid !== String(process.pid)).sort((a, b) => b.ms - a.ms);
  const mine = others.slice(0, workers).map((t) => t.ms);
  const rest = others.slice(workers).reduce((sum, t) => sum + t.ms, 0);
  const f = (ms: number) => (ms / n).toFixed(3);
  console.log(
    `${n} deals, ${what}: ${((cpu.user + cpu.system) / 1000 / n).toFixed(3)} CPU ms a deal, ${(n / (wallMs / 1000)).toFixed(0)} deals/s, load ${loadavg()[0].toFixed(1)}; ` +
      `by thread: main ${f(main)}${workers > 0 ? `, workers ${f(mine.reduce((a, b) => a + b, 0))} (${mine.map(f).join(' + ')})` : ''}, other ${f(rest)}`,
  );
  if (opts.verbose) for (const t of used) if (t.ms >= 20) console.log(`  thread ${t.tid} ${t.name}: ${t.ms} CPU ms = ${f(t.ms)} a deal`);
}

const out = resolve(opts.out);
mkdirSync(out, { recursive: true });
const deals: Deal[] = [];
for (let n = opts.from; n <= opts.to; n++) deals.push(resolveDeal({ game: 'freecell', numbering: 'ms', deal: n }));
const limits = { maxStates: 5_000_000, timeoutMs: 30_000 };
const warmupDeals: Deal[] = [];
for (let n = 32001; n < 32001 + (opts.warmup ?? 0); n++) warmupDeals.push(resolveDeal({ game: 'freecell', numbering: 'ms', deal: n }));
if (opts.single) {
  const engine = Engine.instantiate(await loadEngineModule());
  engine.solve(deals[0], limits);
  for (const deal of warmupDeals) engine.solve(deal, limits);
  const before = new Map(threadCpuMs().map((t) => [t.tid, t.ms]));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const deal of deals) engine.solve(deal, limits);
  report(process.cpuUsage(cpu0), performance.now() - t0, before, 'single engine', 0);
  process.exit(0);
}
const pool = createPool({
  module: await loadEngineModule(),
  threads: opts.threads,
  ...(opts.plain ? (opts.worker ? { filename: resolve(opts.worker) } : {}) : { filename: fileURLToPath(new URL('./profile-worker.ts', import.meta.url)) }),
});
await Promise.all(Array.from({ length: 2 * opts.threads }, () => pool.solve(deals[0], limits)));
await runThrough(warmupDeals);
const threads0 = new Map(threadCpuMs().map((t) => [t.tid, t.ms]));
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await runThrough(deals);
report(process.cpuUsage(cpu0), performance.now() - t0, threads0, `pool x${opts.threads}, ${opts.perTask} a task`, opts.threads);
if (!opts.plain) await Promise.all(Array.from({ length: opts.threads }, (_, i) => pool.solve({ ...deals[0], profileOut: join(out, `worker-${i}.cpuprofile`) } as Deal, limits)));
await pool.close();

/** Solves `set` through the pool, `2 × threads` tasks in flight, `--per-task` deals a task (`--packed`: solveManyPacked). */
async function runThrough(set: Deal[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 2 * opts.threads }, async () => {
      while (next < set.length) {
        const from = next;
        next = Math.min(set.length, next + opts.perTask);
        if (opts.perTask === 1) await pool.solve(set[from], limits);
        else if (opts.packed) await pool.solveManyPacked(set.slice(from, next), limits);
        else await pool.solveMany(set.slice(from, next), limits);
      }
    }),
  );
}
