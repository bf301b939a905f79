/**
 * Solver benchmark: throughput and verdicts on fixed deal sets, through the
 * same engine the service uses. Prints numbers; it is not a test.
 *
 *   npm run bench                                   # both default sets, both runs
 *   npm run bench -- --game freecell --from 1 --to 2000 --skip-pool
 *   npm run bench -- --threads 2 --json bench-results.json
 *   npm run bench -- --game freecell --numbering ms --to 32000 --warmup 4000 --per-task 32 --packed --worker dist/server/pool-worker.js
 *
 * Default sets: Microsoft FreeCell deals 1..32000 and PySolFC Seahaven Towers
 * deals 1..1000. Each set is run twice:
 *  (a) single: one engine (`Engine.create()`), called directly on the main thread;
 *  (b) pool: the service's Piscina pool (`createPool`), all deals submitted with
 *      at most 2 × threads tasks in flight (below the pool's queue limit;
 *      `--in-flight n` for more, as on a server under load: the queue limit
 *      is raised to fit);
 *      one deal a task (as POST /v1/solve), or `--per-task n` deals a task
 *      through `pool.solveMany` (as batches hand out quick deals; with
 *      `--packed`, `pool.solveManyPacked`: the moves stay bytes). The pool
 *      runs server/pool-worker.ts under tsx, or `--worker FILE` (for instance
 *      dist/server/pool-worker.js, the compiled worker production runs).
 * Deals are generated (and validated, as the API does) before the clock starts;
 * engine compilation, pool start-up and a warm-up round are not timed either.
 *
 * Per-deal time: (a) measured around `engine.solve` (search + reading and
 * checking the solution); (b) the engine's own `stats.elapsedMs` (search only).
 * Solution length counts every move, auto-moves included, as the API's
 * `stats.moveCount` does; the mean without auto-moves is printed beside it.
 * Memory: process RSS sampled every 100 ms by a sampler thread (so a busy main
 * thread does not hide peaks), `process.resourceUsage().maxRSS` (the process's
 * peak so far, never reset), and the largest `stats.memoryBytes` (engine linear
 * memory) of any deal. The RSS baseline at the start of each run is printed
 * too: memory left by an earlier run (an engine's linear memory is only
 * returned when it is garbage-collected) is part of it. `npm run bench` starts
 * Node with `--expose-gc` so that the bench collects between runs; without it
 * (e.g. `tsx bench/solver.ts`) it still runs, with that leftover in the numbers.
 * CPU: the process's user + system CPU time during the run, as "cores busy"
 * (CPU seconds per wall second), to see how much of the machine a run used,
 * and as CPU ms per deal (the number to compare on a shared machine). A
 * pool run on Linux also splits it by thread (/proc/self/task): the main
 * thread, the workers, V8's helper threads; the workers' share against the
 * single run's CPU ms per deal is the engines' cost, the rest the pool's.
 *
 * `--optimize-ms N` asks every solve for the short option (`optimize:
 * "length"`, docs/short-solutions.md) with N ms to shorten: the lengths
 * without auto-moves (mean, median, max) are then those of the shortened
 * solutions, printed beside the first solutions' mean. `--optimize-cpu`
 * counts that budget in CPU time of the process (single run; on a shared
 * machine a wall-clock budget gives a deal less work when others run).
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { loadEngineModule } from '../client-sdk/core/engine/index.js';
import { SolverError } from '../client-sdk/core/errors.js';
import { defaultNumbering, requirePreset } from '../client-sdk/api/request.js';
import { NUMBERINGS, type Deal, type Numbering } from '../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../client-sdk/core/solve-types.js';
import { PACKED_MOVE_BYTES } from '../client-sdk/core/moves.js';
import { DEFAULT_LIMITS_CONFIG } from '../server/limits.js';
import { createPool } from '../server/pool.js';
import { positiveInt } from '../server/cli/usage.js';
import type { ShortenOptions } from '../client-sdk/core/shorten.js';
import {
  collectGarbage,
  mean,
  percentile,
  prepare,
  progressBar,
  rowFromError,
  rowFromOutcome,
  runSingle,
  tick,
  type DealRow,
  type DealSet,
  type PreparedSet,
  type RunMeasure,
} from './single-engine.js';
import { splitThreads, threadCpuMs } from './proc-cpu.js';

// ---------------------------------------------------------------- options

interface BenchOptions {
  game?: string;
  numbering?: Numbering;
  from?: number;
  to?: number;
  step?: number;
  maxStates: number;
  timeoutMs: number;
  threads: number;
  skipSingle?: boolean;
  skipPool?: boolean;
  warmup?: number;
  json?: string;
  optimizeMs?: number;
  optimizeCpu?: boolean;
  perTask: number;
  packed?: boolean;
  worker?: string;
  inFlight?: number;
}

function parseOptions(): BenchOptions {
  const program = new Command()
    .name('bench')
    .description('Solver throughput on fixed deal sets: one engine on the main thread, then the worker pool.')
    .option('--game <id>', 'run one custom set of this game instead of the two default sets')
    .addOption(new Option('--numbering <n>', 'deal numbering of the custom set (default: the game\'s default)').choices(NUMBERINGS))
    .option('--from <n>', 'first deal of the custom set (default 1)', positiveInt)
    .option('--to <n>', 'last deal of the custom set (default 1000)', positiveInt)
    .option('--step <n>', 'every n-th deal of the custom set from --from on (a sample; default 1: every deal)', positiveInt)
    .option('--max-states <n>', 'state budget per deal', positiveInt, DEFAULT_LIMITS_CONFIG.defaultMaxStates)
    .option('--timeout-ms <n>', 'time budget per deal, ms', positiveInt, DEFAULT_LIMITS_CONFIG.defaultTimeoutMs)
    .option('--threads <n>', 'pool worker threads', positiveInt, availableParallelism())
    .option('--skip-single', 'skip the single-engine run')
    .option('--skip-pool', 'skip the pool run')
    .option('--per-task <n>', 'deals per pool task (pool.solveMany, as batches hand out quick deals); 1 = one a task, as POST /v1/solve', positiveInt, 1)
    .option('--packed', 'with --per-task above 1: pool.solveManyPacked, the moves left as bytes (no move objects on the main thread)')
    .option('--in-flight <n>', 'pool tasks in flight at once (default 2 × threads); more stands for a server under load, whose queue holds more solves (the pool\'s queue limit is raised to fit)', positiveInt)
    .option('--worker <file>', 'the pool\'s worker file, e.g. dist/server/pool-worker.js (compiled by `npm run build:cli`, as production runs it); default: server/pool-worker.ts under tsx')
    .option('--json <file>', 'also write the results (summaries and per-deal rows) to this file')
    .option('--warmup <n>', 'before each timed run, solve this many other deals (the numbers after the set) the same way, untimed: the steady state of a service that has been running, with the JIT of every isolate warm (default 0: one warm-up solve)', positiveInt)
    .option('--optimize-ms <n>', 'shorten every solution for this many ms (optimize: "length"); default: the first solution', positiveInt)
    .option('--optimize-cpu', 'count --optimize-ms in CPU time of this process, not wall time (single run only: a shared machine then gives each deal the same work)')
    .showHelpAfterError();
  program.parse();
  const opts = program.opts<BenchOptions>();
  if (opts.game === undefined && (opts.numbering !== undefined || opts.from !== undefined || opts.to !== undefined || opts.step !== undefined)) {
    program.error('--numbering, --from, --to and --step describe a custom set: give --game too');
  }
  if (opts.skipSingle && opts.skipPool) program.error('--skip-single and --skip-pool together leave nothing to run');
  if (opts.perTask > 1 && opts.optimizeMs !== undefined) program.error('--per-task above 1 does not shorten solutions (batches do not): drop --optimize-ms or --per-task');
  return opts;
}

// ---------------------------------------------------------------- deal sets

function dealSets(opts: BenchOptions): DealSet[] {
  if (opts.game === undefined) {
    return [
      { label: 'freecell ms 1..32000', game: 'freecell', numbering: 'ms', from: 1, to: 32000 },
      { label: 'seahaven_towers pysolfc 1..1000', game: 'seahaven_towers', numbering: 'pysolfc', from: 1, to: 1000 },
    ];
  }
  const preset = requirePreset(opts.game);
  const numbering = opts.numbering ?? defaultNumbering(preset);
  if (numbering === null) throw new SolverError('layout_required', `${preset.name} has no deal numbers`);
  const from = opts.from ?? 1;
  const to = opts.to ?? Math.max(from, 1000);
  if (to < from) throw new RangeError(`--to (${to}) is below --from (${from})`);
  const step = opts.step ?? 1;
  const label = `${preset.id} ${numbering} ${from}..${to}${step > 1 ? ` every ${step}th` : ''}`;
  return [{ label, game: preset.id, numbering, from, to, step }];
}

// ---------------------------------------------------------------- memory sampling

/**
 * Samples the process RSS every 100 ms on its own thread (the main thread is
 * busy inside the engine during the single run) and keeps the peak in shared
 * memory; `reset()` starts a new peak from the current RSS.
 */
class RssSampler {
  readonly #peak = new Float64Array(new SharedArrayBuffer(8));
  readonly #worker: Worker;

  constructor(intervalMs = 100) {
    this.#peak[0] = process.memoryUsage.rss();
    const code = `
      const { workerData } = require('node:worker_threads');
      const peak = new Float64Array(workerData.buffer);
      setInterval(() => {
        const rss = process.memoryUsage.rss();
        if (rss > peak[0]) peak[0] = rss;
      }, workerData.intervalMs);
    `;
    this.#worker = new Worker(code, { eval: true, workerData: { buffer: this.#peak.buffer, intervalMs } });
    this.#worker.unref();
  }

  /** Starts a new peak; returns the current RSS, bytes. */
  reset(): number {
    this.#peak[0] = process.memoryUsage.rss();
    return this.#peak[0];
  }

  /** Peak RSS since the last reset, bytes (also sampled now). */
  peak(): number {
    const now = process.memoryUsage.rss();
    if (now > this.#peak[0]) this.#peak[0] = now;
    return this.#peak[0];
  }

  async stop(): Promise<void> {
    await this.#worker.terminate();
  }
}

// ---------------------------------------------------------------- results

type RunKind = 'single' | 'pool';

interface RunSummary {
  set: string;
  run: RunKind;
  threads: number;
  /** Deals per pool task (1 for the single run). */
  perTask: number;
  deals: number;
  wallMs: number;
  dealsPerSec: number;
  solved: number;
  unsolvable: number;
  unknown: number;
  unknownReasons: Record<string, number>;
  errors: number;
  errorCodes: Record<string, number>;
  meanMoves: number;
  maxMoves: number;
  maxMovesDeal: number | null;
  meanMovesNoAuto: number;
  medianMovesNoAuto: number;
  maxMovesNoAuto: number;
  meanFirstNoAuto: number;
  cpuMsPerDeal: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  maxMsDeal: number | null;
  meanStatesStored: number;
  maxStatesStored: number;
  cpuSeconds: number;
  coresBusy: number;
  /**
   * Pool runs on Linux: CPU ms a deal by thread (the main thread, each
   * worker, V8's helper threads and the rest), from /proc: tells the pool's
   * own cost (main, other) from the engines' (workers).
   */
  threadCpuMsPerDeal?: { main: number; workers: number[]; other: number };
  /** 1-minute load average of the machine at the end of the run (other processes included). */
  loadAvg1: number;
  startRssBytes: number;
  peakRssBytes: number;
  maxRssBytes: number;
  maxEngineMemoryBytes: number;
  unknownDeals: { deal: number; reason: string; ms: number }[];
  errorDeals: { deal: number; code: string }[];
  slowestDeals: { deal: number; verdict: string; ms: number; statesStored: number }[];
}

function count(values: (string | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v ?? '?'] = (out[v ?? '?'] ?? 0) + 1;
  return out;
}

function summarise(set: string, run: RunKind, threads: number, m: RunMeasure & { threadCpuMs?: ThreadSplit }, perTask = 1): RunSummary {
  const { rows, wallMs } = m;
  const solved = rows.filter((r) => r.verdict === 'solved');
  const unknown = rows.filter((r) => r.verdict === 'unknown');
  const errors = rows.filter((r) => r.verdict === 'error');
  const times = rows.map((r) => r.ms).sort((a, b) => a - b);
  const longest = solved.reduce<DealRow | undefined>((best, r) => (best === undefined || r.moves > best.moves ? r : best), undefined);
  const slowest = [...rows].sort((a, b) => b.ms - a.ms);
  return {
    set,
    run,
    threads,
    perTask,
    deals: rows.length,
    wallMs,
    dealsPerSec: rows.length / (wallMs / 1000),
    solved: solved.length,
    unsolvable: rows.filter((r) => r.verdict === 'unsolvable').length,
    unknown: unknown.length,
    unknownReasons: count(unknown.map((r) => r.reason)),
    errors: errors.length,
    errorCodes: count(errors.map((r) => r.reason)),
    meanMoves: mean(solved.map((r) => r.moves)),
    maxMoves: longest?.moves ?? 0,
    maxMovesDeal: longest?.deal ?? null,
    meanMovesNoAuto: mean(solved.map((r) => r.movesNoAuto)),
    medianMovesNoAuto: percentile(solved.map((r) => r.movesNoAuto).sort((a, b) => a - b), 50),
    maxMovesNoAuto: solved.reduce((m, r) => Math.max(m, r.movesNoAuto), 0),
    meanFirstNoAuto: mean(solved.map((r) => r.firstNoAuto)),
    cpuMsPerDeal: rows.length === 0 ? 0 : (m.cpuSeconds * 1000) / rows.length,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    maxMs: times.at(-1) ?? 0,
    maxMsDeal: slowest[0]?.deal ?? null,
    meanStatesStored: mean(rows.map((r) => r.statesStored)),
    maxStatesStored: rows.reduce((m, r) => Math.max(m, r.statesStored), 0),
    cpuSeconds: m.cpuSeconds,
    coresBusy: m.cpuSeconds / (wallMs / 1000),
    ...(m.threadCpuMs
      ? {
          threadCpuMsPerDeal: {
            main: m.threadCpuMs.main / rows.length,
            workers: m.threadCpuMs.workers.map((ms) => ms / rows.length),
            other: m.threadCpuMs.other / rows.length,
          },
        }
      : {}),
    loadAvg1: loadavg()[0],
    startRssBytes: m.startRss,
    peakRssBytes: m.peakRss,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    maxEngineMemoryBytes: rows.reduce((m, r) => Math.max(m, r.memoryBytes), 0),
    unknownDeals: unknown.map((r) => ({ deal: r.deal, reason: String(r.reason), ms: r.ms })),
    errorDeals: errors.map((r) => ({ deal: r.deal, code: String(r.reason) })),
    slowestDeals: slowest.slice(0, 10).map((r) => ({ deal: r.deal, verdict: r.reason ? `${r.verdict}/${r.reason}` : r.verdict, ms: r.ms, statesStored: r.statesStored })),
  };
}

// ---------------------------------------------------------------- printing

const MiB = 2 ** 20;
const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtMs = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const fmtMiB = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
const fmtCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

function printRun(s: RunSummary): void {
  const title =
    s.run === 'single'
      ? 'single engine, main thread'
      : `pool, ${s.threads} thread${s.threads === 1 ? '' : 's'}${s.perTask > 1 ? `, ${s.perTask} deals a task` : ''}`;
  const unknownText = s.unknown > 0 ? ` (${fmtCounts(s.unknownReasons)})` : '';
  const errorText = s.errors > 0 ? `, errors ${s.errors} (${fmtCounts(s.errorCodes)})` : '';
  const lines = [
    `── ${s.set} · ${title}`,
    `  deals ${fmtInt(s.deals)} in ${(s.wallMs / 1000).toFixed(1)} s = ${s.dealsPerSec.toFixed(1)} deals/s`,
    `  solved ${s.solved}, unsolvable ${s.unsolvable}, unknown ${s.unknown}${unknownText}${errorText}`,
    `  solution length: mean ${s.meanMoves.toFixed(1)} moves (${s.meanMovesNoAuto.toFixed(1)} without auto-moves), max ${s.maxMoves}` +
      (s.maxMovesDeal !== null ? ` (deal ${s.maxMovesDeal})` : ''),
    `  length without auto-moves: mean ${s.meanMovesNoAuto.toFixed(2)}, median ${s.medianMovesNoAuto}, max ${s.maxMovesNoAuto}` +
      (s.meanFirstNoAuto !== s.meanMovesNoAuto ? ` (first solutions: mean ${s.meanFirstNoAuto.toFixed(2)})` : '') +
      ` · CPU ${fmtMs(s.cpuMsPerDeal)} ms per deal`,
    `  ms per deal${s.run === 'pool' ? ' (engine stats.elapsedMs)' : ' (around engine.solve)'}: p50 ${fmtMs(s.p50Ms)}, p99 ${fmtMs(s.p99Ms)}, max ${fmtMs(s.maxMs)}` +
      (s.maxMsDeal !== null ? ` (deal ${s.maxMsDeal})` : ''),
    `  states stored per deal: mean ${fmtInt(s.meanStatesStored)}, max ${fmtInt(s.maxStatesStored)}`,
    `  CPU: ${s.cpuSeconds.toFixed(1)} s user+system = ${s.coresBusy.toFixed(2)} cores busy on average; machine load average ${s.loadAvg1.toFixed(1)} at the end` +
      (s.run === 'single' && s.coresBusy < 0.9 ? ' (below 1 core: other processes took CPU, times are inflated)' : ''),
    ...(s.threadCpuMsPerDeal
      ? [
          `  CPU ms per deal by thread: main ${fmtMs(s.threadCpuMsPerDeal.main)}, ` +
            `workers ${fmtMs(s.threadCpuMsPerDeal.workers.reduce((a, b) => a + b, 0))} (${s.threadCpuMsPerDeal.workers.map(fmtMs).join(' + ')}), ` +
            `other threads ${fmtMs(s.threadCpuMsPerDeal.other)} (/proc, 10 ms ticks)`,
        ]
      : []),
    `  memory: RSS peak ${fmtMiB(s.peakRssBytes)} (sampled every 100 ms; ${fmtMiB(s.startRssBytes)} at the start of the run), process maxRSS so far ${fmtMiB(s.maxRssBytes)}, largest engine linear memory ${fmtMiB(s.maxEngineMemoryBytes)}`,
    `  slowest: ${s.slowestDeals
      .slice(0, 5)
      .map((d) => `${d.deal} ${fmtMs(d.ms)} ms ${d.verdict}`)
      .join('; ')}`,
  ];
  if (s.unknownDeals.length > 0) {
    const shown = s.unknownDeals.slice(0, 30).map((d) => `${d.deal} (${d.reason}, ${fmtMs(d.ms)} ms)`);
    lines.push(`  unknown deals: ${shown.join(', ')}${s.unknownDeals.length > 30 ? `, … ${s.unknownDeals.length - 30} more` : ''}`);
  }
  if (s.errorDeals.length > 0) lines.push(`  error deals: ${s.errorDeals.map((d) => `${d.deal} (${d.code})`).join(', ')}`);
  console.log(lines.join('\n'));
}

function printTable(summaries: RunSummary[]): void {
  const anyErrors = summaries.some((s) => s.errors > 0);
  console.table(
    summaries.map((s) => ({
      set: s.set,
      run: s.run === 'pool' ? `pool×${s.threads}${s.perTask > 1 ? `/${s.perTask}` : ''}` : 'single',
      deals: s.deals,
      'wall s': Number((s.wallMs / 1000).toFixed(1)),
      'deals/s': Number(s.dealsPerSec.toFixed(1)),
      solved: s.solved,
      unsolv: s.unsolvable,
      unknown: s.unknown,
      ...(anyErrors ? { errors: s.errors } : {}),
      'moves avg': Number(s.meanMoves.toFixed(1)),
      'moves max': s.maxMoves,
      'w/o auto avg': Number(s.meanMovesNoAuto.toFixed(2)),
      'w/o auto p50': s.medianMovesNoAuto,
      'w/o auto max': s.maxMovesNoAuto,
      'CPU ms/deal': Number(fmtMs(s.cpuMsPerDeal)),
      'p50 ms': Number(fmtMs(s.p50Ms)),
      'p99 ms': Number(fmtMs(s.p99Ms)),
      'max ms': Number(fmtMs(s.maxMs)),
      'states avg': Math.round(s.meanStatesStored),
      'cores busy': Number(s.coresBusy.toFixed(2)),
      'RSS MiB': Math.round(s.peakRssBytes / MiB),
      'engine MiB': Math.round(s.maxEngineMemoryBytes / MiB),
    })),
  );
}

// ---------------------------------------------------------------- runs

/** A pool run's CPU split by thread, ms: the main thread, the `threads` busiest others (the workers), the rest (V8's helpers). */
interface ThreadSplit {
  main: number;
  workers: number[];
  other: number;
}

function threadSplit(before: Map<string, number>, after: Map<string, number>, threads: number): ThreadSplit | undefined {
  if (after.size === 0) return undefined;
  const split = splitThreads([...after].map(([tid, ms]) => ({ tid, used: ms - (before.get(tid) ?? 0) })), String(process.pid), threads);
  return {
    main: split.main?.used ?? 0,
    workers: split.workers.map((t) => t.used),
    other: split.others.reduce((sum, t) => sum + t.used, 0),
  };
}

/** `rowFromOutcome` of a `solveManyPacked` answer: moves counted from their bytes (`packMoves`: byte 5 of each is the auto flag). */
function rowFromPacked(deal: number, outcome: SolveOutcome, moves: Uint8Array): DealRow {
  let noAuto = 0;
  for (let o = 5; o < moves.length; o += PACKED_MOVE_BYTES) if (moves[o] === 0) noAuto++;
  const row = rowFromOutcome(deal, outcome, outcome.stats.elapsedMs);
  return { ...row, moves: moves.length / PACKED_MOVE_BYTES, movesNoAuto: noAuto, firstNoAuto: noAuto };
}

async function runPool(
  set: PreparedSet,
  limits: SolveLimits,
  threads: number,
  module: WebAssembly.Module,
  sampler: RssSampler,
  optimize?: ShortenOptions,
  perTask = 1,
  packed = false,
  worker?: string,
  warmup: Deal[] = [],
  inFlight = 2 * threads,
): Promise<RunMeasure & { threadCpuMs?: ThreadSplit }> {
  // the queue holds what is in flight beyond the workers (the default limit is 4 × threads)
  const maxQueue = Math.max(4 * threads, inFlight - threads);
  const pool = createPool({ module, threads, maxQueue, ...(worker !== undefined ? { filename: resolve(worker) } : {}) });
  try {
    // Warm-up, not timed: start every worker and instantiate its engine.
    await Promise.all(Array.from({ length: 2 * threads }, () => pool.solve(set.deals[0], limits)));
    // `--warmup`: the warm-up deals the way the run hands them out (tasks of perTask, 2 × threads in flight), untimed
    let nextWarm = 0;
    const warmLane = async () => {
      while (nextWarm < warmup.length) {
        const from = nextWarm;
        nextWarm = Math.min(warmup.length, from + perTask);
        const deals = warmup.slice(from, nextWarm);
        if (perTask === 1) await pool.solve(deals[0], limits, undefined, optimize ? { optimize } : undefined);
        else if (packed) await pool.solveManyPacked(deals, limits);
        else await pool.solveMany(deals, limits);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, warmLane));
    const rows: DealRow[] = new Array(set.deals.length);
    let next = 0;
    let done = 0;
    const bar = progressBar(`${set.game} pool×${threads}`, set.deals.length);
    const startRss = sampler.reset();
    const threads0 = threadCpuMs();
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const one = async (i: number) => {
      const t0 = performance.now();
      try {
        const outcome = await pool.solve(set.deals[i], limits, undefined, optimize ? { optimize } : undefined);
        rows[i] = rowFromOutcome(set.numbers[i], outcome, outcome.stats.elapsedMs);
      } catch (err) {
        rows[i] = rowFromError(set.numbers[i], err, performance.now() - t0);
      }
      done++;
    };
    const several = async (from: number, to: number) => {
      const t0 = performance.now();
      try {
        if (packed) {
          // moves left packed (pool.solveManyPacked), as a store that keeps the bytes could take them
          const answers = await pool.solveManyPacked(set.deals.slice(from, to), limits);
          answers.forEach((answer, k) => {
            const i = from + k;
            rows[i] = answer instanceof Error ? rowFromError(set.numbers[i], answer, 0) : rowFromPacked(set.numbers[i], answer.outcome, answer.moves);
          });
          return;
        }
        const answers = await pool.solveMany(set.deals.slice(from, to), limits);
        answers.forEach((answer, k) => {
          const i = from + k;
          rows[i] = answer instanceof Error ? rowFromError(set.numbers[i], answer, 0) : rowFromOutcome(set.numbers[i], answer, answer.stats.elapsedMs);
        });
      } catch (err) {
        for (let i = from; i < to; i++) rows[i] = rowFromError(set.numbers[i], err, performance.now() - t0);
      }
      done += to - from;
    };
    const lane = async () => {
      while (next < set.deals.length) {
        const from = next;
        next = Math.min(set.deals.length, next + perTask);
        await (perTask > 1 ? several(from, next) : one(from));
        tick(bar, done, started);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    const split = threadSplit(threads0, threadCpuMs(), threads);
    const peakRss = sampler.peak();
    bar.stop();
    return { rows, wallMs, cpuSeconds: (cpu.user + cpu.system) / 1e6, startRss, peakRss, ...(split ? { threadCpuMs: split } : {}) };
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const opts = parseOptions();
  const limits: SolveLimits = { maxStates: opts.maxStates, timeoutMs: opts.timeoutMs };
  const optimize: ShortenOptions | undefined =
    opts.optimizeMs === undefined ? undefined : { budgetMs: opts.optimizeMs, ...(opts.optimizeCpu ? { cpuClock: true } : {}) };
  const sets = dealSets(opts);
  const benchStarted = performance.now();
  const module = await loadEngineModule();
  const sampler = new RssSampler(100);

  console.log(
    `solver bench · node ${process.version} · load average ${loadavg()[0].toFixed(1)}${typeof (globalThis as { gc?: unknown }).gc === 'function' ? '' : ' (no --expose-gc: earlier runs\' memory may stay in the RSS)'} · ${availableParallelism()} CPUs · limits ${fmtInt(limits.maxStates)} states / ${fmtInt(limits.timeoutMs)} ms per deal · pool threads ${opts.threads} (${opts.inFlight ?? 2 * opts.threads} tasks in flight)` +
      (optimize ? ` · short solutions: optimize "length", ${optimize.budgetMs} ms per deal` : ''),
  );

  const summaries: RunSummary[] = [];
  const perDeal: Record<string, DealRow[]> = {};
  for (const set of sets) {
    const genStarted = performance.now();
    const prepared = prepare(set);
    // the deals after the set (same game, numbering and step), solved before each timed run and not counted
    const warmup = opts.warmup ? prepare({ ...set, from: set.to + 1, to: set.to + opts.warmup * (set.step ?? 1) }).deals : [];
    console.log(`\n${set.label}: ${prepared.deals.length} deals generated in ${((performance.now() - genStarted) / 1000).toFixed(1)} s (not timed)${warmup.length ? `; ${warmup.length} warm-up deals before each run (${set.to + 1} on, not timed)` : ''}`);
    if (!opts.skipSingle) {
      collectGarbage();
      const m = await runSingle(prepared, limits, { sampler, optimize, warmup });
      const s = summarise(set.label, 'single', 1, m);
      summaries.push(s);
      perDeal[`${set.label} · single`] = m.rows;
      printRun(s);
    }
    if (!opts.skipPool) {
      collectGarbage();
      const m = await runPool(prepared, limits, opts.threads, module, sampler, optimize, opts.perTask, opts.packed === true, opts.worker, warmup, opts.inFlight);
      const s = summarise(set.label, 'pool', opts.threads, m, opts.perTask);
      summaries.push(s);
      perDeal[`${set.label} · pool`] = m.rows;
      printRun(s);
    }
  }
  await sampler.stop();

  const totalSecs = (performance.now() - benchStarted) / 1000;
  console.log('\nSummary (times in ms per deal; moves include auto-moves; RSS = sampled peak during the run)');
  printTable(summaries);
  console.log(`whole bench: ${totalSecs.toFixed(1)} s (deal generation, warm-ups and pool start-up included)`);

  if (opts.json) {
    const report = {
      node: process.version,
      cpus: availableParallelism(),
      limits,
      threads: opts.threads,
      totalSeconds: totalSecs,
      summaries,
      // Per deal: [deal, verdict, reason, moves, movesNoAuto, ms, statesStored, memoryBytes, firstNoAuto]
      deals: Object.fromEntries(
        Object.entries(perDeal).map(([k, rows]) => [
          k,
          rows.map((r) => [r.deal, r.verdict, r.reason ?? null, r.moves, r.movesNoAuto, Math.round(r.ms * 1000) / 1000, r.statesStored, r.memoryBytes, r.firstNoAuto]),
        ]),
      ),
    };
    writeFileSync(opts.json, JSON.stringify(report) + '\n');
    console.log(`results written to ${opts.json}`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof SolverError ? `${err.code}: ${err.message}` : err);
  process.exitCode = 1;
});
