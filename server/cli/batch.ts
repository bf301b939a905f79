/**
 * Command-line batch: runs a batch in this process, on the same worker pool,
 * scheduler and store as the service, with a progress bar and the summary at
 * the end.
 *
 *   npm run batch -- --game seahaven_towers --deals 1-1000
 *   npm run batch -- --game freecell --deals 1..32000 --out results.ndjson --threads 2
 *   npm run batch -- --game freecell --deals 1,617,11982 --max-states 1000000 --moves --out r.ndjson
 *   npm run batch -- --game freecell --deals 1-100000 --db runs/ms.sqlite   # Ctrl-C, run again: resumes
 *   npm run batch -- --game freecell --deals 1..2000 --analysis min_cells --out cells.ndjson
 *   npm run batch -- --game freecell --deals 1..10000000 --results exceptions --db census.sqlite --out census.ndjson
 *
 * `--results exceptions` runs a census: only the deals that are not solved
 * (unsolvable, unknown, error) are kept one by one; the solved ones are
 * counted in the summary (counts, histograms of moves, positions and time:
 * server/batches/census.ts), so a range of any size costs the same memory
 * and storage. `--out` then writes the exceptions, and the summary goes to
 * a JSON file beside it (`--summary`; by default `<out>` without its
 * `.ndjson`, then `.summary.json`): the
 * batch's status as `GET /v1/batches/{id}` answers it. With `--db`, Ctrl-C
 * stops it and the same command resumes it, neither losing nor counting
 * twice a deal.
 *
 * `--analysis min_cells|castle_ladder` rates every deal's difficulty instead
 * of solving it once (server/batches/difficulty.ts, docs/apps.md) and prints
 * the distribution; it runs in this process only (no `--db`, no resume).
 *
 * The budgets per deal are the service's defaults (a game's own first), but
 * `--max-states`, `--timeout-ms` and `--max-memory-mb` may go past the
 * service's caps up to the deep budget of the offline tools
 * (`DEEP_MAX_STATES`, `DEEP_TIMEOUT_MS`, `DEEP_MAX_MEMORY_MB`; server/config.ts
 * `loadDeepBudget`), and `--deep` asks for the whole deep budget per deal
 * (explicit values win). Each thread may then hold up to that much engine
 * memory: `--threads` × `--max-memory-mb` in all.
 *
 * `--out` writes one JSON object per deal kept, in deal order (the API's result
 * lines; `--moves` adds each solution's JSON moves; `--out -` writes them to
 * standard output as the deals are done, in deal order). Without `--db` the
 * batch lives in memory; with it, an interrupted run picks up where it stopped.
 * Exit status: 0 when the batch ran to the end; 2 for bad input (with the
 * error code); 130 when interrupted; 141 when the reader of `--out -` went
 * away (EPIPE: the batch stops at once, no error line); 1 otherwise.
 */
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { BatchRequestSchema, type BatchRequest, type BatchStatus } from '../../client-sdk/api/batch-schemas.js';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { decodeUtf8Strict } from '../../client-sdk/core/utf8.js';
import { NUMBERINGS } from '../../client-sdk/core/rules.js';
import { parseRequest } from '../../client-sdk/api/schemas.js';
import { planBatch } from '../batches/positions.js';
import { createBatchService, type BatchService } from '../batches/embedded/service.js';
import { ForeignDatabaseError } from '../batches/embedded/store.js';
import { DEFAULT_LIMITS_CONFIG, ENGINE_MEMORY_MB_MAX, offlineLimitsPolicy, type DeepBudget, type LimitsConfig } from '../limits.js';
import { batchDbFolderFault, loadDeepBudget, MAX_THREADS } from '../config.js';
import { BATCH_SOLVE, createPool } from '../pool.js';
import { exitOnUsageError, gameOption, isEntryPoint, outputPathFault, plural, positiveInt, userPath } from './usage.js';
import type { Measure } from '../../client-sdk/api/apps-schemas.js';
import { DEFAULT_PROOF_CAPS } from '../../client-sdk/core/proof/certificate.js';
import { formatDistribution, runDifficultyBatch } from '../batches/difficulty.js';
import { RESULTS_MODES } from '../batches/census.js';

interface CliOptions {
  game: string;
  deals?: string;
  boards?: string;
  numbering?: 'ms' | 'pysolfc';
  maxStates?: number;
  timeoutMs?: number;
  threads: number;
  out?: string;
  moves?: boolean;
  db?: string;
  quiet?: boolean;
  analysis?: Measure;
  deep?: boolean;
  maxMemoryMb?: number;
  results: 'all' | 'exceptions';
  summary?: string;
}

function threadCount(text: string): number {
  const n = positiveInt(text);
  if (n > MAX_THREADS) throw new InvalidArgumentError(`at most ${MAX_THREADS} (4 per CPU): solves are CPU-bound and each thread holds its own engine`);
  return n;
}

/**
 * `1-1000`, `1..1000` (a range) or `1,617,11982` (a list), as the API takes
 * them. A negative end or entry (`-5..5`, `3,-1`) is passed on as written,
 * so that it is refused as the API refuses it: `deal_out_of_range`, deal
 * numbers start at 1.
 */
function dealsValue(text: string): BatchRequest['deals'] {
  if (/^\s*-?\s*\d+\s*(\.\.|-)\s*-?\s*\d+\s*$/.test(text)) return text.trim();
  const list = text.split(',').map((t) => t.trim());
  if (list.some((t) => !/^-?\d+$/.test(t))) throw new SolverError('invalid_request', `--deals: "${text}" is neither a range (1-1000) nor a list (1,617,11982)`);
  return list.map((t) => (Number.isSafeInteger(Number(t)) ? Number(t) : t));
}

/**
 * The `batch` command (commander), as `solitaire-solver batch` and `npm run
 * batch` run it. Its action ends the process (`process.exit`: the worker
 * pool's threads would keep it alive) with status 0 when the batch ran to
 * the end, 2 for bad input, 130 when interrupted, 1 otherwise.
 */
export function batchCommand(): Command {
  return new Command()
    .name('batch')
    .exitOverride(exitOnUsageError)
    .description('Solve many deals of one game with a progress bar and a summary.')
    .addOption(gameOption())
    .option('--deals <range|list>', 'deal numbers: 1-1000, 1..1000 or 1,617,11982')
    .option('--boards <file>', 'a JSON file with an array of board texts (instead of --deals)', userPath)
    .addOption(new Option('--numbering <n>', 'numbering of the deals (default: the game\'s)').choices(NUMBERINGS))
    .option('--max-states <n>', 'state budget per deal (default 5,000,000, a game\'s own first; at most DEEP_MAX_STATES)', positiveInt)
    .option('--timeout-ms <n>', 'deadline per deal, ms (default 30,000, a game\'s own first; at most DEEP_TIMEOUT_MS)', positiveInt)
    .option('--max-memory-mb <n>', 'engine memory cap per deal, MiB (default: the engine\'s most; 16 up to DEEP_MAX_MEMORY_MB, default 4095)', positiveInt)
    .option('--deep', 'the deep budget per deal: DEEP_MAX_STATES, DEEP_TIMEOUT_MS, DEEP_MAX_MEMORY_MB (explicit limits win)')
    .option('--threads <n>', `solver threads (at most ${MAX_THREADS}: 4 per CPU)`, threadCount, availableParallelism())
    .option('--out <file>', "write the results as NDJSON, in deal order ('-' = standard output; the summary then goes to standard error)", userPath)
    .option('--moves', 'with --out: include each solution as JSON moves')
    .addOption(new Option('--results <mode>', "what the batch keeps: every result, or only the deals not solved (a census; the solved ones are counted)").choices(RESULTS_MODES).default('all'))
    .option('--summary <file>', 'write the final status and summary (JSON) here (default with --results exceptions and --out <file>: beside it, <out> without .ndjson + .summary.json)', userPath)
    .option('--db <file>', 'keep the batch in this SQLite file; an interrupted run resumes from it', userPath)
    .option('--quiet', 'no progress bar')
    .addOption(new Option('--analysis <measure>', 'rate each deal\'s difficulty instead (docs/apps.md); prints the distribution').choices(['min_cells', 'castle_ladder']))
    .showHelpAfterError()
    .action((options: CliOptions) =>
      main(options).then(
        (code) => process.exit(code),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      ),
    );
}

/** `--out -`: the results go to standard output (and the summary to standard error). */
const STDOUT = '-';

/**
 * Refuses, before the pool starts and any deal is solved, the files the
 * batch would fail on at its end or would create silently: an `--out` that
 * cannot be written (a directory, a missing folder, no write access:
 * usage.ts `outputPathFault`, as `solve --proof`) and a `--db` in a folder
 * that does not exist (server/config.ts `batchDbFolderFault`, as the
 * service's `BATCH_DB_PATH`).
 * @throws SolverError `invalid_request` (exit status 2) naming the option, the path and the reason.
 */
function checkFiles(o: CliOptions): void {
  if (o.out !== undefined && o.out !== STDOUT) {
    const why = outputPathFault(o.out);
    if (why !== undefined) throw new SolverError('invalid_request', `--out ${o.out}: ${why}`, { path: '--out' });
  }
  const summary = summaryPath(o);
  if (summary !== undefined) {
    const why = outputPathFault(summary);
    if (why !== undefined) throw new SolverError('invalid_request', `--summary ${summary}: ${why}`, { path: '--summary' });
  }
  if (o.db !== undefined) {
    const why = batchDbFolderFault(o.db);
    if (why !== undefined) throw new SolverError('invalid_request', `--db ${o.db}: ${why}`, { path: '--db' });
  }
}

/** Where the summary file goes: `--summary`, else beside an `--out` file of a census (`<out>.summary.json`), else nowhere. */
function summaryPath(o: CliOptions): string | undefined {
  if (o.summary !== undefined) return o.summary;
  if (o.results === 'exceptions' && o.out !== undefined && o.out !== STDOUT) return `${o.out.replace(/\.ndjson$/, '')}.summary.json`;
  return undefined;
}

/** Whether `err` is better-sqlite3's `SqliteError` (it carries a `SQLITE_*` code). */
function isSqliteError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && err.name === 'SqliteError' && 'code' in err && typeof err.code === 'string';
}

/**
 * Where the summary lines go: standard output, or standard error when the
 * results themselves go to standard output (`--out -`), so that a pipe
 * (`batch ... --out - | jq ...`) receives NDJSON only.
 */
function summaryPrinter(o: CliOptions): (line: string) => void {
  return o.out === STDOUT ? (line) => console.error(line) : (line) => console.log(line);
}

/**
 * Exit status of a batch whose standard output was closed by its reader
 * (`--out - | head`: EPIPE): 141, 128 + SIGPIPE (13), what a shell reports
 * for a program that a closed pipe ended (`yes | head` under `set -o
 * pipefail`). Not 0: the batch did not run to the end; not 1: nothing
 * failed (docs/cli.md "Batches").
 */
export const EXIT_CLOSED_PIPE = 141;

/** How writing the results went: all written, standard output closed by its reader (EPIPE), or failed (the message is printed). */
type WriteOutcome = 'written' | 'closed' | 'failed';

/** Whether `err` is the EPIPE of a write to a pipe whose reader has gone. */
function isClosedPipe(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'EPIPE';
}

/**
 * Writes one JSON object a line to `path` (`--out`; `-` is standard output,
 * left open), with backpressure. A write that fails anyway after
 * `checkFiles` (the disk full, the folder removed meanwhile) is reported on
 * one line, not thrown; standard output closed by its reader (EPIPE) is
 * not an error and prints nothing.
 */
async function writeNdjson(path: string, rows: Iterable<unknown>): Promise<WriteOutcome> {
  try {
    const lines = Readable.from((function* () {
      for (const r of rows) yield `${JSON.stringify(r)}\n`;
    })());
    if (path === STDOUT) await pipeline(lines, process.stdout, { end: false });
    else await pipeline(lines, createWriteStream(path));
    return 'written';
  } catch (err) {
    if (path === STDOUT && isClosedPipe(err)) return 'closed';
    const code = err instanceof Error && 'code' in err ? String(err.code) : String(err);
    console.error(`error: --out ${path}: the results could not be written (${code})`);
    return 'failed';
  }
}

/** How often `--out -` writes the results done so far, ms. */
const STREAM_EVERY_MS = 200;

/**
 * `--out -` while the batch runs: writes the results to standard output in
 * deal order, each as soon as every deal before it is done (looked up every
 * STREAM_EVERY_MS; `finish` writes the rest, in deal order, gaps and all
 * when the batch was interrupted), with backpressure. A reader that goes
 * away (`| head`) makes the next write fail with EPIPE: `onClosed` is called
 * once, so that the batch stops at once instead of solving every deal for
 * nobody. Another write error is printed on one line, as `writeNdjson` does.
 */
function streamToStdout(service: BatchService, id: string, withMoves: boolean, onClosed: () => void): { finish: () => Promise<WriteOutcome>; lines: () => number } {
  let next = 0;
  let lines = 0;
  let state: WriteOutcome = 'written';
  let pumping: Promise<void> | undefined;
  const fail = (err: unknown) => {
    if (state !== 'written') return;
    if (isClosedPipe(err)) {
      state = 'closed';
      onClosed();
      return;
    }
    state = 'failed';
    console.error(`error: --out ${STDOUT}: the results could not be written (${err instanceof Error && 'code' in err ? String(err.code) : String(err)})`);
    onClosed();
  };
  // a failed write of a pipe is reported as an 'error' event, after the write call returned
  process.stdout.on('error', fail);
  const write = async (text: string): Promise<void> => {
    if (process.stdout.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        process.stdout.off('drain', done);
        process.stdout.off('error', done);
        resolve();
      };
      process.stdout.once('drain', done);
      process.stdout.once('error', done);
    });
  };
  /**
   * Writes the results from `next` on: while every deal before them is
   * done (`contiguous`: in a census, below the end of the first done span,
   * since only exceptions have a result), or all that are stored.
   */
  const pump = async (contiguous: boolean): Promise<void> => {
    const record = service.store.get(id);
    if (record === undefined) return;
    const census = record.spec.results === 'exceptions';
    const first = census ? service.store.doneSpans(id)[0] : undefined;
    const doneBelow = first !== undefined && first.lo === 0 ? first.hi : 0;
    for (const r of service.resultsByIndex(record, next)) {
      if (state !== 'written') return;
      if (contiguous && (census ? r.index >= doneBelow : r.index !== next)) return;
      if (!withMoves) delete r.moves;
      await write(`${JSON.stringify(r)}\n`);
      next = r.index + 1;
      lines++;
    }
    if (contiguous && census) next = Math.max(next, doneBelow);
  };
  const tick = () => {
    pumping ??= pump(true).finally(() => {
      pumping = undefined;
    });
  };
  const timer = setInterval(tick, STREAM_EVERY_MS);
  return {
    finish: async () => {
      clearInterval(timer);
      await pumping;
      if (state === 'written') await pump(false);
      // an EPIPE of the last write arrives after it
      // (the 'error' listener stays: a late event with none would be an uncaught exception)
      await new Promise((resolve) => setImmediate(resolve));
      return state;
    },
    lines: () => lines,
  };
}

/**
 * The engine memory cap per deal, bytes: `--max-memory-mb`, else with
 * `--deep` the deep budget's, else undefined (the pool's default, the
 * engine's most).
 * @throws SolverError `bad_limits` when `--max-memory-mb` is outside
 *   16..min(DEEP_MAX_MEMORY_MB, 4095).
 */
function memoryLimit(o: CliOptions, budget: DeepBudget): number | undefined {
  // a batch never runs the layered pass over several engines: one engine's most (DEEP_MAX_MEMORY_MB may be larger for solve)
  const most = Math.min(budget.maxMemoryMb, ENGINE_MEMORY_MB_MAX);
  const mb = o.maxMemoryMb ?? (o.deep ? most : undefined);
  if (mb === undefined) return undefined;
  if (mb < 16 || mb > most) {
    throw new SolverError('bad_limits', `--max-memory-mb must be an integer from 16 to ${most} (DEEP_MAX_MEMORY_MB, at most ${ENGINE_MEMORY_MB_MAX}: one wasm32 engine cannot pass 4 GiB)`, { path: '--max-memory-mb' });
  }
  return mb * 2 ** 20;
}

function request(o: CliOptions, budget: DeepBudget): BatchRequest {
  const maxStates = o.maxStates ?? (o.deep ? budget.maxStates : undefined);
  const timeoutMs = o.timeoutMs ?? (o.deep ? budget.timeoutMs : undefined);
  const limits = { ...(maxStates !== undefined ? { maxStates } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
  const raw: Record<string, unknown> = { game: o.game, ...(Object.keys(limits).length > 0 ? { limits } : {}), ...(o.results === 'exceptions' ? { results: 'exceptions' } : {}) };
  if (o.numbering) raw.numbering = o.numbering;
  if (o.deals !== undefined) raw.deals = dealsValue(o.deals);
  if (o.boards !== undefined) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(o.boards);
    } catch (err) {
      throw new SolverError('invalid_request', `--boards: cannot read a JSON array of boards from ${o.boards} (${err instanceof Error ? err.message : err})`);
    }
    // Strict UTF-8 (invalid_utf8 with the byte offset), as the service reads a body.
    const text = decodeUtf8Strict(bytes, `--boards file "${o.boards}"`);
    try {
      raw.boards = JSON.parse(text);
    } catch (err) {
      throw new SolverError('invalid_request', `--boards: cannot read a JSON array of boards from ${o.boards} (${err instanceof Error ? err.message : err})`);
    }
  }
  return parseRequest(BatchRequestSchema, raw);
}

/** The summary as text. */
export function formatSummary(s: BatchStatus, wallMs: number): string {
  const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
  const solvable = s.summary.solvable;
  return [
    `${s.game}${s.numbering ? ` (${s.numbering})` : ''}: ${s.done} of ${s.total} deals, ${s.status}`,
    `  solved ${s.counts.solved}, unsolvable ${s.counts.unsolvable}, unknown ${s.counts.unknown}, errors ${s.counts.error}`,
    solvable
      ? `  solvable: ${pct(solvable.share)} of ${solvable.decided} decided deals (95 % Wilson interval ${pct(solvable.low)} .. ${pct(solvable.high)})`
      : '  solvable: no deal decided',
    `  unknown: ${s.summary.unknown} (${pct(s.summary.unknownShare)}), budget per deal ${s.limits.maxStates.toLocaleString('en')} states / ${s.limits.timeoutMs} ms`,
    `  mean moves (solved): ${s.summary.meanMoves ?? '-'}; engine time per deal: ${s.summary.meanMsPerDeal ?? '-'} ms`,
    ...(s.counts.solved > 0 ? [`  moves of the solved deals: ${movesPercentiles(s)}`] : []),
    ...(s.results === 'exceptions' ? [`  kept: ${plural(s.stored, 'deal')} not solved (a census: the solved ones are counted, not stored)`] : []),
    `  wall time ${(wallMs / 1000).toFixed(1)} s, ${s.dealsPerSecond} deals/s`,
  ].join('\n');
}

/** "min 60, median 94, p99 120, max 150" of the solved deals' move counts (the summary's histogram). */
function movesPercentiles(s: BatchStatus): string {
  const histogram = s.summary.distributions.moves;
  const total = histogram.reduce((n, b) => n + b.count, 0);
  const at = (q: number) => {
    let seen = 0;
    for (const b of histogram) {
      seen += b.count;
      if (seen >= q * total) return b.moves;
    }
    return histogram[histogram.length - 1].moves;
  };
  return `min ${histogram[0].moves}, median ${at(0.5)}, p99 ${at(0.99)}, max ${histogram[histogram.length - 1].moves}`;
}

/**
 * The id of the newest batch in the store that ran to its end with the same
 * spec as `req` would get (game, numbering, rules, limits, positions, name),
 * or undefined. The spec is planned as the service plans it.
 */
function finishedBatch(service: BatchService, req: BatchRequest, policy: LimitsConfig): string | undefined {
  let wanted: string;
  try {
    wanted = JSON.stringify(planBatch(req, policy, Number.MAX_SAFE_INTEGER).spec);
  } catch {
    return undefined; // service.create reports the fault
  }
  return service.store.finished().find((r) => JSON.stringify(r.spec) === wanted)?.id;
}

async function main(options: CliOptions): Promise<number> {
  let req: BatchRequest;
  let policy: LimitsConfig;
  let memoryLimitBytes: number | undefined;
  try {
    let budget: DeepBudget;
    try {
      budget = loadDeepBudget();
    } catch (err) {
      // a DEEP_* variable out of its range is a budget fault (docs/cli.md "Deep budget")
      throw new SolverError('bad_limits', err instanceof Error ? err.message : String(err));
    }
    policy = offlineLimitsPolicy(budget, DEFAULT_LIMITS_CONFIG);
    memoryLimitBytes = memoryLimit(options, budget);
    req = request(options, budget);
    checkFiles(options);
  } catch (err) {
    if (err instanceof SolverError) {
      console.error(`error ${err.code}: ${err.message}`);
      return 2;
    }
    throw err;
  }

  if (options.analysis !== undefined) return analysis(options, req, policy, memoryLimitBytes);

  const pool = createPool({ module: await loadEngineModule(), threads: options.threads, memoryLimitBytes });
  let service: BatchService;
  try {
    service = createBatchService({
      dbPath: options.db ?? ':memory:',
      limits: policy,
      pool: {
        solve: (deal, limits, signal) => pool.solve(deal, limits, signal, BATCH_SOLVE),
        solveBatch: (source, limits, signal) => pool.solveBatch(source, limits, signal),
        solveCensus: (source, limits, signal) => pool.solveCensus(source, limits, signal),
      },
      concurrency: options.threads,
    });
  } catch (err) {
    await pool.close();
    // a file that is not a SQLite database, or one SQLite cannot open: the --db given is at fault
    if (options.db !== undefined && (isSqliteError(err) || err instanceof ForeignDatabaseError)) {
      console.error(`error invalid_request: --db ${options.db}: cannot open it as a batch database (${err.code}: ${err.message})`);
      return 2;
    }
    throw err;
  }
  const started = Date.now();
  let status: BatchStatus;
  const resumable = service.store.running()[0];
  // A rerun of a finished batch (same --db, same request) shows it instead of solving it all again.
  const finished = resumable || !options.db ? undefined : finishedBatch(service, req, policy);
  try {
    status = resumable ? service.status(resumable.id)! : finished ? service.status(finished)! : service.create(req);
  } catch (err) {
    await service.close();
    await pool.close();
    if (err instanceof SolverError && err.status < 500) {
      console.error(`error ${err.code}: ${err.message}${err.location?.path ? ` (${err.location.path})` : ''}`);
      return 2;
    }
    throw err;
  }
  if (resumable) console.error(`resuming batch ${status.id} from ${options.db}: ${status.done} of ${status.total} deals already done`);
  if (finished) {
    console.error(
      `batch ${status.id} in ${options.db} is already done (${status.done} of ${status.total} deals): its summary follows; nothing was solved again (use another --db, or delete this one, to run it anew)`,
    );
  }
  const id = status.id;

  const bar = options.quiet
    ? null
    : new cliProgress.SingleBar(
        {
          format: '{bar} {percentage}% | {value}/{total} deals | {rate} deals/s | ETA {etaText} | solved {solved} unsolvable {unsolvable} unknown {unknown}',
          hideCursor: true,
          etaBuffer: 200,
        },
        cliProgress.Presets.shades_classic,
      );
  const payload = (s: BatchStatus) => ({
    rate: s.dealsPerSecond.toFixed(1),
    etaText: s.etaSeconds === null ? '-' : `${Math.round(s.etaSeconds)} s`,
    solved: s.counts.solved,
    unsolvable: s.counts.unsolvable,
    unknown: s.counts.unknown,
  });
  bar?.start(status.total, status.done, payload(status));

  let interrupted = false;
  let stdoutClosed = false;
  let stream: ReturnType<typeof streamToStdout> | undefined;
  const ended = new Promise<void>((resolve) => {
    // --out -: the results go out as the deals are done, and a reader that went away stops the batch
    if (options.out === STDOUT) {
      stream = streamToStdout(service, id, options.moves === true, () => {
        stdoutClosed = true;
        resolve();
      });
    }
    const check = () => {
      const s = service.status(id)!;
      bar?.update(s.done, payload(s));
      if (s.status !== 'running') resolve();
    };
    service.scheduler.subscribe(id, check);
    process.once('SIGINT', () => {
      interrupted = true;
      resolve();
    });
    check();
  });
  await ended;
  bar?.stop();
  await service.scheduler.stop();
  const final = service.status(id)!;

  let written: WriteOutcome = 'written';
  if (stream) {
    written = await stream.finish();
  } else if (options.out) {
    const record = service.store.get(id)!;
    const moves = options.moves;
    written = await writeNdjson(options.out, (function* () {
      for (const r of service.resultsByIndex(record)) {
        if (!moves) delete r.moves;
        yield r;
      }
    })());
  }
  await service.close();
  await pool.close();

  const say = summaryPrinter(options);
  say(formatSummary(final, Date.now() - started));
  if (written === 'closed' || stdoutClosed) {
    // the reader of standard output went away (| head): no error, the batch stopped early (docs/cli.md "Batches")
    const resume = options.db ? `; run the same command again to resume from ${options.db}` : '';
    say(`  stopped early: standard output was closed after ${stream?.lines() ?? 0} result lines${resume}`);
    return EXIT_CLOSED_PIPE;
  }
  if (written === 'failed') return 1;
  const lines = final.results === 'exceptions' ? final.stored : final.done;
  if (options.out) say(`  results: ${options.out === STDOUT ? 'standard output' : options.out} (${plural(lines, 'line')}, deal order)`);
  const summaryFile = summaryPath(options);
  if (summaryFile !== undefined) {
    try {
      writeFileSync(summaryFile, `${JSON.stringify(final, null, 2)}\n`);
      say(`  summary: ${summaryFile}`);
    } catch (err) {
      console.error(`error: --summary ${summaryFile}: the summary could not be written (${err instanceof Error && 'code' in err ? String(err.code) : String(err)})`);
      return 1;
    }
  }
  if (interrupted) {
    say(options.db ? `  interrupted: run the same command again to resume from ${options.db}` : '  interrupted');
    return 130;
  }
  return 0;
}

/** `--analysis`: every deal's difficulty on the pool, the distribution at the end. */
async function analysis(options: CliOptions, req: BatchRequest, policy: LimitsConfig, memoryLimitBytes: number | undefined): Promise<number> {
  let planned;
  try {
    if (options.db !== undefined) throw new SolverError('invalid_request', '--analysis runs in memory only: drop --db');
    planned = planBatch(req, policy, 1_000_000);
  } catch (err) {
    if (err instanceof SolverError) {
      console.error(`error ${err.code}: ${err.message}${err.location?.path ? ` (${err.location.path})` : ''}`);
      return 2;
    }
    throw err;
  }
  const { spec, total } = planned;
  const pool = createPool({ module: await loadEngineModule(), threads: options.threads, memoryLimitBytes });
  const bar = options.quiet
    ? null
    : new cliProgress.SingleBar({ format: '{bar} {percentage}% | {value}/{total} deals | ETA {eta_formatted} | {counts}', hideCursor: true, etaBuffer: 200 }, cliProgress.Presets.shades_classic);
  const counts = new Map<string, number>();
  const countsText = () => [...counts.entries()].sort().map(([k, v]) => `${k}:${v}`).join(' ');
  bar?.start(total, 0, { counts: '' });
  const stop = new AbortController();
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    stop.abort();
  });
  const cpu0 = process.cpuUsage();
  const started = Date.now();
  let result;
  try {
    result = await runDifficultyBatch(spec, total, pool.solve, {
      measure: options.analysis,
      parallelism: options.threads,
      config: { limits: policy, proofCaps: DEFAULT_PROOF_CAPS },
      moves: options.moves,
      signal: stop.signal,
      onRow: (row, done) => {
        const key = row.verdict === 'decided' ? String(row.value) : row.verdict;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        bar?.update(done, { counts: countsText() });
      },
    });
  } catch (err) {
    bar?.stop();
    await pool.close();
    if (err instanceof SolverError && err.status < 500) {
      console.error(`error ${err.code}: ${err.message}${err.location?.path ? ` (${err.location.path})` : ''}`);
      return 2;
    }
    throw err;
  }
  bar?.stop();
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  const written = options.out ? await writeNdjson(options.out, result.rows) : 'written';
  if (written === 'failed') return 1;
  if (written === 'closed') return EXIT_CLOSED_PIPE;
  const say = summaryPrinter(options);
  say(formatDistribution(result.distribution, spec.game, Date.now() - started, (cpu.user + cpu.system) / 1000));
  say(`  budget per search ${spec.limits.maxStates.toLocaleString('en')} states / ${spec.limits.timeoutMs} ms, ${options.threads} threads`);
  if (options.out) say(`  results: ${options.out === STDOUT ? 'standard output' : options.out} (${plural(result.rows.length, 'line')}, deal order)`);
  if (interrupted) {
    say('  interrupted');
    return 130;
  }
  return 0;
}

if (isEntryPoint(import.meta.url)) await batchCommand().parseAsync();
