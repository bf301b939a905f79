/**
 * The independent proof checker: reads an unsolvability certificate
 * (docs/proofs.md) and decides whether it proves its deal unsolvable.
 *
 * Independence: nothing here comes from the engine (`assembly/`) or its glue
 * (`engine/`). The key decoder and encoder, the auto-move closure and the
 * fingerprint are written again from docs/proofs.md; which moves are legal is
 * decided by `verify.ts` (`checkMove`/`applyMove`), the rules checker that
 * replays every solution. The engine and this file meet only in the file
 * format, so a bug in one is caught by the other.
 *
 * What is checked, in this order (the first failure is reported):
 *  1. the file is gzip and the header line is a v1 header (format, version,
 *     rules, key size and encoding, fingerprint syntax);
 *  2. the reductions are exactly the ones this checker can vouch for under
 *     the rules (`vouchedAutoMoveRule`), so an unsound rule cannot be smuggled
 *     in by the certificate;
 *  3. the body is exactly `positions` keys, sorted ascending bytewise with no
 *     duplicates, and their fingerprint matches the header;
 *  4. every key decodes to a valid position (cards 4..55 once each, at most
 *     `rules.columns` columns and `rules.freeCells` cells, every missing card
 *     on a foundation that can hold it) in canonical form (re-encoding gives
 *     the same bytes), and no position is won;
 *  5. the start position (the header's board, parsed by `board.ts`) after
 *     the auto-move closure is in the set, and when the header names a deal
 *     (`game` and `deal`), the deal generators (`deals/`, not the engine)
 *     deal exactly that start position, so a pass never names a deal it did
 *     not prove; rules that differ from the game's preset are listed in the
 *     pass (`rulesChanged`);
 *  6. from every position, every move — every source (column with n cards:
 *     counts 1..n; occupied cell: 1) × every target (every other column,
 *     empty ones each separately, every free cell, every foundation) — that
 *     `checkMove` finds legal, played with `applyMove` and followed by the
 *     auto-move closure, leads to a position in the set (`checkMoves` lists
 *     the candidates it need not ask `checkMove` about, and why).
 * docs/proofs.md explains why 1-6 prove that no position of the set, the
 * start included, can be won. A pooled certificate (header `pools`,
 * docs/proofs.md "Pooled certificates") goes through the same steps with
 * the pooled game's keys, closure and moves (check-pooled.ts).
 *
 * The parts, one file each: the answer (check-result.ts), the vouched
 * auto-move rule and step 2 (check-reductions.ts), keys (check-keys.ts), the
 * set (check-set.ts), the auto-move closure (check-auto-moves.ts), the
 * fingerprint (fingerprint.ts), steps 1-5 (check-prepare.ts) and step 6
 * (check-moves.ts). This file is the entry: the one-thread and the parallel
 * check, and the worker threads' range (check-worker.ts).
 */
import type { CertificateHeader } from './format.js';
import { checkMoves } from './check-moves.js';
import { checkKeyWidth, prepare, type Prepared } from './check-prepare.js';
import { checkReductions } from './check-reductions.js';
import { Rejection, type MoveCounts, type ProofCheckFail, type ProofCheckOptions, type ProofCheckPass, type ProofCheckResult } from './check-result.js';
import { toWords } from './check-set.js';
import { checkPooledMoves } from './check-pooled.js';

export { describeMove } from './check-moves.js';
export { vouchedAutoMoveRule } from './check-reductions.js';
export type { ProofCheckFail, ProofCheckOptions, ProofCheckPass, ProofCheckResult, ProofFailureCode } from './check-result.js';
export { fingerprintKeys, fnv1a64Reference } from './fingerprint.js';

/** Step 6 on positions `from` .. `to - 1`: the real game's moves (check-moves.ts), or a pooled certificate's (check-pooled.ts). */
function stepSix(prepared: Prepared, from: number, to: number, options: ProofCheckOptions): MoveCounts {
  const { header } = prepared;
  if (header.pools !== undefined) return checkPooledMoves(header.rules, header.pools, prepared.body, prepared.set, from, to, options);
  return checkMoves(prepared, from, to, options);
}

/** The pass of a certificate whose steps 1-6 all held. */
function pass(prepared: Prepared, counts: MoveCounts, elapsedMs: number, threads: number): ProofCheckPass {
  return { ok: true, header: prepared.header, positions: prepared.header.positions, ...counts, elapsedMs, threads, rulesChanged: prepared.rulesChanged };
}

function failure(err: unknown, elapsedMs: number): ProofCheckFail {
  if (err instanceof Rejection) return { ok: false, code: err.code, reason: err.message, ...err.extra, elapsedMs };
  throw err;
}

/**
 * Checks an unsolvability certificate (the whole file, gzip) in this thread
 * and returns a pass with counts and time, or the first failure with its
 * reason and, where there is one, the counterexample (position, move, result
 * as board text). Never throws for bad input: every fault is a `{ok: false}`
 * answer. Independent of the engine (see the module comment).
 * `options.exhaustive` gives every candidate to `checkMove` (slower; see `checkMoves`).
 */
export function checkCertificate(file: Uint8Array, options: ProofCheckOptions = {}): ProofCheckResult {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const prepared = prepare(file);
    const counts = stepSix(prepared, 0, prepared.header.positions, options);
    return pass(prepared, counts, elapsed(), 1);
  } catch (err) {
    return failure(err, elapsed());
  }
}

/** Worker entry from source: waits for the worker file's path, then requires it (tsx's CommonJS hook). */
const SOURCE_BOOTSTRAP =
  "import { createRequire } from 'node:module'; import { parentPort } from 'node:worker_threads'; parentPort.once('message', (file) => { createRequire(file)(file); });";

/** What a checker worker thread is given (`check-worker.ts`). */
export interface CheckWorkerData {
  header: CertificateHeader;
  /** The key bytes in a SharedArrayBuffer (not copied per thread). */
  body: Uint8Array;
  from: number;
  to: number;
}

/** What a checker worker thread answers. */
export type CheckWorkerResult = { ok: true; counts: MoveCounts } | { ok: false; failure: ProofCheckFail };

/** Step 6 on one range, as a worker thread runs it. Never throws for a bad certificate. */
export function checkRange(data: CheckWorkerData): CheckWorkerResult {
  try {
    const rule = checkReductions(data.header);
    const keyBytes = checkKeyWidth(data.header);
    const prepared: Prepared = { header: data.header, rule, body: data.body, set: toWords(data.body, data.header.positions, keyBytes / 4), keyBytes, rulesChanged: [] };
    return { ok: true, counts: stepSix(prepared, data.from, data.to, {}) };
  } catch (err) {
    return { ok: false, failure: failure(err, 0) };
  }
}

/**
 * {@link checkCertificate} with step 6 split over `threads` worker threads
 * (default: the available cores; at least `minPositionsPerThread`, default
 * 100,000, positions each). Same answer as the one-thread check: on
 * failure, the counterexample of the lowest position (each thread stops at
 * its first). Steps 1-5 run in this thread.
 */
export async function checkCertificateParallel(file: Uint8Array, options: { threads?: number; minPositionsPerThread?: number } = {}): Promise<ProofCheckResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  let prepared: Prepared;
  try {
    prepared = prepare(file);
  } catch (err) {
    return failure(err, elapsed());
  }
  const n = prepared.header.positions;
  const { availableParallelism } = await import('node:os');
  // A thread takes from a few hundred milliseconds (dist/) to two seconds (tsx)
  // to start, about the time of 100,000 positions' worth of checking: smaller sets stay on this one.
  const threads = Math.max(1, Math.min(options.threads ?? availableParallelism(), Math.ceil(n / (options.minPositionsPerThread ?? 100_000))));
  if (threads === 1) {
    try {
      const counts = stepSix(prepared, 0, n, {});
      return pass(prepared, counts, elapsed(), 1);
    } catch (err) {
      return failure(err, elapsed());
    }
  }
  const { Worker } = await import('node:worker_threads');
  const { createRequire } = await import('node:module');
  const { fileURLToPath, pathToFileURL } = await import('node:url');
  const shared = new Uint8Array(new SharedArrayBuffer(prepared.body.length));
  shared.set(prepared.body);
  const workerUrl = new URL(`./check-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  const fromSource = workerUrl.pathname.endsWith('.ts');
  // From dist/ the worker is plain JavaScript. From source (tsx, vitest) it is
  // TypeScript: a worker only sees tsx's hooks when it loads the file after
  // starting, through require (docs/stack-notes.md), hence the bootstrap.
  const execArgv = fromSource ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : [];
  const entry = fromSource ? new URL(`data:text/javascript,${encodeURIComponent(SOURCE_BOOTSTRAP)}`) : workerUrl;
  const runs = Array.from({ length: threads }, (_, t) => {
    const data: CheckWorkerData = { header: prepared.header, body: shared, from: Math.floor((n * t) / threads), to: Math.floor((n * (t + 1)) / threads) };
    return new Promise<CheckWorkerResult>((resolve, reject) => {
      const worker = new Worker(entry, { workerData: data, execArgv });
      if (fromSource) worker.postMessage(fileURLToPath(workerUrl));
      worker.once('message', (result: CheckWorkerResult) => {
        resolve(result);
        void worker.terminate();
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`proof checker thread exited with code ${code}`)));
    });
  });
  const results = await Promise.all(runs);
  const failed = results.find((r): r is { ok: false; failure: ProofCheckFail } => !r.ok);
  if (failed) return { ...failed.failure, header: prepared.header, elapsedMs: elapsed() };
  const counts = results.reduce(
    (sum, r) => (r.ok ? { movesTried: sum.movesTried + r.counts.movesTried, movesChecked: sum.movesChecked + r.counts.movesChecked } : sum),
    { movesTried: 0, movesChecked: 0 },
  );
  return pass(prepared, counts, elapsed(), threads);
}
