/**
 * Command-line proof checker: checks an unsolvability certificate
 * (docs/proofs.md) without the engine.
 *
 *   npm run check-proof -- 11982.proof.gz
 *   npm run check-proof -- cert.gz --threads 1 --json
 *
 * Prints a pass (positions, moves checked, time) or the first
 * counterexample (which position, which move, the position it leads to).
 * Exit status: 0 the certificate proves its deal unsolvable; 1 it does not;
 * 2 the file cannot be read.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { checkCertificate, checkCertificateParallel, describeMove, type ProofCheckResult } from '../../client-sdk/core/proof/check.js';
import { certificateVersionOf, certificateVersionOfFile, checkLayeredCertificate, checkLayeredCertificateFile, type LayeredCheckResult } from '../../client-sdk/core/proof/check-layered.js';
import { LAYERED_CERTIFICATE_VERSION } from '../../client-sdk/core/proof/layered-format.js';
import { findPreset } from '../../client-sdk/core/rules.js';
import { exitOnUsageError, isEntryPoint, plural, positiveInt, userPath } from './usage.js';

interface CliOptions {
  threads?: number;
  json?: boolean;
  exhaustive?: boolean;
}

/**
 * What a certificate proves unsolvable, in words. A deal is named only as
 * the checker verified it (the header's deal number deals exactly the start
 * position); rules that differ from the game's preset are spelled out.
 */
function subject(result: ProofCheckResult): string {
  const h = result.header;
  if (!h) return 'the certificate';
  if (!findPreset(h.game)) return `the position in the certificate (its game "${h.game}" is not a known game)`;
  const what = h.deal ? `${h.game} deal ${h.deal.number} (${h.deal.numbering})` : `the ${h.game} position in the certificate`;
  return result.ok && result.rulesChanged.length > 0 ? `${what}, with ${result.rulesChanged.join(', ')},` : what;
}

function report(result: ProofCheckResult, file: string): string {
  if (result.ok) {
    return [
      `PASS: ${subject(result)} is unsolvable (${file}).`,
      ...(result.header.pools !== undefined
        ? [
            `  by its pooled game (pools ${result.header.pools.join(' ')}: docs/proofs.md, "Pooled certificates"):`,
            `  ${plural(result.positions, 'pooled position')}, none won; the pooled start position is in the set;`,
            `  ${plural(result.movesChecked, 'pooled move')} checked, every one leads into the set;`,
          ]
        : [
            `  ${plural(result.positions, 'position')}, none won; the start position is in the set;`,
            `  ${plural(result.movesChecked, 'legal move')} checked (${plural(result.movesTried, 'candidate')} judged by checkMove), every one leads into the set;`,
          ]),
      `  fingerprint ${result.header.fingerprint} matches; reductions: ${result.header.reductions.map((r) => (r.rule ? `${r.name} (${r.rule})` : r.name)).join(', ')}.`,
      `  checked in ${(result.elapsedMs / 1000).toFixed(2)} s (${result.threads} thread${result.threads === 1 ? '' : 's'}).`,
    ].join('\n');
  }
  const lines = [`FAIL (${result.code}): ${result.reason}`];
  if (result.position !== undefined) lines.push('', `Position${result.positionIndex !== undefined ? ` ${result.positionIndex}` : ''}:`, result.position.trimEnd());
  if (result.move !== undefined) lines.push('', `Move: ${describeMove(result.move)}`, `      ${JSON.stringify(result.move)}`);
  if (result.result !== undefined) {
    const label =
      result.move !== undefined ? 'Leads to (after auto-moves), not in the set:' : result.code === 'deal_mismatch' ? 'The deal the header names:' : 'Start position after auto-moves:';
    lines.push('', label, result.result.trimEnd());
  }
  if (result.resultKey !== undefined) lines.push(`key ${result.resultKey}`);
  lines.push('', `(${(result.elapsedMs / 1000).toFixed(2)} s)`);
  return lines.join('\n');
}

/** The report of a layered certificate (format v2, check-layered.ts). */
function layeredReport(result: LayeredCheckResult, file: string): string {
  if (!result.ok) {
    const text = report(result as unknown as ProofCheckResult, file);
    // where in the file: the block's layer number and measure (check-layered.ts)
    const place = [result.layer !== undefined ? `layer ${result.layer}` : '', result.measure !== undefined ? `measure ${result.measure}` : ''].filter(Boolean).join(', ');
    if (place === '') return text;
    const [first, ...rest] = text.split('\n');
    return [first, `  at ${place}${result.positionIndex !== undefined ? `, position ${result.positionIndex} of the file` : ''}`, ...rest].join('\n');
  }
  const h = result.header;
  const subjectOf = { ok: true, header: { game: h.game, deal: h.deal }, rulesChanged: result.rulesChanged } as unknown as ProofCheckResult;
  return [
    `PASS: ${subject(subjectOf)} is unsolvable (${file}).`,
    `  layered certificate (docs/proofs.md, "Layered certificates"): ${plural(result.positions, 'position')} in ${plural(result.layers, 'layer')}, none won; the start position is in a layer;`,
    `  ${plural(result.movesChecked, 'legal move')} checked (${plural(result.movesTried, 'candidate')} judged by checkMove), every one leads into its layer or a later one that holds it;`,
    `  fingerprint ${result.fingerprint} matches the trailer; reductions: ${h.reductions.map((r) => (r.rule ? `${r.name} (${r.rule})` : r.name)).join(', ')};`,
    `  held at most ${plural(result.largestLayer, 'position')} of one layer and ${plural(result.peakPending, 'pending position')}.`,
    `  checked in ${(result.elapsedMs / 1000).toFixed(2)} s (1 thread, streamed).`,
  ].join('\n');
}

async function run(file: string, opts: CliOptions): Promise<void> {
  // a layered certificate (version 2) is checked as it is read, layer by layer: never the whole file in memory
  const version = file === '-' ? undefined : await certificateVersionOfFile(file);
  if (version === LAYERED_CERTIFICATE_VERSION) {
    const result = await checkLayeredCertificateFile(file, { exhaustive: opts.exhaustive });
    printResult(result, opts, () => layeredReport(result, file));
    return;
  }
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file === '-' ? 0 : file);
  } catch (err) {
    process.stderr.write(`cannot read "${file}": ${err instanceof Error && 'code' in err ? String(err.code) : String(err)}\n`);
    process.exitCode = 2;
    return;
  }
  if (certificateVersionOf(bytes) === LAYERED_CERTIFICATE_VERSION) {
    const result = checkLayeredCertificate(bytes, { exhaustive: opts.exhaustive });
    printResult(result, opts, () => layeredReport(result, file));
    return;
  }
  const threads = opts.threads;
  const result =
    opts.exhaustive || threads === 1 ? checkCertificate(bytes, { exhaustive: opts.exhaustive }) : await checkCertificateParallel(bytes, { threads });
  printResult(result, opts, () => report(result, file));
}

/** Prints a check's answer (JSON, header last, or the report) and sets the exit status. */
function printResult(result: ProofCheckResult | LayeredCheckResult, opts: CliOptions, text: () => string): void {
  if (opts.json) {
    const { header, ...rest } = result;
    process.stdout.write(`${JSON.stringify({ ...rest, ...(header ? { header } : {}) }, null, 2)}\n`);
  } else {
    process.stdout.write(`${text()}\n`);
  }
  process.exitCode = result.ok ? 0 : 1;
}

/**
 * The `check-proof` command (commander), as `solitaire-solver check-proof`
 * and `npm run check-proof` run it; the exit status is set on
 * `process.exitCode` (0 proven, 1 not proven, 2 unreadable file).
 */
export function checkProofCommand(): Command {
  return new Command()
  .name('check-proof')
  .exitOverride(exitOnUsageError)
  .description('Check an unsolvability certificate (docs/proofs.md) without the engine.')
  .argument('<file>', "certificate file (gzip), '-' = standard input", userPath)
  .option('--threads <n>', 'most worker threads for the move check (default: the available cores, one per 100,000 positions; a layered certificate is checked on one thread, streamed)', positiveInt)
  .option('--exhaustive', 'give every candidate move to checkMove, skipping none (slower; one thread)')
  .option('--json', 'print the result as JSON')
  .action(run);
}

if (isEntryPoint(import.meta.url)) await checkProofCommand().parseAsync();
