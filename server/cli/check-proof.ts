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
import { checkCertificate, checkCertificateParallel, describeMove, type ProofCheckResult } from '../../client-sdk/proof-check.js';
import { exitOnUsageError } from './usage.js';

interface CliOptions {
  threads?: string;
  json?: boolean;
  exhaustive?: boolean;
}

const nf = new Intl.NumberFormat('en-US');

function subject(result: ProofCheckResult): string {
  const h = result.header;
  if (!h) return 'the certificate';
  return `${h.game || 'the position'}${h.deal ? ` deal ${h.deal.number} (${h.deal.numbering})` : ''}`;
}

function report(result: ProofCheckResult, file: string): string {
  if (result.ok) {
    return [
      `PASS: ${subject(result)} is unsolvable (${file}).`,
      `  ${nf.format(result.positions)} positions, none won; the start position is in the set;`,
      `  ${nf.format(result.movesChecked)} legal moves checked (${nf.format(result.movesTried)} candidates judged by checkMove), every one leads into the set;`,
      `  fingerprint ${result.header.fingerprint} matches; reductions: ${result.header.reductions.map((r) => (r.rule ? `${r.name} (${r.rule})` : r.name)).join(', ')}.`,
      `  checked in ${(result.elapsedMs / 1000).toFixed(2)} s (${result.threads} thread${result.threads === 1 ? '' : 's'}).`,
    ].join('\n');
  }
  const lines = [`FAIL (${result.code}): ${result.reason}`];
  if (result.position !== undefined) lines.push('', `Position${result.positionIndex !== undefined ? ` ${result.positionIndex}` : ''}:`, result.position.trimEnd());
  if (result.move !== undefined) lines.push('', `Move: ${describeMove(result.move)}`, `      ${JSON.stringify(result.move)}`);
  if (result.result !== undefined) {
    lines.push('', result.move !== undefined ? 'Leads to (after auto-moves), not in the set:' : 'Start position after auto-moves:', result.result.trimEnd());
  }
  if (result.resultKey !== undefined) lines.push(`key ${result.resultKey}`);
  lines.push('', `(${(result.elapsedMs / 1000).toFixed(2)} s)`);
  return lines.join('\n');
}

async function run(file: string, opts: CliOptions): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file === '-' ? 0 : file);
  } catch (err) {
    process.stderr.write(`cannot read "${file}": ${err instanceof Error && 'code' in err ? String(err.code) : String(err)}\n`);
    process.exitCode = 2;
    return;
  }
  const threads = opts.threads === undefined ? undefined : Number(opts.threads);
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) {
    process.stderr.write(`--threads must be a positive integer, got ${opts.threads}\n`);
    process.exitCode = 2;
    return;
  }
  const result =
    opts.exhaustive || threads === 1 ? checkCertificate(bytes, { exhaustive: opts.exhaustive }) : await checkCertificateParallel(bytes, { threads });
  if (opts.json) {
    const { header, ...rest } = result;
    process.stdout.write(`${JSON.stringify({ ...rest, ...(header ? { header } : {}) }, null, 2)}\n`);
  } else {
    process.stdout.write(`${report(result, file)}\n`);
  }
  process.exitCode = result.ok ? 0 : 1;
}

await new Command()
  .name('check-proof')
  .exitOverride(exitOnUsageError)
  .description('Check an unsolvability certificate (docs/proofs.md) without the engine.')
  .argument('<file>', "certificate file (gzip), '-' = standard input")
  .option('--threads <n>', 'most worker threads for the move check (default: the available cores, one per 100,000 positions)')
  .option('--exhaustive', 'give every candidate move to checkMove, skipping none (slower; one thread)')
  .option('--json', 'print the result as JSON')
  .action(run)
  .parseAsync();
