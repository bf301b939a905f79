/**
 * The single-engine run shared by the bench tools (`npm run bench`,
 * `npm run bench:vs-fcsolve`): deal sets generated before the clock starts,
 * one engine (`Engine.create()`) called directly on the main thread, one row
 * per deal, the process's CPU time around the loop, and the progress bar.
 *
 * What is timed: the loop over `engine.solve`, i.e. the search plus reading
 * the solution out of the engine and replaying it through the independent
 * checker (client-sdk/core/verify.ts), as the service does for every answer.
 * Deal generation, engine compilation and one warm-up solve are not timed.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import { Engine } from '../client-sdk/core/engine/index.js';
import { SolverError } from '../client-sdk/core/errors.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import type { Deal, Numbering } from '../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome, UnknownReason } from '../client-sdk/core/solve-types.js';
import { countedMoves, type ShortenOptions } from '../client-sdk/core/shorten.js';

// ---------------------------------------------------------------- deal sets

/** A range of numbered deals of one game: deals `from`..`to` inclusive. */
export interface DealSet {
  label: string;
  game: string;
  numbering: Numbering;
  from: number;
  to: number;
  /** Take every step-th deal from `from` on (default 1: every deal). */
  step?: number;
}

/** A deal set with its deals generated: `numbers[i]` is the deal number of `deals[i]`. */
export interface PreparedSet extends DealSet {
  numbers: number[];
  deals: Deal[];
}

/**
 * Generates every deal of `set` the way POST /v1/solve does (preset rules,
 * generated deal, validated layout).
 * @throws SolverError as `resolveDeal` does (unknown game, deal number out of range).
 */
export function prepare(set: DealSet): PreparedSet {
  const numbers: number[] = [];
  const deals: Deal[] = [];
  for (let n = set.from; n <= set.to; n += set.step ?? 1) {
    numbers.push(n);
    deals.push(resolveDeal({ game: set.game, numbering: set.numbering, deal: n } as Parameters<typeof resolveDeal>[0]));
  }
  return { ...set, numbers, deals };
}

// ---------------------------------------------------------------- rows

/**
 * One deal's result: deal number, verdict (or `error` with the error code in
 * `reason`), moves (every move, auto-moves included, a sequence move = 1),
 * moves without auto-moves, ms (wall time around the solve), positions stored
 * by the engine, engine linear memory in bytes; `cpuMs`, set by
 * {@link runSingle} only, is this process's user + system CPU time around the
 * solve (wall time drifts with the machine's load, CPU time much less).
 */
export interface DealRow {
  deal: number;
  verdict: SolveOutcome['verdict'] | 'error';
  reason?: UnknownReason | string;
  moves: number;
  movesNoAuto: number;
  /** Moves without auto-moves of the first solution (the shortening's start, `optimize.firstLength`); = movesNoAuto when not shortened. */
  firstNoAuto: number;
  ms: number;
  statesStored: number;
  memoryBytes: number;
  cpuMs?: number;
}

/** The row of a finished solve; `ms` is the caller's measure of it. */
export function rowFromOutcome(deal: number, outcome: SolveOutcome, ms: number): DealRow {
  return {
    deal,
    verdict: outcome.verdict,
    ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
    moves: outcome.moves.length,
    movesNoAuto: countedMoves(outcome.moves),
    firstNoAuto: outcome.optimize?.firstLength ?? countedMoves(outcome.moves),
    ms,
    statesStored: outcome.stats.statesStored,
    memoryBytes: outcome.stats.memoryBytes,
  };
}

/** The row of a solve that threw (error code from a SolverError, else `exception`); also prints the error on stderr. */
export function rowFromError(deal: number, err: unknown, ms: number): DealRow {
  const code = err instanceof SolverError ? err.code : 'exception';
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`\ndeal ${deal}: ${code}: ${message}\n`);
  return { deal, verdict: 'error', reason: code, moves: 0, movesNoAuto: 0, firstNoAuto: 0, ms, statesStored: 0, memoryBytes: 0 };
}

// ---------------------------------------------------------------- statistics

/** Nearest-rank percentile (`p` in 0..100) of an ascending array; 0 for an empty one. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Arithmetic mean; 0 for an empty array. */
export function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

// ---------------------------------------------------------------- progress

/** A progress bar on stderr: `label [bar] done/total % | rate deals/s | ETA` (one line every 15 s when stderr is not a TTY). */
export function progressBar(label: string, total: number): cliProgress.SingleBar {
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {value}/{total} {percentage}% | {rate} deals/s | ETA {eta_formatted}`,
      barsize: 24,
      fps: 1, // a TTY redraws at most about once a second
      noTTYOutput: true, // a log gets one line every 15 s
      notTTYSchedule: 15_000,
      hideCursor: true,
      etaBuffer: 200,
      stream: process.stderr,
    },
    cliProgress.Presets.legacy,
  );
  bar.start(total, 0, { rate: '-' });
  return bar;
}

/** Updates `bar` to `done` deals, with the rate since `started` (a `performance.now()` value). */
export function tick(bar: cliProgress.SingleBar, done: number, started: number): void {
  const secs = (performance.now() - started) / 1000;
  bar.update(done, { rate: secs > 0 ? (done / secs).toFixed(0) : '-' });
}

/** Asks for a full garbage collection when Node runs with `--expose-gc` (frees engines of earlier runs). */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * `collectGarbage`, then a pause of `settleMs` so that what V8 does after a
 * full collection on its helper threads (concurrent sweeping, returning
 * memory) is over before a run takes its CPU time: otherwise up to ~0.1 s of
 * it lands in the next run's process CPU (as bench:vs-fcsolve showed).
 */
export async function collectGarbageAndSettle(settleMs = 300): Promise<void> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, settleMs));
}

// ---------------------------------------------------------------- the run

/** Peak-memory sampling as `bench/solver.ts`'s RssSampler does it: `reset()` and `peak()` return bytes. */
export interface PeakSampler {
  reset(): number;
  peak(): number;
}

/** What a run measures besides its rows: wall ms, CPU seconds (user + system of this process), RSS bytes at the start and the peak (0 without a sampler). */
export interface RunMeasure {
  rows: DealRow[];
  wallMs: number;
  cpuSeconds: number;
  startRss: number;
  peakRss: number;
}

/** Options of {@link runSingle}. */
export interface SingleRunOptions {
  /** Samples the RSS peak during the run (none: `startRss`/`peakRss` are 0). */
  sampler?: PeakSampler;
  /** Called with each deal's index in the set and its outcome, inside the timed loop (keep it cheap). */
  onOutcome?: (index: number, outcome: SolveOutcome) => void;
  /** Progress bar label (default: `<game> single`). */
  label?: string;
  /** Shorten every solution (`optimize: "length"`, client-sdk/core/shorten.ts) with these options. */
  optimize?: ShortenOptions;
  /** Solved before the timed loop and not counted (the bench's `--warmup`: the JIT of the isolate warm, as in a service that has been running). */
  warmup?: readonly Deal[];
  /**
   * Per-deal CPU time (`DealRow.cpuMs`): `'every'` (default) reads the
   * process's CPU time around every solve, two `process.cpuUsage()` calls
   * (a system call each, ~3.7 µs a deal on the 2-core machine, counted in
   * the run's CPU); a number k leaves the timed loop with wall time only and,
   * after it (untimed), solves the k slowest deals by wall time again, once
   * each, to set their `cpuMs` (the search is deterministic: the same work).
   */
  cpuPerDeal?: 'every' | number;
  /** The engine to solve with (default: a new one, `Engine.create()`): a run cut into chunks keeps one engine, as a service does. */
  engine?: Engine;
}

/**
 * Solves every deal of `set` in order with one new engine on this thread.
 * CPU time is `process.cpuUsage()` (user + system, whole process: the
 * progress bar's timer and any sampler thread count too) around the loop;
 * one warm-up solve of the first deal (and `options.warmup`) comes before it;
 * per-deal CPU times as `options.cpuPerDeal` says. A deal whose solve
 * throws gets an `error` row (the run goes on).
 */
export async function runSingle(set: PreparedSet, limits: SolveLimits, options: SingleRunOptions = {}): Promise<RunMeasure> {
  const { sampler, onOutcome } = options;
  const engine = options.engine ?? (await Engine.create());
  const optimize = options.optimize;
  const solveOne = (deal: Deal) => (optimize === undefined ? engine.solve(deal, { limits }) : engine.solveShort(deal, { limits, optimize }));
  solveOne(set.deals[0]); // warm-up (first-call costs, memory growth), not timed
  for (const deal of options.warmup ?? []) solveOne(deal); // `--warmup`: the JIT's steady state, not timed
  const rows: DealRow[] = [];
  const bar = progressBar(options.label ?? `${set.game} single`, set.deals.length);
  const startRss = sampler?.reset() ?? 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  let lastYield = started;
  const everyCpu = (options.cpuPerDeal ?? 'every') === 'every';
  for (let i = 0; i < set.deals.length; i++) {
    const t0 = performance.now();
    const c0 = everyCpu ? process.cpuUsage() : undefined;
    let row: DealRow;
    try {
      const outcome = solveOne(set.deals[i]);
      row = rowFromOutcome(set.numbers[i], outcome, performance.now() - t0);
      onOutcome?.(i, outcome);
    } catch (err) {
      row = rowFromError(set.numbers[i], err, performance.now() - t0);
    }
    if (c0 !== undefined) {
      const c = process.cpuUsage(c0);
      row.cpuMs = (c.user + c.system) / 1000;
    }
    rows.push(row);
    const now = performance.now();
    // Let the progress bar's timer run now and then.
    if (now - lastYield > 250) {
      tick(bar, i + 1, started);
      await yieldToLoop();
      lastYield = performance.now();
    }
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const peakRss = sampler?.peak() ?? 0;
  if (!everyCpu) {
    // untimed: the slowest deals by wall time solved again for their CPU time
    const slowest = rows.map((row, i) => ({ ms: row.ms, i })).sort((a, b) => b.ms - a.ms).slice(0, options.cpuPerDeal as number);
    for (const { i } of slowest) {
      const c0 = process.cpuUsage();
      try {
        solveOne(set.deals[i]);
      } catch {
        // the row already says what went wrong
      }
      const c = process.cpuUsage(c0);
      rows[i].cpuMs = (c.user + c.system) / 1000;
    }
  }
  tick(bar, set.deals.length, started);
  bar.stop();
  return { rows, wallMs, cpuSeconds: (cpu.user + cpu.system) / 1e6, startRss, peakRss };
}
