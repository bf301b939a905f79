/**
 * Side-by-side benchmark: this engine against Freecell Solver (fc-solve) on
 * the same Microsoft FreeCell deals. Prints numbers; it is
 * not a test. docs/benchmarks-vs-fcsolve.md explains every column.
 *
 *   npm run bench:vs-fcsolve                                  # MS 1..20000, 3 rounds, sample every 100th deal (~2 CPU minutes)
 *   npm run bench:vs-fcsolve -- --from 1 --to 32000 --rounds 1
 *
 * Needs the Debian package freecell-solver-bin (`apt-get install -y
 * freecell-solver-bin`): without it the bench says so in one line, exit 2.
 *
 * Each round runs both sides over the whole range, one after the other
 * (odd rounds fc-solve first, even rounds ours first), one core each; with
 * `--chunk n` a round goes chunk by chunk (n deals), both sides solving a
 * chunk before the next one and the order alternating from chunk to chunk,
 * so that the host's drift in speed (±30 % over minutes here) falls on
 * both alike (fc-solve's start-up costs under 10 ms a chunk):
 *  - fc-solve: `freecell-solver-range-parallel-solve FROM TO 1 -l PRESET`
 *    as a child process; CPU = the child's user + system time, from
 *    `/usr/bin/time` (or, without it, the children's times in /proc/self/stat);
 *    positions per deal = the increase of its running `total_num_iters`
 *    (positions checked); verdicts from its `Unsolved`/`Intractable` lines.
 *  - ours: one engine in this process (bench/single-engine.ts, as
 *    `npm run bench` runs it); CPU = `process.cpuUsage()` around the loop,
 *    which includes replaying every solution through the independent checker;
 *    positions per deal = positions stored by the engine.
 * Solution length: ours for every solved deal, from the engine's moves; for
 * fc-solve on a sample (every `--sample`-th deal from `--from`), by running
 * `fc-solve -m -sel -l PRESET` on the board `make-microsoft-freecell-board`
 * prints (checked to be the deal we solve) and counting its move lines. The
 * lines are replayed through our checker (client-sdk/core/verify.ts), so the count
 * is of legal moves that win. Both sides count every move, foundation moves
 * and auto-moves included, a sequence move (supermove) as 1; ours is also
 * given without auto-moves, and both with sequence moves expanded to
 * single-card moves (client-sdk/core/notation.ts `expandSequenceMoves`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { parseBoard } from '../client-sdk/core/board.js';
import { SolverError } from '../client-sdk/core/errors.js';
import type { Move } from '../client-sdk/core/moves.js';
import { expandSequenceMoves } from '../client-sdk/core/notation.js';
import { DEFAULT_LIMITS_CONFIG } from '../server/limits.js';
import type { Deal } from '../client-sdk/core/rules.js';
import type { SolveLimits } from '../client-sdk/core/solve-types.js';
import { checkSolution } from '../client-sdk/core/verify.js';
import { exitOnUsageError, positiveInt } from '../server/cli/usage.js';
import { FcsRangeReader, fcsMovesToMoves, parseFcsSolution, type FcsRangeDeal, type FcsVerdict } from './fcsolve-output.js';
import { collectGarbageAndSettle, mean, percentile, prepare, progressBar, runSingle, tick, type DealRow, type PreparedSet, type RunMeasure } from './single-engine.js';
import { Engine } from '../client-sdk/core/engine/index.js';

// ---------------------------------------------------------------- options

/** Our slowest deals by wall time whose CPU time is read after each round (runSingle `cpuPerDeal`): the timed loop reads no CPU clock per deal. */
const SLOWEST_RETIMED = 5;

/** Default range: about 2 CPU minutes for 3 rounds on the 2-core machine, deal 13994 included (docs/benchmarks-vs-fcsolve.md). */
const DEFAULT_TO = 20_000;

interface Options {
  from: number;
  to: number;
  rounds: number;
  sample: number;
  preset: string;
  chunk?: number;
  maxStates: number;
  timeoutMs: number;
  json?: string;
}

function parseOptions(): Options {
  const program = new Command()
    .name('bench:vs-fcsolve')
    .description('This engine (one engine, in process) against fc-solve on the same MS FreeCell deals, rounds alternating.')
    .option('--from <n>', 'first MS deal', positiveInt, 1)
    .option('--to <n>', 'last MS deal', positiveInt, DEFAULT_TO)
    .option('--rounds <n>', 'rounds (each runs both sides over the whole range)', positiveInt, 3)
    .option('--sample <n>', 'fc-solve solution length on every n-th deal from --from', positiveInt, 100)
    .option('--preset <name>', "fc-solve preset (fc-solve's -l); lg is fc-solve's fastest", 'lg')
    .option('--chunk <n>', 'cut each round into chunks of n deals, both sides solving a chunk before the next (the order alternating from chunk to chunk), so that the host\'s drift falls on both alike (default: the whole range at once)', positiveInt)
    .option('--max-states <n>', 'our state budget per deal', positiveInt, DEFAULT_LIMITS_CONFIG.defaultMaxStates)
    .option('--timeout-ms <n>', 'our time budget per deal, ms', positiveInt, DEFAULT_LIMITS_CONFIG.defaultTimeoutMs)
    .option('--json <file>', 'also write the results (rounds, summary, per-deal rows) to this file')
    .exitOverride(exitOnUsageError)
    .showHelpAfterError();
  program.parse();
  const opts = program.opts<Options>();
  if (opts.to < opts.from) program.error(`--to (${opts.to}) is below --from (${opts.from})`);
  if (!/^[A-Za-z0-9_-]+$/.test(opts.preset)) program.error(`--preset must be a preset name such as lg or ve, got ${JSON.stringify(opts.preset)}`);
  return opts;
}

// ---------------------------------------------------------------- fc-solve tools

const RANGE_SOLVER = 'freecell-solver-range-parallel-solve';
const SOLVER = 'fc-solve';
const BOARD_MAKER = 'make-microsoft-freecell-board';
const TIME = '/usr/bin/time';
const INSTALL_HINT = 'apt-get update && apt-get install -y freecell-solver-bin';
/** Quiets fc-solve's "Reading the board from the standard input" notice on every board. */
const FCS_ENV = { ...process.env, FREECELL_SOLVER_QUIET: '1' };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The full path of `name` on PATH, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** fc-solve's library version (`fc-solve --version`, second line), e.g. `5.0.0`. */
function fcsVersion(): string {
  const out = spawnSync(SOLVER, ['--version'], { encoding: 'utf8', env: FCS_ENV });
  return /version (\S+)/.exec(out.stdout ?? '')?.[1] ?? 'unknown';
}

/** User + system CPU seconds of this process's terminated, waited-for children (Linux /proc/self/stat fields 16-17). */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  const ticks = Number(fields[16 - 3]) + Number(fields[17 - 3]);
  const hz = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  return ticks / hz;
}

/** One fc-solve range run: a row per deal, CPU seconds of the child, wall ms, peak RSS in bytes (null without /usr/bin/time). */
interface FcsRun {
  rows: FcsRangeDeal[];
  cpuSeconds: number;
  wallMs: number;
  maxRssBytes: number | null;
  cpuSource: string;
}

/**
 * Runs the range solver over `from..to` with print step 1 and reads its
 * output as it comes (progress bar on stderr).
 * @throws Error when it exits non-zero or its output is not understood.
 */
async function runFcsRange(from: number, to: number, preset: string): Promise<FcsRun> {
  const useTime = executable(TIME);
  const dir = mkdtempSync(join(tmpdir(), 'vs-fcsolve-'));
  const timeFile = join(dir, 'time.txt');
  const args = [String(from), String(to), '1', '-l', preset];
  const [cmd, cmdArgs] = useTime ? [TIME, ['-f', '%U %S %M', '-o', timeFile, RANGE_SOLVER, ...args]] : [RANGE_SOLVER, args];
  const reader = new FcsRangeReader(from);
  const rows: FcsRangeDeal[] = [];
  const bar = progressBar(`fc-solve -l ${preset}`, to - from + 1);
  const children0 = useTime ? 0 : childrenCpuSeconds();
  const started = performance.now();
  try {
    const child = spawn(cmd, cmdArgs, { env: FCS_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s.slice(0, 4000)));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    let lastTick = 0;
    for await (const line of createInterface({ input: child.stdout })) {
      const row = reader.line(line);
      if (row) {
        rows.push(row);
        const now = performance.now();
        if (now - lastTick > 250) {
          tick(bar, rows.length, started);
          lastTick = now;
        }
      }
    }
    const code = await exited;
    const wallMs = performance.now() - started;
    if (code !== 0) throw new Error(`${RANGE_SOLVER} exited with status ${code}: ${stderr.trim().slice(0, 500)}`);
    if (reader.lastDeal !== to) throw new Error(`${RANGE_SOLVER} output ends at board ${reader.lastDeal ?? 'none'}, not ${to}`);
    tick(bar, rows.length, started);
    let cpuSeconds: number;
    let maxRssBytes: number | null = null;
    if (useTime) {
      const [user, system, maxKiB] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
      cpuSeconds = user + system;
      maxRssBytes = maxKiB * 1024;
    } else {
      cpuSeconds = childrenCpuSeconds() - children0;
    }
    return { rows, cpuSeconds, wallMs, maxRssBytes, cpuSource: useTime ? '/usr/bin/time' : '/proc/self/stat' };
  } finally {
    bar.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- sample: solution lengths

/** One sampled deal: fc-solve's verdict, move lines, single-card moves, positions checked; whether our checker accepted its moves. */
interface FcsSampleRow {
  deal: number;
  verdict: FcsVerdict;
  moves: number;
  singleCardMoves: number;
  statesChecked: number | null;
  checked: 'ok' | 'failed' | 'no solution';
  problem?: string;
}

/**
 * Runs `fc-solve -m -sel -l PRESET` on one deal's board and replays its moves.
 * @throws Error when the board fc-solve's generator prints is not our deal
 *   (the two generators disagree: nothing could be compared), or a tool fails.
 */
function sampleFcsDeal(dealNumber: number, deal: Deal, preset: string): FcsSampleRow {
  const made = spawnSync(BOARD_MAKER, ['-t', String(dealNumber)], { encoding: 'utf8', env: FCS_ENV });
  if (made.status !== 0) throw new Error(`${BOARD_MAKER} -t ${dealNumber} exited with status ${made.status}: ${made.stderr}`);
  const theirs = parseBoard(made.stdout, deal.rules);
  if (JSON.stringify(theirs) !== JSON.stringify(deal.layout)) {
    throw new Error(`MS deal ${dealNumber}: ${BOARD_MAKER} prints another board than ours; the two sides would not solve the same deal`);
  }
  const run = spawnSync(SOLVER, ['-m', '-sel', '-l', preset], { input: made.stdout, encoding: 'utf8', env: FCS_ENV, maxBuffer: 64 * 2 ** 20 });
  if (run.status !== 0) throw new Error(`${SOLVER} on deal ${dealNumber} exited with status ${run.status}: ${run.stderr}`);
  const solution = parseFcsSolution(run.stdout);
  const row: FcsSampleRow = {
    deal: dealNumber,
    verdict: solution.verdict,
    moves: solution.moves.length,
    singleCardMoves: 0,
    statesChecked: solution.statesChecked,
    checked: 'no solution',
  };
  if (solution.verdict !== 'solved') return row;
  try {
    const moves = fcsMovesToMoves(deal.rules, deal.layout, solution.moves);
    const check = checkSolution(deal.rules, deal.layout, moves);
    if (!check.ok) return { ...row, checked: 'failed', problem: `move ${check.moveIndex}: ${check.reason}` };
    return { ...row, checked: 'ok', singleCardMoves: expandSequenceMoves(deal.rules, deal.layout, moves).length };
  } catch (err) {
    return { ...row, checked: 'failed', problem: err instanceof Error ? err.message : String(err) };
  }
}

// ---------------------------------------------------------------- summaries

const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const fmtRatio = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a (fc-solve under 10 ms)');
const fmt1 = (n: number) => n.toFixed(1);
const fmtMs = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const MiB = 2 ** 20;

/** The median of a non-empty list. */
function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The entry with the largest `key`, or undefined for an empty list. */
function maxBy<T>(items: T[], key: (t: T) => number): T | undefined {
  return items.reduce<T | undefined>((best, t) => (best === undefined || key(t) > key(best) ? t : best), undefined);
}

interface Round {
  round: number;
  order: string;
  fcsCpuSeconds: number;
  fcsWallMs: number;
  fcsMaxRssBytes: number | null;
  oursCpuSeconds: number;
  oursWallMs: number;
  /** Our slowest deal by CPU time: its CPU ms, its wall ms, its number. */
  oursMaxMs: number;
  oursMaxCpuMs: number;
  oursMaxMsDeal: number | null;
  fcsMaxMs: number;
  fcsMaxMsDeal: number | null;
  ratio: number;
}

/** Prints a Markdown table (pipes, header separator), ready to paste into docs/benchmarks-vs-fcsolve.md. */
function printMarkdownTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
  console.log([line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'));
}

// ---------------------------------------------------------------- main

/** True when every fc-solve tool is on PATH; otherwise prints the one line that says how to install them. */
function fcsInstalled(): boolean {
  const missing = [RANGE_SOLVER, SOLVER, BOARD_MAKER].filter((t) => onPath(t) === null);
  if (missing.length === 0) return true;
  console.error(`fc-solve is not installed (${missing.join(', ')} not on PATH): install it with \`${INSTALL_HINT}\` (Debian/Ubuntu, as root)`);
  return false;
}

async function main(): Promise<void> {
  const opts = parseOptions();
  if (!fcsInstalled()) {
    process.exitCode = 2;
    return;
  }
  const limits: SolveLimits = { maxStates: opts.maxStates, timeoutMs: opts.timeoutMs };
  const n = opts.to - opts.from + 1;
  const fcsVersionText = fcsVersion();
  const benchStarted = performance.now();
  console.log(
    `vs fc-solve · MS FreeCell ${opts.from}..${opts.to} (${fmtInt(n)} deals) · ${opts.rounds} round${opts.rounds === 1 ? '' : 's'} · ` +
      `fc-solve ${fcsVersionText} -l ${opts.preset} · node ${process.version} · ${availableParallelism()} CPUs · load average ${loadavg()[0].toFixed(1)} · ` +
      `our limits ${fmtInt(limits.maxStates)} states / ${fmtInt(limits.timeoutMs)} ms per deal`,
  );

  let set: PreparedSet;
  try {
    set = prepare({ label: `freecell ms ${opts.from}..${opts.to}`, game: 'freecell', numbering: 'ms', from: opts.from, to: opts.to });
    // Before any timing: the preset loads, and fc-solve's board of the first deal is ours.
    sampleFcsDeal(opts.from, set.deals[0], opts.preset);
  } catch (err) {
    console.error(`cannot compare: ${err instanceof Error ? err.message.trim() : String(err)}`);
    process.exitCode = 2;
    return;
  }
  const sampleIndices = new Set<number>();
  for (let i = 0; i < n; i += opts.sample) sampleIndices.add(i);

  const rounds: Round[] = [];
  let fcsRows: FcsRangeDeal[] = [];
  let ourRows: DealRow[] = [];
  const ourSampleMoves = new Map<number, Move[]>();
  const unstable: string[] = [];
  for (let r = 1; r <= opts.rounds; r++) {
    const fcsFirst = r % 2 === 1;
    const fcsParts: FcsRun[] = [];
    const ourParts: RunMeasure[] = [];
    const size = opts.chunk ?? n;
    // one engine for the round, as a service keeps one; the bench's own garbage collected (and settled) before the round's first chunk
    const engine = await Engine.create();
    await collectGarbageAndSettle();
    for (let start = 0, k = 0; start < n; start += size, k++) {
      const end = Math.min(n, start + size);
      const part: PreparedSet = { ...set, from: set.numbers[start], to: set.numbers[end - 1], numbers: set.numbers.slice(start, end), deals: set.deals.slice(start, end) };
      for (const side of (k % 2 === 0) === fcsFirst ? ['fcs', 'ours'] : ['ours', 'fcs']) {
        if (side === 'fcs') {
          fcsParts.push(await runFcsRange(part.from, part.to, opts.preset));
        } else {
          const keep = r === 1;
          ourParts.push(await runSingle(part, limits, {
            label: 'ours (one engine)',
            engine,
            // no CPU clock read per deal in the timed loop (fc-solve's side has none either): the 5 slowest are re-timed after it
            cpuPerDeal: SLOWEST_RETIMED,
            onOutcome: keep ? (i, outcome) => void (sampleIndices.has(start + i) && ourSampleMoves.set(start + i, outcome.moves)) : undefined,
          }));
        }
      }
    }
    const fcs: FcsRun = {
      rows: fcsParts.flatMap((p) => p.rows),
      cpuSeconds: fcsParts.reduce((sum, p) => sum + p.cpuSeconds, 0),
      wallMs: fcsParts.reduce((sum, p) => sum + p.wallMs, 0),
      maxRssBytes: fcsParts.some((p) => p.maxRssBytes !== null) ? Math.max(...fcsParts.map((p) => p.maxRssBytes ?? 0)) : null,
      cpuSource: fcsParts[0].cpuSource,
    };
    const ours: RunMeasure = {
      rows: ourParts.flatMap((p) => p.rows),
      cpuSeconds: ourParts.reduce((sum, p) => sum + p.cpuSeconds, 0),
      wallMs: ourParts.reduce((sum, p) => sum + p.wallMs, 0),
      startRss: ourParts[0].startRss,
      peakRss: Math.max(...ourParts.map((p) => p.peakRss)),
    };
    // Both sides are deterministic: a round that disagrees with the first is worth a line.
    if (r > 1) {
      const changed = ours.rows.filter((row, i) => row.verdict !== ourRows[i].verdict || row.moves !== ourRows[i].moves).length;
      const fcsChanged = fcs.rows.filter((row, i) => row.verdict !== fcsRows[i].verdict || row.iterations !== fcsRows[i].iterations).length;
      if (changed + fcsChanged > 0) unstable.push(`round ${r}: ${changed} of our deals and ${fcsChanged} of fc-solve's differ from round 1`);
    } else {
      ourRows = ours.rows;
      fcsRows = fcs.rows;
    }
    const slowest = maxBy(ours.rows, (row) => row.cpuMs ?? row.ms);
    const fcsSlowest = maxBy(fcs.rows, (row) => row.wallMs);
    const round: Round = {
      round: r,
      order: (fcsFirst ? 'fc-solve, ours' : 'ours, fc-solve') + (opts.chunk !== undefined && opts.chunk < n ? `, alternating by chunks of ${opts.chunk}` : ''),
      fcsCpuSeconds: fcs.cpuSeconds,
      fcsWallMs: fcs.wallMs,
      fcsMaxRssBytes: fcs.maxRssBytes,
      oursCpuSeconds: ours.cpuSeconds,
      oursWallMs: ours.wallMs,
      oursMaxMs: slowest?.ms ?? 0,
      oursMaxCpuMs: slowest?.cpuMs ?? 0,
      oursMaxMsDeal: slowest?.deal ?? null,
      fcsMaxMs: fcsSlowest?.wallMs ?? 0,
      fcsMaxMsDeal: fcsSlowest?.deal ?? null,
      // /usr/bin/time counts in 10 ms steps: a tiny range can show 0.00 for fc-solve.
      ratio: fcs.cpuSeconds > 0 ? ours.cpuSeconds / fcs.cpuSeconds : Number.NaN,
    };
    rounds.push(round);
    console.log(
      `round ${r} (${round.order}): fc-solve ${round.fcsCpuSeconds.toFixed(2)} CPU s (${fmt1(round.fcsWallMs / 1000)} wall s, via ${fcs.cpuSource}), ` +
        `ours ${round.oursCpuSeconds.toFixed(2)} CPU s (${fmt1(round.oursWallMs / 1000)} wall s), ratio ours / fc-solve ${fmtRatio(round.ratio)}, ` +
        `our slowest deal ${round.oursMaxMsDeal} ${fmtMs(round.oursMaxCpuMs)} CPU ms (${fmtMs(round.oursMaxMs)} wall ms)`,
    );
  }

  // Solution lengths on the sample (not timed).
  const sampleStarted = performance.now();
  const samples: FcsSampleRow[] = [];
  const bar = progressBar('fc-solve -m sample', sampleIndices.size);
  for (const i of sampleIndices) {
    samples.push(sampleFcsDeal(set.numbers[i], set.deals[i], opts.preset));
    tick(bar, samples.length, sampleStarted);
  }
  bar.stop();
  const itersMismatch = samples.filter((s) => {
    const row = fcsRows[s.deal - opts.from];
    return s.statesChecked !== null && s.statesChecked !== row.iterations;
  });

  // ---- summary
  const fcsCpu = median(rounds.map((r) => r.fcsCpuSeconds));
  const oursCpu = median(rounds.map((r) => r.oursCpuSeconds));
  const finiteRatios = rounds.map((r) => r.ratio).filter(Number.isFinite);
  const ratio = finiteRatios.length > 0 ? median(finiteRatios) : Number.NaN;
  const ourSolved = ourRows.filter((r) => r.verdict === 'solved');
  const ourUnknown = ourRows.filter((r) => r.verdict === 'unknown' || r.verdict === 'error');
  const times = ourRows.map((r) => r.ms).sort((a, b) => a - b);
  const maxCpuMs = Math.max(...rounds.map((r) => r.oursMaxCpuMs));
  const maxMsRound = rounds.find((r) => r.oursMaxCpuMs === maxCpuMs)!;
  const ourMaxStates = maxBy(ourRows, (r) => r.statesStored)!;
  const fcsMaxIters = maxBy(fcsRows, (r) => r.iterations)!;
  const fcsCounts = { solved: 0, unsolved: 0, intractable: 0 };
  for (const row of fcsRows) fcsCounts[row.verdict]++;
  const disagree = ourRows
    .map((row, i) => ({ deal: row.deal, ours: row.verdict, fcs: fcsRows[i].verdict }))
    .filter((d) => (d.ours === 'solved') !== (d.fcs === 'solved'));
  const sampleOk = samples.filter((s) => s.checked === 'ok');
  const sampleFailed = samples.filter((s) => s.checked === 'failed');
  const ourSample = [...ourSampleMoves.entries()].filter(([i]) => samples.some((s) => s.deal === set.numbers[i] && s.checked === 'ok'));
  const ourSampleExpanded = ourSample.map(([i, moves]) => expandSequenceMoves(set.deals[i].rules, set.deals[i].layout, moves).length);

  console.log(`\nSummary: MS FreeCell ${opts.from}..${opts.to}, ${fmtInt(n)} deals, one core each; CPU = median of ${rounds.length} round${rounds.length === 1 ? '' : 's'}`);
  const fcsMaxMs = Math.max(...rounds.map((r) => r.fcsMaxMs));
  const fcsMaxMsRound = rounds.find((r) => r.fcsMaxMs === fcsMaxMs)!;
  const fcsPeak = rounds[0].fcsMaxRssBytes === null ? null : Math.max(...rounds.map((r) => r.fcsMaxRssBytes ?? 0));
  const perRounds = `median of ${rounds.length} round${rounds.length === 1 ? '' : 's'}`;
  printMarkdownTable(
    ['', `fc-solve ${fcsVersionText} -l ${opts.preset}`, 'ours (one engine)'],
    [
      [`CPU seconds, ${fmtInt(n)} deals (${perRounds})`, fcsCpu.toFixed(2), oursCpu.toFixed(2)],
      ['deals per CPU second', fmtInt(n / fcsCpu), fmtInt(n / oursCpu)],
      [`CPU ratio ours / fc-solve (${perRounds})`, '', `**${fmtRatio(ratio)}**`],
      ['positions per deal, mean', `${fmtInt(mean(fcsRows.map((r) => r.iterations)))} checked`, `${fmtInt(mean(ourRows.map((r) => r.statesStored)))} stored`],
      ['positions per deal, max (deal)', `${fmtInt(fcsMaxIters.iterations)} (${fcsMaxIters.deal})`, `${fmtInt(ourMaxStates.statesStored)} (${ourMaxStates.deal})`],
      [
        'solved / not solved / unknown',
        `${fmtInt(fcsCounts.solved)} / ${fcsCounts.unsolved} unsolved / ${fcsCounts.intractable} intractable`,
        `${fmtInt(ourSolved.length)} / ${ourRows.filter((r) => r.verdict === 'unsolvable').length} unsolvable / ${ourUnknown.length} unknown`,
      ],
      [
        'slowest deal, ms (deal), all rounds',
        `${fmtMs(fcsMaxMs)} (${fcsMaxMsRound.fcsMaxMsDeal}) wall, from its timestamps`,
        `${fmtMs(maxCpuMs)} CPU (${maxMsRound.oursMaxMsDeal}); ${fmtMs(maxMsRound.oursMaxMs)} wall`,
      ],
      ['mean moves, every solved deal', '', `${fmt1(mean(ourSolved.map((r) => r.moves)))} (${fmt1(mean(ourSolved.map((r) => r.movesNoAuto)))} without auto-moves)`],
      [
        `mean moves, sample of ${sampleOk.length} deals`,
        fmt1(mean(sampleOk.map((s) => s.moves))),
        `${fmt1(mean(ourSample.map(([, m]) => m.length)))} (${fmt1(mean(ourSample.map(([, m]) => m.filter((x) => !x.auto).length)))} without auto-moves)`,
      ],
      ['mean single-card moves, same sample', fmt1(mean(sampleOk.map((s) => s.singleCardMoves))), fmt1(mean(ourSampleExpanded))],
      ['peak RSS', fcsPeak === null ? '?' : `${fmtInt(fcsPeak / MiB)} MiB`, `${fmtInt((process.resourceUsage().maxRSS * 1024) / MiB)} MiB (whole bench process)`],
    ],
  );
  const lines = [
    `positions: fc-solve's are positions checked (its total_num_iters), ours positions stored by the engine.`,
    `moves: every move counted, foundation moves and auto-moves included, a sequence move (supermove) as 1; ` +
      `single-card: sequence moves expanded into single-card moves. fc-solve's are its -m move lines on the sample (every ${opts.sample}th deal from ${opts.from}).`,
    `sample: fc-solve -m -l ${opts.preset} solved ${samples.filter((s) => s.verdict === 'solved').length} of ${samples.length}; ` +
      `its move lines replayed by our checker: ${sampleOk.length} legal and winning, ${sampleFailed.length} rejected` +
      (sampleFailed.length > 0 ? ` (${sampleFailed.slice(0, 5).map((s) => `${s.deal}: ${s.problem}`).join('; ')})` : ''),
    `ours: ms per deal (around engine.solve, checker included, round 1): wall p50 ${fmtMs(percentile(times, 50))}, p99 ${fmtMs(percentile(times, 99))}; ` +
      `slowest ${fmtMs(maxCpuMs)} CPU ms (each round's ${SLOWEST_RETIMED} slowest by wall time solved again after the round for their CPU time) ` +
      `(deal ${maxMsRound.oursMaxMsDeal}, round ${maxMsRound.round}, ${fmtMs(maxMsRound.oursMaxMs)} wall ms); unknown ${ourUnknown.length}` +
      (ourUnknown.length > 0 ? ` (${ourUnknown.slice(0, 20).map((r) => `${r.deal} ${r.reason}`).join(', ')})` : ''),
    `verdicts: ${disagree.length === 0 ? 'fc-solve and ours agree on every deal (solved or not)' : `${disagree.length} deals differ: ${disagree.slice(0, 20).map((d) => `${d.deal} ours ${d.ours} / fc-solve ${d.fcs}`).join(', ')}`}` +
      ` (fc-solve's "unsolved" is where its search ended, not a proof; our "unsolvable" comes after a complete search)`,
    `CPU per round: fc-solve ${rounds.map((r) => r.fcsCpuSeconds.toFixed(2)).join(' / ')} s, ours ${rounds.map((r) => r.oursCpuSeconds.toFixed(2)).join(' / ')} s, ` +
      `ratio ${rounds.map((r) => fmtRatio(r.ratio)).join(' / ')}`,
  ];
  if (itersMismatch.length > 0) lines.push(`note: on ${itersMismatch.length} sampled deals fc-solve -m checked another number of positions than the range solver (e.g. deal ${itersMismatch[0].deal})`);
  if (unstable.length > 0) lines.push(`note: ${unstable.join('; ')}`);
  lines.push(`whole bench: ${fmt1((performance.now() - benchStarted) / 1000)} s wall (deal generation and the sample included); load average ${loadavg()[0].toFixed(1)} at the end`);
  console.log(lines.join('\n'));

  if (opts.json) {
    const report = {
      from: opts.from,
      to: opts.to,
      preset: opts.preset,
      fcsVersion: fcsVersionText,
      node: process.version,
      limits,
      rounds,
      summary: { fcsCpuSeconds: fcsCpu, oursCpuSeconds: oursCpu, ratio, fcsCounts, disagree },
      samples,
      // Per deal: [deal, our verdict, our positions stored, our moves, our moves without auto-moves, our wall ms, our CPU ms (round 1; null but for the slowest, re-timed after the round), fc-solve verdict, fc-solve positions checked, fc-solve wall ms]
      deals: ourRows.map((r, i) => [
        r.deal,
        r.verdict,
        r.statesStored,
        r.moves,
        r.movesNoAuto,
        Math.round(r.ms * 1000) / 1000,
        r.cpuMs === undefined ? null : Math.round(r.cpuMs * 1000) / 1000,
        fcsRows[i].verdict,
        fcsRows[i].iterations,
        fcsRows[i].wallMs,
      ]),
    };
    writeFileSync(opts.json, JSON.stringify(report) + '\n');
    console.log(`results written to ${opts.json}`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof SolverError ? `${err.code}: ${err.message}` : err);
  process.exitCode = 1;
});
