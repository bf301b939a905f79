/**
 * Command-line solver: solves one position in this process (no server, no
 * worker pool) with the same request handling as `POST /v1/solve`.
 *
 *   npm run solve -- --game seahaven_towers --deal 1
 *   npm run solve -- --game freecell --deal 11982 --max-states 2000000
 *   npm run solve -- --game freecell --board my-board.txt --json
 *   npm run solve -- --game freecell --deal 11982 --proof 11982.proof.gz
 *   npm run solve -- --game streets_and_alleys --deal 77 --deep --progress
 *
 * The budgets are the service's defaults (a game's own first), but an
 * explicit `--max-states`, `--timeout-ms` or `--max-memory-mb` may go past
 * the service's caps up to the deep budget (`DEEP_MAX_STATES`,
 * `DEEP_TIMEOUT_MS`, `DEEP_MAX_MEMORY_MB`; server/config.ts
 * `loadDeepBudget`), and `--deep` asks for the whole deep budget (by default
 * 2,000,000,000 positions, 30 minutes, 4095 MiB). A long solve shows its
 * progress on stderr (positions stored, rate, engine memory, elapsed) when
 * stderr is a terminal, or with `--progress`.
 *
 * A Castle-family deal (where the pooled pass applies) is searched on two
 * worker threads by default (`--threads 2`, when the machine has two cores):
 * the full search and the pooled pass side by side, the first decisive
 * answer wins (two-threads.ts); `--threads 1` runs them one after the other
 * on this thread, as does every other game.
 *
 * Prints the verdict, the counters and the solution in standard notation and
 * in fc-solve's lines (or, with `--json`, the API's JSON response). Exit
 * status: 0 for any verdict; 2 with the error code on bad input (a 4xx error
 * of the API, or a bad option); 1 on an engine or internal failure; 130 when
 * a solve on two threads was interrupted (SIGINT, SIGTERM: both searches
 * stop and the `unknown`/`cancelled` answer is printed).
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { Command, Option } from 'commander';
import { Engine, layeredApplies, loadEngineModule, MAX_ENGINE_MEMORY_BYTES, type ProgressOptions, type SolveProgress } from '../../client-sdk/core/engine/index.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { decodeUtf8Strict } from '../../client-sdk/core/utf8.js';
import {
  buildSolveResponse, defaultNumbering, OPTIMIZE_MS_CAP, PLAYER_OPTIMIZE_MS, resolveDeal, resolveLimits, resolveOptimize,
} from '../../client-sdk/api/request.js';
import { DEFAULT_LIMITS_CONFIG, ENGINE_MEMORY_MB_MAX, offlineLimitsPolicy, type DeepBudget } from '../limits.js';
import { loadDeepBudget } from '../config.js';
import cliProgress from 'cli-progress';
import type { SolveLimits, SolveOutcome, UnknownReason } from '../../client-sdk/core/solve-types.js';
import { DEFAULT_PROOF_CAPS, proofRequestFor, solveWithProof, type SolveSearch } from '../../client-sdk/core/proof/writer.js';
import { findPreset, NUMBERINGS } from '../../client-sdk/core/rules.js';
import { poolingApplies } from '../../client-sdk/core/pools.js';
import { guidedApplies } from '../../client-sdk/core/guided.js';
import { defaultSolveThreads, solveSideBySide, solveThreads } from './two-threads.js';
import { budgetPermille } from './progress-budget.js';
import { parseRequest, SolveRequestSchema, type SolveResponse } from '../../client-sdk/api/schemas.js';
import { exitOnUsageError, gameOption, isDecimalDigits, isEntryPoint, outputPathFault, userPath } from './usage.js';

interface CliOptions {
  game: string;
  deal?: string;
  numbering?: 'ms' | 'pysolfc';
  board?: string;
  layout?: string;
  maxStates?: string;
  timeoutMs?: string;
  json?: boolean;
  proof?: string;
  optimizeMs?: string;
  fast?: boolean;
  deep?: boolean;
  /** `--guided` / `--no-guided`: the guided pass of the no-cell Castle games (default: on with `--deep`). */
  guided?: boolean;
  /** `--layered`: the search is the layered complete pass (compact-layout games; docs/cli.md "Deep budget"). */
  layered?: boolean;
  maxMemoryMb?: string;
  /** true: `--progress`, false: `--no-progress`, undefined: on when stderr is a terminal. */
  progress?: boolean;
  /** `--threads`: 1, or 2 (the full search and the pooled pass side by side; two-threads.ts). */
  threads: number;
}

/** Least engine memory `--max-memory-mb` takes, MiB (as the service's MAX_MEMORY_MB). */
const MIN_MEMORY_MB = 16;

/**
 * The engine memory cap of a solve, bytes: `--max-memory-mb` (16 up to the
 * deep budget's), else with `--deep` the deep budget's, else the engine's
 * maximum (as before the deep budget: about 4 GiB, `MAX_ENGINE_MEMORY_BYTES`).
 * Above 4095 MiB only when the solve runs the layered pass (`layered`:
 * `--layered` or `--deep` in a no-cell Castle game), which then spreads over
 * ceil(cap / 4 GiB) engines (client-sdk/core/sharded-layers.ts); the
 * best-first search of `--deep` keeps one engine's 4095 MiB of it.
 * @throws SolverError `bad_limits` (exit status 2) for a value out of range.
 */
function memoryLimit(opts: CliOptions, budget: DeepBudget, layered: boolean): number {
  const most = layered ? budget.maxMemoryMb : Math.min(budget.maxMemoryMb, ENGINE_MEMORY_MB_MAX);
  if (opts.maxMemoryMb !== undefined) {
    const mb = Number(opts.maxMemoryMb);
    if (!/^\d+$/.test(opts.maxMemoryMb.trim()) || mb < MIN_MEMORY_MB || mb > most) {
      const why = most < budget.maxMemoryMb ? `one wasm32 engine cannot pass 4 GiB; only the layered pass (--layered, --deep) of the no-cell Castle games goes up to ${budget.maxMemoryMb}` : 'DEEP_MAX_MEMORY_MB';
      throw new SolverError('bad_limits', `--max-memory-mb must be an integer from ${MIN_MEMORY_MB} to ${most} (${why})`, { path: '--max-memory-mb' });
    }
    return mb * 2 ** 20;
  }
  return opts.deep ? most * 2 ** 20 : MAX_ENGINE_MEMORY_BYTES;
}

/**
 * The progress bar of a long solve on stderr (cli-progress): the share of
 * the budget used (the largest of positions, memory and time against their
 * caps), positions stored, positions stored per second since the last
 * report, engine memory and elapsed time. On a terminal it redraws one line;
 * elsewhere (`--progress` into a file or pipe) it writes one line a report.
 * The engine glue calls it at most once per `intervalMs` (client-sdk/core/engine/poll.ts
 * `ProgressOptions`); the search is synchronous, so every report renders at
 * once (cli-progress's own timer cannot run until the search returns).
 */
function progressBar(limits: SolveLimits, memoryLimitBytes: number): { options: ProgressOptions; stop: () => void } {
  const tty = process.stderr.isTTY === true;
  const bar = new cliProgress.SingleBar(
    {
      format: '{bar} {percentage}% of budget | {stored} positions | {rate}/s | {memory} MiB | {elapsed} s',
      stream: process.stderr,
      hideCursor: tty,
      noTTYOutput: !tty,
      // off a terminal the last report's line (drawn again by stop) ends the output, with no blank line after it
      clearOnComplete: !tty,
      synchronousUpdate: false,
      notTTYSchedule: 60_000,
      barsize: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  const permille = (p: SolveProgress) => budgetPermille(limits, memoryLimitBytes, p.statesStored, p.memoryBytes, p.elapsedMs);
  let last: SolveProgress = { statesStored: 0, statesExpanded: 0, memoryBytes: 0, elapsedMs: 0 };
  let started = false;
  const onProgress = (p: SolveProgress) => {
    const seconds = (p.elapsedMs - last.elapsedMs) / 1000;
    const payload = {
      stored: p.statesStored.toLocaleString('en'),
      rate: seconds > 0 ? Math.round((p.statesStored - last.statesStored) / seconds).toLocaleString('en') : '-',
      memory: (p.memoryBytes / 2 ** 20).toFixed(0),
      elapsed: (p.elapsedMs / 1000).toFixed(0),
    };
    last = p;
    if (!started) {
      bar.start(1000, permille(p), payload);
      started = true;
    } else {
      bar.update(permille(p), payload);
      bar.render();
    }
  };
  return { options: { onProgress }, stop: () => started && bar.stop() };
}

/**
 * A deal number as the API takes it: a number when exact, else the digit
 * string. A negative whole number (`--deal -5`) is passed as the number, so
 * that it is refused as the API refuses `"deal": -5`: `deal_out_of_range`,
 * with the numbering's range; anything else not digits stays text and is
 * refused as malformed (`invalid_request`).
 */
function dealValue(text: string): number | string {
  const n = Number(text);
  return /^-?\d+$/.test(text.trim()) && Number.isSafeInteger(n) ? n : text;
}

/**
 * A whole-number option (`--max-states`, `--timeout-ms`, `--optimize-ms`)
 * as a number; its range is judged by the request schema and `resolveLimits`
 * (`bad_limits`, the API's code for a budget out of range).
 * @throws SolverError `bad_limits` (exit status 2) when the text is not
 *   decimal digits (`12abc`, `1e3`, `-5`, `1.5`), naming the option and the value.
 */
function numberValue(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  if (!isDecimalDigits(text)) throw new SolverError('bad_limits', `${option} "${text}" is not a whole number: decimal digits only (such as 1000; no sign, point or exponent)`, { path: option });
  return Number(text);
}

/**
 * Reads a board or layout file (`-`: standard input) as strict UTF-8.
 *
 * @throws {SolverError} `invalid_request` when the file cannot be read;
 *   `invalid_utf8` (with `location.offset`, the first bad byte) when it is
 *   not UTF-8, rather than solving the text with U+FFFD in place of the bytes.
 */
function readInput(file: string, what: string): string {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file === '-' ? 0 : file);
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
    throw new SolverError('invalid_request', `cannot read the ${what} file "${file}" (${reason})`);
  }
  return decodeUtf8Strict(bytes, `the ${what} file "${file}"`);
}

function readLayout(file: string): unknown {
  const text = readInput(file, 'layout');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SolverError('malformed_json', `the layout file is not valid JSON: ${err instanceof Error ? err.message : err}`);
  }
}

/**
 * The verdict line of an `unknown` answer in the text report: what ended the
 * search in words, with the reason's wire name (docs/api.md `reason`) and the
 * budget that ran out, e.g. "unknown: stopped by the state budget
 * (max_states, 1,000 positions) before a verdict"; a cancelled solve (Ctrl-C)
 * was not stopped by a budget: "unknown: cancelled before a verdict".
 * @param reason the answer's `reason` (undefined: no reason given).
 * @param limits the budgets the solve ran with (positions, ms).
 */
export function unknownSentence(reason: UnknownReason | undefined, limits: { maxStates: number; timeoutMs: number }): string {
  switch (reason) {
    case 'cancelled':
      return 'unknown: cancelled before a verdict';
    case 'max_states':
      return `unknown: stopped by the state budget (max_states, ${limits.maxStates.toLocaleString('en')} positions) before a verdict`;
    case 'timeout':
      return `unknown: stopped by the deadline (timeout, ${limits.timeoutMs.toLocaleString('en')} ms) before a verdict`;
    case 'memory':
      return 'unknown: stopped by the engine memory cap (memory) before a verdict';
    default:
      return 'unknown: stopped by a limit before a verdict';
  }
}

/** The words for each search of {@link scheduleNote}. */
const SEARCH_WORDS: Record<SolveSearch, string> = {
  full_search: 'the full search',
  layered_pass: 'the layered pass',
  layered_after_memory: 'the layered pass in the time it left (the full search ran out of memory)',
  layered_for_certificate: 'the layered pass again, for its certificate (too many positions for a v1 one)',
  pooled_pass: 'the pooled pass in the time it left',
  guided_pass: 'the guided pass in the time it left',
};

/**
 * The line of the text answer that says which searches ran and how they
 * shared the machine: on two threads, the first search (the layered pass
 * for `--layered`) and the pooled pass side by side; on this thread, the
 * searches in the order they ran (`ran`, from `solveWithProof`'s
 * `onSearch`), e.g. "threads 1: the layered pass" or "threads 1: the full
 * search, then the pooled pass in the time it left".
 * @param streamed one thread although two were asked for: `--proof` with the layered pass streams its certificate from this thread.
 */
export function scheduleNote(sideBySide: boolean, layered: SolveLimits['layered'], outcome: Pick<SolveOutcome, 'layered'>, ran: readonly SolveSearch[], streamed: boolean): string {
  if (sideBySide) {
    const first = layered === true ? 'the layered pass' : outcome.layered !== undefined ? 'the full search (then the layered pass: it ran out of memory)' : 'the full search';
    return `threads 2: ${first} and the pooled pass side by side (the first decisive answer stops the other)`;
  }
  const searches = ran.length > 0 ? ran.map((s) => SEARCH_WORDS[s]).join(', then ') : 'no search';
  return `threads 1${streamed ? ' (--proof with the layered pass: its certificate streams from this thread)' : ''}: ${searches}`;
}

/** The report printed without `--json`. */
function formatReport(res: SolveResponse, title: string, memoryNote: string, searchNote: string | undefined): string {
  const s = res.stats;
  const lines: string[] = [];
  const verdict =
    res.verdict === 'solved'
      ? `solved in ${s.moveCount} moves`
      : res.verdict === 'unsolvable'
        ? 'unsolvable (the complete search found no solution)'
        : unknownSentence(res.reason, s.limits);
  lines.push(`${title}: ${verdict}`);
  lines.push(
    `states expanded ${s.statesExpanded}, stored ${s.statesStored}; ${s.elapsedMs} ms; memory ${(s.memoryBytes / 2 ** 20).toFixed(1)} MiB` +
      ` (limits: ${s.limits.maxStates} states, ${s.limits.timeoutMs} ms, ${memoryNote})`,
  );
  if (searchNote) lines.push(searchNote);
  if (res.optimize) {
    const o = res.optimize;
    lines.push(
      `shortened: ${o.length} moves without safe auto-moves (first solution ${o.firstLength}) in ${o.elapsedMs} ms` +
        `${o.budgetExhausted ? ` (the ${o.budgetMs} ms budget ran out)` : ''}`,
    );
  }
  if (res.proof) {
    const pooled = res.proof.pools ? ` of the pooled game (pools ${res.proof.pools.join(' ')})` : '';
    lines.push(`proof${pooled}: ${res.proof.positions} positions, fingerprint ${res.proof.fingerprint}; reductions:`);
    for (const r of res.proof.reductions) lines.push(`  ${r.name}${r.rule ? ` (${r.rule})` : ''}: ${r.meaning}`);
  }
  lines.push('', 'Start position:', res.board.trimEnd());
  if (res.verdict === 'solved') {
    lines.push('', 'Solution (standard notation):');
    for (let i = 0; i < res.notation.length; i += 10) lines.push(res.notation.slice(i, i + 10).join(' '));
    lines.push('', 'Solution (fc-solve):', ...res.fcsMoves);
  }
  return lines.join('\n');
}

/**
 * Refuses a --proof path the certificate could not be written to, before
 * the search runs: standard output (`-`; it carries the report), a
 * directory, or a place without write access.
 * @throws SolverError `invalid_request` (exit status 2).
 */
function checkProofPath(path: string): void {
  if (path === '-') throw new SolverError('invalid_request', `--proof ${path}: the certificate is binary and goes to a file, not to standard output`, { path: '--proof' });
  const why = outputPathFault(path);
  if (why !== undefined) throw new SolverError('invalid_request', `--proof ${path}: ${why}`, { path: '--proof' });
}

/**
 * A sink for the streamed layered certificate (proof/layered-writer.ts). It
 * writes to `path.partial-<pid>` beside `path`, created at its first write,
 * and `commit` renames that to `path` once the pass ended `unsolvable`; so a
 * `--deep` solve decided before the layered pass (a v1 certificate, written
 * afterwards), a pass that ends `unknown`, or an interrupted one leaves any
 * file already at `path` as it was (`remove`, and at exit, delete the
 * partial file).
 */
function lazyFileSink(path: string): { sink: (member: Uint8Array) => void; close: () => void; opened: () => boolean; commit: () => void; remove: () => void } {
  const partial = `${path}.partial-${process.pid}`;
  let fd: number | undefined;
  let opened = false;
  const close = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  const remove = () => {
    close();
    if (opened) rmSync(partial, { force: true });
    opened = false;
  };
  return {
    sink: (member) => {
      if (fd === undefined) {
        fd = openSync(partial, 'w');
        opened = true;
        process.once('exit', remove);
      }
      for (let at = 0; at < member.length; ) at += writeSync(fd, member, at, member.length - at);
    },
    close,
    opened: () => opened,
    commit: () => {
      close();
      if (opened) renameSync(partial, path);
      opened = false;
    },
    remove,
  };
}

/**
 * @param checkCommand how the user runs the checker, for the hint after a
 *   certificate is written (`solitaire-solver check-proof` or `npm run check-proof --`).
 */
async function run(opts: CliOptions, checkCommand: string): Promise<void> {
  // before any input is read: '--board - --layout -' must not consume standard input first
  const given = (['deal', 'board', 'layout'] as const).filter((k) => opts[k] !== undefined);
  if (given.length > 1) {
    throw new SolverError('invalid_request', `give exactly one of --deal, --board, --layout (got ${given.map((k) => `--${k}`).join(', ')})`);
  }
  let budget: DeepBudget;
  try {
    budget = loadDeepBudget();
  } catch (err) {
    // a DEEP_* variable out of its range is a budget fault (docs/cli.md "Deep budget")
    throw new SolverError('bad_limits', err instanceof Error ? err.message : String(err));
  }
  const request = {
    game: opts.game,
    deal: opts.deal === undefined ? undefined : dealValue(opts.deal),
    numbering: opts.numbering,
    board: opts.board === undefined ? undefined : readInput(opts.board, 'board'),
    layout: opts.layout === undefined ? undefined : readLayout(opts.layout),
    limits: {
      maxStates: numberValue(opts.maxStates, '--max-states') ?? (opts.deep ? budget.maxStates : undefined),
      timeoutMs: numberValue(opts.timeoutMs, '--timeout-ms') ?? (opts.deep ? budget.timeoutMs : undefined),
      // a player's default: short solutions within a small budget (--fast: the first solution)
      optimizeMs: opts.fast ? undefined : opts.optimizeMs === undefined ? PLAYER_OPTIMIZE_MS : numberValue(opts.optimizeMs, '--optimize-ms'),
    },
    optimize: opts.fast ? undefined : ('length' as const),
  };
  if (opts.fast && opts.optimizeMs !== undefined) throw new SolverError('invalid_request', '--optimize-ms and --fast exclude each other', { path: '--optimize-ms' });
  const req = parseRequest(SolveRequestSchema, request);
  const deal = resolveDeal(req);
  if (opts.layered && !layeredApplies(deal.rules)) {
    throw new SolverError('invalid_request', '--layered applies only to the no-cell Castle games that build by rank (Beleaguered Castle, Streets and Alleys, Citadel)', { path: '--layered' });
  }
  // the layered pass: --layered runs it alone; --deep runs it after a full search that ended for memory
  const layered = !layeredApplies(deal.rules) ? undefined : opts.layered ? true : opts.deep ? ('after_memory' as const) : undefined;
  // the guided pass (client-sdk/core/guided.ts): beams that may find a solution the full search does not reach; on with --deep
  const guided = guidedApplies(deal.rules) && (opts.guided ?? opts.deep === true);
  const limits: SolveLimits = { ...resolveLimits(req.limits, offlineLimitsPolicy(budget, DEFAULT_LIMITS_CONFIG), req.game), ...(layered ? { layered } : {}), ...(guided ? { guided } : {}) };
  const optimize = resolveOptimize(req);
  const memoryLimitBytes = memoryLimit(opts, budget, layered !== undefined);

  if (opts.proof !== undefined) checkProofPath(opts.proof);
  const module = await loadEngineModule();
  // The certificate (--proof FILE) is written to the file, not inlined in the answer.
  // a certificate holds every stored position: at most the solve's own budget
  const maxPositions = Math.max(DEFAULT_LIMITS_CONFIG.maxStatesCap, limits.maxStates);
  const proof = opts.proof === undefined ? undefined : proofRequestFor(req, { ...DEFAULT_PROOF_CAPS, maxPositions }, 'download');
  const showProgress = opts.progress ?? process.stderr.isTTY === true;
  // the layered pass with --proof streams its certificate (format v2) to the file as its layers close:
  // it runs on this thread, where the file is (the file is opened at the pass's first write)
  const layeredFile = opts.proof !== undefined && layered !== undefined ? lazyFileSink(opts.proof) : undefined;
  // the pooled pass beside the full search: only where it applies (two-threads.ts), and with two threads
  const sideBySide = opts.threads >= 2 && poolingApplies(deal.rules) && layeredFile === undefined;
  let outcome: SolveOutcome;
  let interrupted = false;
  /** The searches the solve on this thread ran, in order (the text answer names them). */
  const ran: SolveSearch[] = [];
  if (sideBySide) {
    // Ctrl-C or SIGTERM stops both searches; the answer (unknown, cancelled) is printed, exit status 130. A second one exits at once.
    const cancel = new AbortController();
    const onSignal = () => {
      if (interrupted) process.exit(130);
      interrupted = true;
      cancel.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      outcome = await solveSideBySide(deal, limits, { module, memoryLimitBytes, proof, optimize, progress: showProgress, signal: cancel.signal });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  } else {
    const engine = Engine.instantiate(module);
    const bar = showProgress ? progressBar(limits, memoryLimitBytes) : undefined;
    let found;
    try {
      const layeredCertificate = layeredFile ? { sink: layeredFile.sink, game: proof?.game, deal: proof?.deal } : undefined;
      found = solveWithProof(engine, deal, limits, { proof, memoryLimitBytes, progress: bar?.options, onSearch: (search) => ran.push(search), ...(layeredCertificate ? { layeredCertificate } : {}) });
    } finally {
      bar?.stop();
      layeredFile?.close();
    }
    outcome = optimize === undefined ? found : engine.shorten(deal, found, { optimize, memoryLimitBytes });
  }
  const certificate = outcome.proof?.certificate;
  if (outcome.proof !== undefined) outcome.proof = { ...outcome.proof, certificate: undefined };
  if (opts.proof !== undefined) {
    // a layered pass that began writing but did not end unsolvable leaves no half certificate behind
    const streamed = certificate !== undefined && !certificate.included && certificate.reason === 'streamed';
    if (layeredFile?.opened() && !streamed) layeredFile.remove();
    if (streamed) {
      layeredFile?.commit();
      process.stderr.write(`certificate: ${opts.proof} (${certificate.bytes} bytes, layered: ${certificate.layers} layers, written as they closed); check it with: ${checkCommand} ${opts.proof}\n`);
    } else if (certificate?.included) {
      writeFileSync(opts.proof, certificate.certificate);
      process.stderr.write(`certificate: ${opts.proof} (${certificate.bytes} bytes); check it with: ${checkCommand} ${opts.proof}\n`);
    } else {
      const why = certificate && !certificate.included ? ` (${certificate.reason})` : '';
      process.stderr.write(`no certificate written: the verdict is ${outcome.verdict}${why}\n`);
    }
  }
  const response = buildSolveResponse(req.game, deal, limits, outcome);
  const shards = outcome.layered?.shards;
  const shardsNote = shards === undefined ? '' : shards.count === 1 ? ' on one engine' : ` over ${shards.count} engines (at most ${shards.peakLive.join(' + ')})`;
  const layeredNote = outcome.layered ? `; the layered pass held at most ${outcome.layered.peakLive} positions' keys${shardsNote} (${outcome.layered.purges} purges)` : '';
  const memoryNote = `engine memory cap ${Math.floor(memoryLimitBytes / 2 ** 20)} MiB${sideBySide ? ' a search' : ''}${layeredNote}`;
  // where the pooled pass or the layered pass applies: what ran, and how the searches shared the machine
  const scheduled = !poolingApplies(deal.rules) && layered === undefined ? undefined : scheduleNote(sideBySide, layered, outcome, ran, opts.threads >= 2 && layeredFile !== undefined) + (sideBySide && guided ? ', the guided pass first on the second thread' : '');
  const guidedNote = outcome.guided ? `the solution is the guided pass's: beam ${outcome.guided.beam} (width ${outcome.guided.width}, weights ${outcome.guided.weights.join(',')}), replayed by the checker` : undefined;
  const searchNote = [scheduled, guidedNote].filter((x) => x !== undefined).join('; ') || undefined;

  if (opts.json) {
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
  } else {
    const preset = findPreset(req.game);
    const numbering = req.numbering ?? (preset ? defaultNumbering(preset) : null);
    const source = req.deal !== undefined ? `deal ${req.deal}${numbering ? ` (${numbering})` : ''}` : req.board !== undefined ? 'board' : 'layout';
    process.stdout.write(`${formatReport(response, `${preset?.name ?? req.game}, ${source}`, memoryNote, searchNote)}\n`);
  }
  if (interrupted) process.exitCode = 130;
}

/**
 * The `solve` command (commander), as `solitaire-solver solve` and `npm run
 * solve` run it: options as docs/cli.md lists them; the exit status is set
 * on `process.exitCode` (0 any verdict, 2 bad input, 1 internal failure).
 */
export function solveCommand(): Command {
  return new Command()
  .name('solve')
  .exitOverride(exitOnUsageError)
  .description('Solve one solitaire position in-process with the Wasm engine.')
  .addOption(gameOption())
  .option('--deal <number>', 'deal number')
  .addOption(new Option('--numbering <scheme>', "deal numbering (default: ms when the game has it, else pysolfc)").choices(NUMBERINGS))
  .option('--board <file>', "start position as fc-solve board text ('-' = standard input)", userPath)
  .option('--layout <file>', "start position as the API's JSON layout ('-' = standard input)", userPath)
  .option('--max-states <n>', `state budget (default ${DEFAULT_LIMITS_CONFIG.defaultMaxStates}, a game's own first; at most DEEP_MAX_STATES, default 2000000000)`)
  .option('--timeout-ms <n>', `deadline in ms (default ${DEFAULT_LIMITS_CONFIG.defaultTimeoutMs}, a game's own first; at most DEEP_TIMEOUT_MS, default 1800000)`)
  .option('--max-memory-mb <n>', `engine memory cap, MiB (default: the engine's most; ${MIN_MEMORY_MB} up to DEEP_MAX_MEMORY_MB, default 4095, at most 16384; above 4095 only for the layered pass, spread over ceil(cap / 4 GiB) engines)`)
  .option('--deep', 'the deep budget for offline work: DEEP_MAX_STATES, DEEP_TIMEOUT_MS, DEEP_MAX_MEMORY_MB (explicit limits win); in the no-cell Castle games a full search that ends for memory is followed by the layered pass')
  .option('--guided', 'no-cell Castle games: the guided pass (beams that look for a solution, never a proof: client-sdk/core/guided.ts) after an undecided full search, and first on the second thread beside it; on with --deep')
  .option('--no-guided', 'no guided pass, also with --deep')
  .option('--layered', 'no-cell Castle games: search with the layered complete pass alone (less memory, no certificate; docs/engine.md "The layered pass"). It expands every position layer by layer and meets a win only when it reaches its layer: it is for proving a deal unsolvable; a deal that may be solvable wants --deep (the best-first search first)')
  .option('--progress', 'show progress on stderr even when it is not a terminal (on a terminal it is on)')
  .option('--no-progress', 'no progress, even on a terminal')
  .option('--optimize-ms <n>', `time to spend shortening the solution, ms (default ${PLAYER_OPTIMIZE_MS}, at most ${OPTIMIZE_MS_CAP})`)
  .option('--fast', 'the first solution found, not shortened (as batches get it)')
  .option('--json', "print the API's JSON response")
  .option('--proof <file>', 'when the verdict is unsolvable, write its certificate (docs/proofs.md) to this file', userPath)
  .option(
    '--threads <n>',
    'threads for a Castle-family solve: 1 (the full search, then the pooled pass) or 2 (side by side; docs/cli.md "Threads")',
    solveThreads,
    defaultSolveThreads(),
  )
  .action(async (opts: CliOptions, cmd: Command) => {
    try {
      await run(opts, cmd.name().startsWith('solitaire-solver') ? 'solitaire-solver check-proof' : 'npm run check-proof --');
    } catch (err) {
      const e = err instanceof SolverError ? err : new SolverError('internal_error', err instanceof Error ? err.message : String(err));
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(e.toJSON(), null, 2)}\n`);
      } else {
        const loc = e.location;
        const where = loc
          ? [
              loc.line !== undefined ? `line ${loc.line}` : '',
              loc.column !== undefined ? `column ${loc.column}` : '',
              loc.token !== undefined ? `token "${loc.token}"` : '',
              loc.path !== undefined ? `at ${loc.path}` : '',
            ]
              .filter(Boolean)
              .join(', ')
          : '';
        process.stderr.write(`error ${e.code}: ${e.message}${where ? ` (${where})` : ''}\n`);
      }
      process.exitCode = e.status < 500 ? 2 : 1;
    }
  });
}

if (isEntryPoint(import.meta.url)) await solveCommand().parseAsync();
