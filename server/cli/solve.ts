/**
 * Command-line solver: solves one position in this process (no server, no
 * worker pool) with the same request handling as `POST /v1/solve`.
 *
 *   npm run solve -- --game seahaven_towers --deal 1
 *   npm run solve -- --game freecell --deal 11982 --max-states 2000000
 *   npm run solve -- --game freecell --board my-board.txt --json
 *   npm run solve -- --game freecell --deal 11982 --proof 11982.proof.gz
 *
 * Prints the verdict, the counters and the solution in standard notation and
 * in fc-solve's lines (or, with `--json`, the API's JSON response). Exit
 * status: 0 for any verdict; 2 with the error code on bad input (a 4xx error
 * of the API); 1 on an engine or internal failure.
 */
import { accessSync, constants, readFileSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { Command, Option } from 'commander';
import { Engine, loadEngineModule } from '../../client-sdk/core/engine.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import {
  buildSolveResponse, defaultNumbering, OPTIMIZE_MS_CAP, PLAYER_OPTIMIZE_MS, resolveDeal, resolveLimits, resolveOptimize,
} from '../../client-sdk/api/request.js';
import { DEFAULT_LIMITS_CONFIG } from '../limits.js';
import { DEFAULT_PROOF_CAPS, proofRequestFor, solveWithProof } from '../../client-sdk/core/proof/writer.js';
import { findPreset, NUMBERINGS } from '../../client-sdk/core/rules.js';
import { SolveRequestSchema, validationError, type SolveResponse } from '../../client-sdk/api/schemas.js';
import { exitOnUsageError, isEntryPoint, userPath } from './usage.js';

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
}

/** A deal number as the API takes it: a number when exact, else the digit string. */
function dealValue(text: string): number | string {
  const n = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(n) ? n : text;
}

/** A numeric option as given (the request schema and `resolveLimits` judge it). */
function numberValue(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}

function readInput(file: string, what: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
    throw new SolverError('invalid_request', `cannot read the ${what} file "${file}" (${reason})`);
  }
}

function readLayout(file: string): unknown {
  const text = readInput(file, 'layout');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SolverError('malformed_json', `the layout file is not valid JSON: ${err instanceof Error ? err.message : err}`);
  }
}

/** The report printed without `--json`. */
function formatReport(res: SolveResponse, title: string): string {
  const s = res.stats;
  const lines: string[] = [];
  const verdict =
    res.verdict === 'solved'
      ? `solved in ${s.moveCount} moves`
      : res.verdict === 'unsolvable'
        ? 'unsolvable (the complete search found no solution)'
        : `unknown: stopped by ${res.reason ?? 'a limit'} before a verdict`;
  lines.push(`${title}: ${verdict}`);
  lines.push(
    `states expanded ${s.statesExpanded}, stored ${s.statesStored}; ${s.elapsedMs} ms; memory ${(s.memoryBytes / 2 ** 20).toFixed(1)} MiB` +
      ` (limits: ${s.limits.maxStates} states, ${s.limits.timeoutMs} ms)`,
  );
  if (res.optimize) {
    const o = res.optimize;
    lines.push(
      `shortened: ${o.length} moves without safe auto-moves (first solution ${o.firstLength}) in ${o.elapsedMs} ms` +
        `${o.budgetExhausted ? ` (the ${o.budgetMs} ms budget ran out)` : ''}`,
    );
  }
  if (res.proof) {
    lines.push(`proof: ${res.proof.positions} positions, fingerprint ${res.proof.fingerprint}; reductions:`);
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
  const fault = (why: string) => new SolverError('invalid_request', `--proof ${path}: ${why}`, { path: '--proof' });
  if (path === '-') throw fault('the certificate is binary and goes to a file, not to standard output');
  let existing: Stats | undefined;
  try {
    existing = statSync(path);
  } catch {
    // not there yet: its directory must take a new file
  }
  if (existing?.isDirectory()) throw fault('is a directory');
  try {
    accessSync(existing ? path : dirname(path), constants.W_OK);
  } catch (err) {
    throw fault(`cannot be written (${err instanceof Error && 'code' in err ? String(err.code) : String(err)})`);
  }
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
  const request = {
    game: opts.game,
    deal: opts.deal === undefined ? undefined : dealValue(opts.deal),
    numbering: opts.numbering,
    board: opts.board === undefined ? undefined : readInput(opts.board, 'board'),
    layout: opts.layout === undefined ? undefined : readLayout(opts.layout),
    limits: {
      maxStates: numberValue(opts.maxStates),
      timeoutMs: numberValue(opts.timeoutMs),
      // a player's default: short solutions within a small budget (--fast: the first solution)
      optimizeMs: opts.fast ? undefined : opts.optimizeMs === undefined ? PLAYER_OPTIMIZE_MS : numberValue(opts.optimizeMs),
    },
    optimize: opts.fast ? undefined : ('length' as const),
  };
  if (opts.fast && opts.optimizeMs !== undefined) throw new SolverError('invalid_request', '--optimize-ms and --fast exclude each other', { path: '--optimize-ms' });
  const parsed = SolveRequestSchema.safeParse(request);
  if (!parsed.success) throw validationError(parsed.error);
  const req = parsed.data;
  const deal = resolveDeal(req);
  const limits = resolveLimits(req.limits, DEFAULT_LIMITS_CONFIG, req.game);
  const optimize = resolveOptimize(req);

  if (opts.proof !== undefined) checkProofPath(opts.proof);
  const engine = Engine.instantiate(await loadEngineModule());
  // The certificate (--proof FILE) is written to the file, not inlined in the answer.
  const proof = opts.proof === undefined ? undefined : proofRequestFor(req, { ...DEFAULT_PROOF_CAPS, maxPositions: DEFAULT_LIMITS_CONFIG.maxStatesCap }, 'download');
  const found = solveWithProof(engine, deal, limits, { proof });
  const outcome = optimize === undefined ? found : engine.shorten(deal, found, optimize);
  const certificate = outcome.proof?.certificate;
  if (outcome.proof !== undefined) outcome.proof = { ...outcome.proof, certificate: undefined };
  if (opts.proof !== undefined) {
    if (certificate?.included) {
      writeFileSync(opts.proof, certificate.certificate);
      process.stderr.write(`certificate: ${opts.proof} (${certificate.bytes} bytes); check it with: ${checkCommand} ${opts.proof}\n`);
    } else {
      process.stderr.write(`no certificate written: the verdict is ${outcome.verdict}${certificate && !certificate.included ? ` (${certificate.reason})` : ''}\n`);
    }
  }
  const response = buildSolveResponse(req.game, deal, limits, outcome);

  if (opts.json) {
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
  } else {
    const preset = findPreset(req.game);
    const numbering = req.numbering ?? (preset ? defaultNumbering(preset) : null);
    const source = req.deal !== undefined ? `deal ${req.deal}${numbering ? ` (${numbering})` : ''}` : req.board !== undefined ? 'board' : 'layout';
    process.stdout.write(`${formatReport(response, `${preset?.name ?? req.game}, ${source}`)}\n`);
  }
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
  .requiredOption('--game <id>', 'game preset id (see GET /v1/games), e.g. freecell, seahaven_towers')
  .option('--deal <number>', 'deal number')
  .addOption(new Option('--numbering <scheme>', "deal numbering (default: ms when the game has it, else pysolfc)").choices(NUMBERINGS))
  .option('--board <file>', "start position as fc-solve board text ('-' = standard input)", userPath)
  .option('--layout <file>', "start position as the API's JSON layout ('-' = standard input)", userPath)
  .option('--max-states <n>', `state budget (default ${DEFAULT_LIMITS_CONFIG.defaultMaxStates}, at most ${DEFAULT_LIMITS_CONFIG.maxStatesCap})`)
  .option('--timeout-ms <n>', `deadline in ms (default ${DEFAULT_LIMITS_CONFIG.defaultTimeoutMs}, at most ${DEFAULT_LIMITS_CONFIG.timeoutMsCap})`)
  .option('--optimize-ms <n>', `time to spend shortening the solution, ms (default ${PLAYER_OPTIMIZE_MS}, at most ${OPTIMIZE_MS_CAP})`)
  .option('--fast', 'the first solution found, not shortened (as batches get it)')
  .option('--json', "print the API's JSON response")
  .option('--proof <file>', 'when the verdict is unsolvable, write its certificate (docs/proofs.md) to this file', userPath)
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
