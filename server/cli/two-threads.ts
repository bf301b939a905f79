/**
 * One solve on two threads, for the command line (`solve --threads 2`, the
 * default on a machine with two cores or more; docs/cli.md "Threads").
 *
 * A Castle-family deal (rules whose tableau ignores suit, where the pooled
 * pass applies: client-sdk/core/pools.ts, docs/search.md §9) is solved on a
 * solver pool of two worker threads (server/pool.ts) whose helper pass starts
 * at once: the full search runs on one thread and, as soon as it has begun,
 * the pooled pass on the other. This is the service's own scheduling
 * (`SolverPool`'s helper pass, its task code in server/pool-worker.ts), not a
 * second copy of it: the first decisive answer wins and stops the other
 * search (a pooled proof stops the full search as soon as its pooling is
 * exhausted, before the certificate is built); a pooled win ("solvable")
 * proves nothing and is dropped; a full search that ends undecided first
 * hands its thread to a second pooled pass, the poolings in reverse order;
 * the answer comes once every search has stopped; the certificate of an
 * `unsolvable` verdict is the one of the search that decided (a pooled
 * certificate when a pooled pass did). solve.ts solves any other deal in
 * the calling thread, as with `--threads 1`: it has no second search to run.
 *
 * Progress (`--progress`, or stderr a terminal): one bar a search, from the
 * shared progress slots the workers write (server/pool/progress.ts
 * `PROGRESS_FIELDS`), read once a second on the main thread, which is free
 * while the workers search.
 */
import { availableParallelism } from 'node:os';
import cliProgress from 'cli-progress';
import { InvalidArgumentError } from 'commander';
import type { ProofRequest } from '../../client-sdk/core/proof/format.js';
import { POOLINGS_TO_TRY } from '../../client-sdk/core/pools.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { ShortenOptions } from '../../client-sdk/core/shorten.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { createPool } from '../pool.js';
import { budgetPermille } from './progress-budget.js';
import {
  newProgressSlots,
  progressSlot,
  PROGRESS_GUIDED,
  PROGRESS_MEMORY,
  PROGRESS_POOLING,
  PROGRESS_REPORTS,
  PROGRESS_STARTED_AT,
  PROGRESS_STORED,
} from '../pool/progress.js';

/**
 * Most threads one solve uses: the full search and the pooled pass (the
 * pooled pass tries its poolings one after another, on one thread).
 */
export const MAX_SOLVE_THREADS = 2;

/** The default of `solve --threads`: two when the machine has two cores or more, else one. */
export function defaultSolveThreads(): number {
  return Math.min(MAX_SOLVE_THREADS, availableParallelism());
}

/**
 * Option parser of `solve --threads` (commander): `1` (the full search, then
 * the pooled pass, on this thread) or `2` (side by side on two worker threads).
 * @throws InvalidArgumentError for anything else (commander prints it; exit status 2).
 */
export function solveThreads(text: string): number {
  const t = text.trim();
  if (t !== '1' && t !== '2') {
    throw new InvalidArgumentError(`expected 1 or 2: a solve runs at most ${MAX_SOLVE_THREADS} searches at once (the full search and the pooled pass)`);
  }
  return Number(t);
}

/**
 * When the pooled pass starts beside the full search, ms after the solve
 * (the pool's `helperPassAfterMs`): at once. The pool starts it once the
 * full search's worker has begun (it looks again every 250 ms until then), so a
 * deal decided within the first quarter second never starts a second search.
 */
export const SIDE_BY_SIDE_AFTER_MS = 1;

/** What `solveSideBySide` takes besides the deal and the limits. */
export interface SideBySideOptions {
  /** The compiled engine (`loadEngineModule`), handed to both workers. */
  module: WebAssembly.Module;
  /** Cap on each search's engine memory, bytes (each search has its own engine: up to twice this in all). */
  memoryLimitBytes: number;
  /** Build the certificate of an `unsolvable` verdict (client-sdk/core/proof/writer.ts). */
  proof?: ProofRequest;
  /** Shorten a found solution within this budget. */
  optimize?: ShortenOptions;
  /** Show one progress bar a search on stderr (see `sideBySideProgress`). */
  progress?: boolean;
  /** Cancels both searches: the answer is then `unknown`/`cancelled`. */
  signal?: AbortSignal;
}

/**
 * Solves `deal` (a Castle-family deal: its rules must let the pooled pass
 * apply, else this is one search on one worker) with the full search and the
 * pooled pass side by side on two worker threads (see the module comment).
 * Both threads are ended before it returns or throws, so nothing of the
 * solve keeps the process alive.
 * @returns the answer: the full search's when it decided, else the pooled
 *   pass's `unsolvable` (with `proof.pools`), else the full search's `unknown`.
 * @throws SolverError as `SolverPool.solve` (`engine_trap`, `worker_crashed`,
 *   `out_of_memory`, `engine_unresponsive`, `solution_check_failed`, ...).
 */
export async function solveSideBySide(deal: Deal, limits: SolveLimits, options: SideBySideOptions): Promise<SolveOutcome> {
  const pool = createPool({
    module: options.module,
    threads: 2,
    // the second thread starts only for the pooled pass: a deal decided at once pays for one
    minThreads: 1,
    maxQueue: 0,
    memoryLimitBytes: options.memoryLimitBytes,
    helperPassAfterMs: SIDE_BY_SIDE_AFTER_MS,
  });
  const slots = newProgressSlots(2);
  const bars = options.progress ? sideBySideProgress(limits, options.memoryLimitBytes, slots) : undefined;
  try {
    return await pool.solve(deal, limits, options.signal, {
      ...(options.proof ? { proof: options.proof } : {}),
      ...(options.optimize ? { optimize: options.optimize } : {}),
      progress: slots,
    });
  } finally {
    bars?.stop();
    await pool.close();
  }
}

/**
 * The label of a progress slot's search (`PROGRESS_POOLING`): the real game
 * (-1), the guided pass (`PROGRESS_GUIDED`), or the pooling it searches now (its `POOLINGS_TO_TRY` index; -2 or
 * out of range: a pooling not in the list).
 */
function searchLabel(pooling: number): string {
  if (pooling === -1) return 'full search';
  if (pooling === PROGRESS_GUIDED) return 'guided pass';
  const pools = POOLINGS_TO_TRY[pooling];
  return pools ? `pooled ${pools.join(' ')}` : 'pooled pass';
}

/**
 * Progress bars of a solve on two threads, on stderr (cli-progress MultiBar):
 * a bar for each search once it has reported, labelled `full search` or
 * `pooled` and the pooling it searches now (`pooled C DS H`), each with the
 * share of the budget used (the largest of positions, engine memory and the
 * time since the solve began, against their caps), positions stored,
 * positions stored per second since the last reading (`-` when the pooled
 * pass turned to another pooling), engine memory, and the seconds since that
 * search began. Read once a second from `slots` (server/pool/progress.ts
 * `newProgressSlots(2)`: slot 0 the full search, 1 the pooled pass). On a
 * terminal the bars redraw in place; elsewhere each reading writes one line a
 * search and a blank line.
 * @returns `stop`: a last reading, and the bars end.
 */
export function sideBySideProgress(limits: SolveLimits, memoryLimitBytes: number, slots: Float64Array): { stop: () => void } {
  const tty = process.stderr.isTTY === true;
  const multi = new cliProgress.MultiBar(
    {
      format: '{label} {bar} {percentage}% of budget | {stored} positions | {rate}/s | {memory} MiB | {elapsed} s',
      stream: process.stderr,
      hideCursor: tty,
      noTTYOutput: !tty,
      // off a terminal the last reading's lines end the output (stop draws nothing more)
      clearOnComplete: !tty,
      // off a terminal each reading renders (update below); no timer of its own
      notTTYSchedule: 3_600_000,
      barsize: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  const began = Date.now();
  const seen = [0, 1].map(() => ({
    bar: undefined as cliProgress.SingleBar | undefined,
    reports: 0,
    stored: 0,
    at: 0,
    pooling: -1,
  }));
  const read = () => {
    let changed = false;
    for (let i = 0; i < seen.length; i++) {
      const slot = progressSlot(slots, i);
      const s = seen[i];
      const reports = slot[PROGRESS_REPORTS];
      if (reports === s.reports) continue;
      changed = true;
      const now = Date.now();
      const stored = slot[PROGRESS_STORED];
      const memory = slot[PROGRESS_MEMORY];
      const pooling = slot[PROGRESS_POOLING];
      const seconds = (now - s.at) / 1000;
      const sameSearch = s.reports > 0 && pooling === s.pooling && stored >= s.stored && seconds > 0;
      const permille = budgetPermille(limits, memoryLimitBytes, stored, memory, now - began);
      const payload = {
        label: searchLabel(pooling).padEnd(15),
        stored: stored.toLocaleString('en'),
        rate: sameSearch ? Math.round((stored - s.stored) / seconds).toLocaleString('en') : '-',
        memory: (memory / 2 ** 20).toFixed(0),
        elapsed: ((now - slot[PROGRESS_STARTED_AT]) / 1000).toFixed(0),
      };
      Object.assign(s, { reports, stored, at: now, pooling });
      if (s.bar === undefined) s.bar = multi.create(1000, permille, payload);
      else s.bar.update(permille, payload);
    }
    if (changed && !tty) multi.update();
  };
  const timer = setInterval(read, 1000);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      if (seen.some((s) => s.bar !== undefined)) {
        if (tty) read();
        multi.stop();
      }
    },
  };
}
