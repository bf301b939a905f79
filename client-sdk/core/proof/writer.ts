/**
 * Unsolvability proofs on the writing side: the proof summary of an
 * `unsolvable` verdict and the certificate file (format v1, docs/proofs.md).
 *
 * After an `unsolvable` verdict the engine's state table holds exactly the
 * positions reachable from the start (each closed under safe auto-moves, in
 * canonical form), every one expanded. The certificate is that set: its keys
 * as the engine stored them, sorted, behind a header that names the game,
 * the rules, the start position, the reductions and the fingerprint. The
 * checker (`check.ts`) re-derives everything from the file alone.
 *
 * Node only (node:zlib, synchronous, for the service's worker threads). The
 * names, the header schema and the summary types are in `format.ts`,
 * the rest of the writing side in `certificate.ts`; both run in browsers.
 */
import { gzipSync } from 'node:zlib';
import { certificateBody, certificateBodyFromEngine, certificateWithinCap, type CertificateInput } from './certificate.js';
import { layeredApplies, MAX_ENGINE_MEMORY_BYTES, type Engine, type GuidedBeam, type PackedSolutionSink, type ProgressOptions } from '../engine/index.js';
import { shardsForMemory, solveLayeredSharded } from '../sharded-layers.js';
import { SolverError } from '../errors.js';
import { FINGERPRINT_ALGORITHM, KEY_BYTES, reductionsFor, type CertificateResult, type ProofOutcome, type ProofRequest } from './format.js';
import { withProofSummary } from './summary.js';
import { LAYERED_CERTIFICATE_VERSION } from './layered-format.js';
import { LayeredCertificateWriter } from './layered-writer.js';
import type { Deal } from '../rules.js';
import { elapsedMsSince, type SolveLimits, type SolveOutcome } from '../solve-types.js';
import { POOLINGS_TO_TRY, poolingApplies, type SuitPools } from '../pools.js';
import { GUIDED_PASS_MIN_MS, guidedApplies, guidedPass } from '../guided.js';

export { DEFAULT_PROOF_CAPS, proofRequestFor, sortKeys, type CertificateInput, type ProofCaps } from './certificate.js';

/**
 * Builds a certificate file, format v1 (docs/proofs.md): gzip of the header
 * line and the sorted keys.
 * @throws SolverError `engine_error` on a repeated key (see {@link sortKeys}).
 */
export function buildCertificate(input: CertificateInput): Uint8Array {
  return gzipBody(certificateBody(input));
}

/** gzip (level 9) of a certificate body, as a plain Uint8Array. */
function gzipBody(body: Uint8Array): Uint8Array {
  const gz = gzipSync(body, { level: 9 });
  return new Uint8Array(gz.buffer, gz.byteOffset, gz.byteLength);
}

/**
 * The certificate of the engine's last solve (which must have answered
 * `unsolvable` on `deal`; with `pools`, the pooled solve of those pools),
 * within the request's caps.
 */
export function certificateFromEngine(engine: Engine, deal: Deal, positions: number, fingerprint: string, request: ProofRequest, pools?: readonly string[]): CertificateResult {
  const made = certificateBodyFromEngine(engine, deal, positions, fingerprint, request, pools);
  if (!('body' in made)) return made;
  return certificateWithinCap(gzipBody(made.body), request);
}

/**
 * A search that a solve ran (`SolveWithProofOptions.onSearch`): the full
 * (best-first) search, the layered pass alone (`limits.layered: true`), the
 * layered pass after a full search that ran out of memory, the layered pass
 * again to stream the certificate of a full search's `unsolvable` too large
 * for a v1 one, the pooled pass, or the guided pass (`limits.guided`).
 */
export type SolveSearch = 'full_search' | 'layered_pass' | 'layered_after_memory' | 'layered_for_certificate' | 'pooled_pass' | 'guided_pass';

/** Options of {@link solveWithProof}. */
export interface SolveWithProofOptions {
  /**
   * Called as each search of the solve begins, in order (the pooled pass
   * once, before its first pooling): the CLI's text answer names what ran.
   * Must not throw.
   */
  onSearch?: (search: SolveSearch) => void;
  /** Stop flag (see `Engine.solve`). */
  stop?: Int32Array;
  /** Cap on the engine's memory (see `Engine.solve`). */
  memoryLimitBytes?: number;
  /** Build the certificate of an `unsolvable` verdict within these caps. */
  proof?: ProofRequest;
  /** Progress reports during the search (see `Engine.solve`). */
  progress?: ProgressOptions;
  /**
   * The poolings the pooled pass tries when the full search ends `unknown`
   * (default `POOLINGS_TO_TRY`; `[]` turns the pass off). Only under rules
   * whose tableau ignores suit (`poolingApplies`).
   */
  poolings?: readonly SuitPools[];
  /**
   * Asked once the full search ended `unknown`, before the pooled pass:
   * false skips the pass (another worker runs it: server/pool.ts's helper
   * pass). Default: run it.
   */
  claimPooledPass?: () => boolean;
  /**
   * Called by the pooled pass before each pooling's search, with that
   * pooling (progress displays: server/pool-worker.ts writes it to the task's
   * progress slot). Must not throw.
   */
  onPooling?: (pools: SuitPools) => void;
  /**
   * Called by the pooled pass the moment a pooling's search is exhausted
   * (the verdict is `unsolvable` from then on), before its proof summary and
   * certificate are built, which may take minutes for tens of millions of
   * positions: server/pool-worker.ts stops the full search on another worker
   * here. Must not throw.
   */
  onPooledProof?: (pools: SuitPools) => void;
  /**
   * Called by the guided pass (`limits.guided`) the moment it found a
   * checked solution, before the answer is returned: server/pool-worker.ts stops
   * the full search on another worker here. Must not throw.
   */
  onGuidedSolution?: () => void;
  /** Called before the guided pass (`limits.guided`) begins (progress displays: server/pool-worker.ts labels the slot). Must not throw. */
  onGuidedPass?: () => void;
  /** The beams of the guided pass (`limits.guided`); default `GUIDED_BEAMS` (client-sdk/core/guided.ts). */
  guidedBeams?: readonly GuidedBeam[];
  /**
   * Stream the certificate of a layered `unsolvable` (format v2,
   * layered-writer.ts, docs/proofs.md "Layered certificates") through
   * `sink`, layer by layer as the pass closes them. When set, the layered
   * pass (`limits.layered`, no-cell Castle games) runs through the sharded
   * driver (sharded-layers.ts) with `shards` engines (default: one for a
   * memory cap within one engine, else `shardsForMemory`), which hands the
   * keys of each closing layer over. The answer's `proof` then carries the
   * summary and `certificate: {included: false, reason: 'streamed', ...}`.
   * A pass that does not end `unsolvable` leaves an unfinished file behind
   * (no trailer: the checker refuses it as truncated).
   */
  layeredCertificate?: {
    sink: (member: Uint8Array) => void;
    shards?: number;
    game?: string;
    deal?: ProofRequest['deal'];
    /**
     * A full search's `unsolvable` of more positions than this (default
     * V1_MAX_POSITIONS) gets the layered certificate too: the layered pass
     * is run again for it in the time left (`relayered`), instead of a v1
     * certificate built in memory.
     */
    v1MaxPositions?: number;
  };
  /**
   * Where the full search leaves its solution packed (`Engine.solve`'s
   * `packed`, client-sdk/core/engine/engine.ts `PackedSolutionSink`): a `solved`
   * answer of the full search then has `moves` empty and its checked moves
   * in the sink. A solution of another pass (guided, layered) still comes as
   * move objects; so a caller reads the sink first and `moves` otherwise.
   */
  packedSolution?: PackedSolutionSink;
}

/** Least time left, ms, for which the pooled pass starts one more pooling. */
export const POOLED_PASS_MIN_MS = 200;

/**
 * `Engine.solve`, and for an `unsolvable` verdict the proof summary
 * (`outcome.proof`: positions, reductions, fingerprint) and, when
 * `options.proof.certificate` is set, the certificate (`outcome.proof.certificate`).
 * The other verdicts come back as `Engine.solve` gives them.
 * @throws as `Engine.solve`; SolverError `engine_error` when the exported set
 *   is inconsistent (see {@link sortKeys}).
 */
export function solveWithProof(engine: Engine, deal: Deal, limits: SolveLimits, options: SolveWithProofOptions = {}): SolveOutcome {
  const started = performance.now();
  options.onSearch?.(limits.layered === true ? 'layered_pass' : 'full_search');
  const full = limits.layered === true ? solveLayered(engine, deal, limits, options) : engine.solve(deal, { limits, stop: options.stop, memoryLimitBytes: options.memoryLimitBytes, progress: options.progress, packedSolution: options.packedSolution });
  // a layered answer (the layered pass: SolveLimits.layered) has no stored set to prove from: its proof, if any, was streamed
  if (limits.layered === true && full.verdict === 'unsolvable' && layeredApplies(deal.rules)) return full;
  // the answer if nothing decides: the last search that ran, which says the budget that stopped it
  let undecided = full;
  // the guided pass (limits.guided: --deep, --guided): beams that may find a solution the full search did not reach; never a proof
  // (not when a helper pass on another worker has claimed the passes after the full search: it runs the guided pass first)
  const guidedMs = limits.timeoutMs - (performance.now() - started);
  if (limits.guided === true && full.verdict === 'unknown' && full.reason !== 'cancelled' && guidedApplies(deal.rules) && guidedMs >= GUIDED_PASS_MIN_MS && (options.claimPooledPass?.() ?? true)) {
    const guided = runGuidedPass(engine, deal, guidedMs, limits, options);
    if (guided !== undefined) {
      return { ...guided, stats: { ...guided.stats, statesExpanded: guided.stats.statesExpanded + full.stats.statesExpanded, elapsedMs: elapsedMsSince(started) } };
    }
  }
  if (limits.layered === 'after_memory' && full.verdict === 'unknown' && full.reason === 'memory' && layeredApplies(deal.rules)) {
    const layered = layeredPass(engine, deal, limits, full.stats, started, options);
    if (layered !== undefined && layered.verdict !== 'unknown') return layered;
    if (layered !== undefined) undecided = layered;
  }
  if (full.verdict === 'unknown' && full.reason !== 'cancelled' && poolingApplies(deal.rules) && (options.claimPooledPass?.() ?? true)) {
    const pooled = pooledPass(engine, deal, limits, undecided.stats, started, options);
    if (pooled !== undefined) return pooled;
    // undecided: the last search's answer, timed to the end of the pass
    return { ...undecided, stats: { ...undecided.stats, elapsedMs: elapsedMsSince(started) } };
  }
  if (undecided !== full) return undecided;
  const outcome = withProofSummary(engine, deal.rules, full);
  if (outcome.proof === undefined || !options.proof?.certificate) return outcome;
  const certified = options.layeredCertificate;
  if (certified !== undefined && layeredApplies(deal.rules) && outcome.proof.positions > (certified.v1MaxPositions ?? V1_MAX_POSITIONS)) {
    return relayered(engine, deal, limits, outcome, started, certified, options);
  }
  const certificate = certificateFromEngine(engine, deal, outcome.proof.positions, outcome.proof.fingerprint, options.proof);
  return { ...outcome, proof: { ...outcome.proof, certificate } };
}


/**
 * The layered pass of `deal` under `limits` (`layered: true`): in `engine`
 * when the memory cap fits one engine (MAX_ENGINE_MEMORY_BYTES, about 4 GiB),
 * else over ceil(cap / 4 GiB) engines of its module (sharded-layers.ts;
 * the CLI's deep budget allows up to 16 GiB), `engine` being shard 0 (so
 * `Engine.shorten` can follow). The sharded answer carries no `detail` here. Rules without a layered pass get `engine.solve`.
 * @throws as `Engine.solve` and `solveLayeredSharded`.
 */
function solveLayered(engine: Engine, deal: Deal, limits: SolveLimits, options: SolveWithProofOptions): SolveOutcome {
  const cap = options.memoryLimitBytes ?? MAX_ENGINE_MEMORY_BYTES;
  if (options.layeredCertificate !== undefined && layeredApplies(deal.rules)) return solveLayeredCertified(engine, deal, limits, cap, options.layeredCertificate, options);
  if (cap <= MAX_ENGINE_MEMORY_BYTES || !layeredApplies(deal.rules)) return engine.solve(deal, { limits, stop: options.stop, memoryLimitBytes: options.memoryLimitBytes, progress: options.progress });
  const { detail: _detail, ...outcome } = solveLayeredSharded(engine.module, deal, limits, { memoryLimitBytes: cap, stop: options.stop, progress: options.progress, engine });
  return outcome;
}

/**
 * Most positions of a full search's `unsolvable` whose certificate is built
 * in memory as v1 when a layered certificate can be streamed instead
 * (`SolveWithProofOptions.layeredCertificate`, no-cell Castle games): the
 * v1 build holds the exported keys, their sort and the body, four copies of
 * 48 bytes a position beside the engine (Beleaguered Castle 954, 76 million
 * positions: past 11 GB before its sorted copy, docs/benchmarks.md).
 */
export const V1_MAX_POSITIONS = 20_000_000;

/**
 * After a full search's `unsolvable` (`full`, with its proof summary) whose
 * set is too large for a v1 certificate in memory: the layered pass again,
 * from the start, in the time left of `limits`, its certificate streamed
 * (`solveLayeredCertified`). The answer is the full search's, with the
 * layered pass's proof (certificate `streamed`) when that pass ends
 * `unsolvable` with the same positions and fingerprint, the full search's
 * summary with `certificate` `over_position_cap` when it does not end in time.
 * @throws SolverError `engine_error` when the two searches disagree (positions or fingerprint).
 */
function relayered(engine: Engine, deal: Deal, limits: SolveLimits, full: SolveOutcome, started: number, certified: NonNullable<SolveWithProofOptions['layeredCertificate']>, options: SolveWithProofOptions): SolveOutcome {
  const summary = full.proof!;
  const timeoutMs = limits.timeoutMs - (performance.now() - started);
  const tooLarge = { included: false as const, reason: 'over_position_cap' as const, positions: summary.positions, maxPositions: certified.v1MaxPositions ?? V1_MAX_POSITIONS, estimatedRawBytes: summary.positions * KEY_BYTES };
  if (timeoutMs < POOLED_PASS_MIN_MS) return { ...full, proof: { ...summary, certificate: tooLarge } };
  options.onSearch?.('layered_for_certificate');
  const cap = options.memoryLimitBytes ?? MAX_ENGINE_MEMORY_BYTES;
  const layered = solveLayeredCertified(engine, deal, { maxStates: limits.maxStates, timeoutMs, layered: true }, cap, certified, options);
  if (layered.verdict !== 'unsolvable' || layered.proof === undefined) return { ...full, proof: { ...summary, certificate: tooLarge }, stats: { ...full.stats, elapsedMs: elapsedMsSince(started) } };
  if (layered.proof.positions !== summary.positions || layered.proof.fingerprint !== summary.fingerprint) {
    throw new SolverError('engine_error', `the layered pass stored ${layered.proof.positions} positions (fingerprint ${layered.proof.fingerprint}), the full search ${summary.positions} (${summary.fingerprint})`);
  }
  return {
    ...full,
    proof: layered.proof,
    stats: { ...full.stats, statesExpanded: full.stats.statesExpanded + layered.stats.statesExpanded, elapsedMs: elapsedMsSince(started) },
  };
}

/**
 * The layered pass with its certificate streamed (`options.layeredCertificate`):
 * the sharded driver over `certified.shards` engines (default 1 when `cap`
 * fits one engine, else `shardsForMemory(cap)`; `engine` is shard 0), each
 * closing layer's keys written by a `LayeredCertificateWriter`. An
 * `unsolvable` comes with the proof summary (positions, the reductions, the
 * fingerprint of the written keys: the full search's, since the sum does not
 * depend on order) and `certificate` `{included: false, reason: 'streamed',
 * bytes, version: 2}`; other verdicts come back as the driver gives them.
 * @throws as `solveLayeredSharded`; SolverError `engine_error` when the
 *   certificate does not count every stored position.
 */
function solveLayeredCertified(engine: Engine, deal: Deal, limits: SolveLimits, cap: number, certified: NonNullable<SolveWithProofOptions['layeredCertificate']>, options: SolveWithProofOptions): SolveOutcome {
  const shards = certified.shards ?? (cap <= MAX_ENGINE_MEMORY_BYTES ? 1 : shardsForMemory(cap));
  const writer = new LayeredCertificateWriter(certified.sink, deal, { game: certified.game ?? options.proof?.game, deal: certified.deal ?? options.proof?.deal ?? null });
  const { detail: _detail, ...outcome } = solveLayeredSharded(engine.module, deal, limits, {
    memoryLimitBytes: cap,
    shards,
    stop: options.stop,
    progress: options.progress,
    engine,
    onLayerKeys: (layer, keys, positions) => writer.addLayer(layer, keys, positions),
  });
  if (outcome.verdict !== 'unsolvable') return outcome;
  const written = writer.finish();
  if (written.positions !== outcome.stats.statesStored) {
    throw new SolverError('engine_error', `the layered certificate holds ${written.positions} positions, the pass stored ${outcome.stats.statesStored}`);
  }
  const proof: ProofOutcome = {
    positions: written.positions,
    reductions: reductionsFor(deal.rules),
    fingerprint: written.fingerprint,
    fingerprintAlgorithm: FINGERPRINT_ALGORITHM,
    certificate: { included: false, reason: 'streamed', bytes: written.bytes, version: LAYERED_CERTIFICATE_VERSION, layers: written.layers },
  };
  return { ...outcome, proof };
}

/**
 * The layered pass after a full search that ended for memory (`before`: its
 * counters): the complete layered search (assembly/layers.ts) with the time
 * left of `limits`, its expansions added to the full search's. A decided
 * answer is `solved` with its checked solution, or `unsolvable` after every
 * layer was exhausted, with no proof summary unless
 * `options.layeredCertificate` streamed one (the keys of closed layers are
 * gone, docs/engine.md "The layered pass"). An undecided one is `unknown`
 * with the layered pass's own reason (the budget that stopped it: mostly
 * `timeout`, not the full search's `memory`) and, as positions stored, the
 * larger of the two searches' counts. Undefined when too little time was
 * left to start it (the pooled pass then has what time is left).
 */
function layeredPass(engine: Engine, deal: Deal, limits: SolveLimits, before: SolveOutcome['stats'], started: number, options: SolveWithProofOptions): SolveOutcome | undefined {
  const timeoutMs = limits.timeoutMs - (performance.now() - started);
  if (timeoutMs < POOLED_PASS_MIN_MS) return undefined;
  options.onSearch?.('layered_after_memory');
  const layered = solveLayered(engine, deal, { maxStates: limits.maxStates, timeoutMs, layered: true }, options);
  return {
    ...layered,
    stats: {
      ...layered.stats,
      statesExpanded: before.statesExpanded + layered.stats.statesExpanded,
      ...(layered.verdict === 'unknown' ? { statesStored: Math.max(before.statesStored, layered.stats.statesStored) } : {}),
      elapsedMs: elapsedMsSince(started),
      memoryBytes: Math.max(before.memoryBytes, layered.stats.memoryBytes),
    },
  };
}

/**
 * Share of the pass's time that each pooling gets in the probe round (see `pooledPass`).
 * On Streets and Alleys 794, seven of the nine poolings end (a pooled win) within
 * 0.1 s; the two that stay open share the rest.
 */
export const POOLED_PROBE_SHARE = 0.02;

/**
 * The pooled pass (docs/search.md §9, docs/proofs.md "Pooled certificates"):
 * after a full search that ended `unknown` (not cancelled; `before` are its
 * counters), or alone (`solvePooledPass`), searches the pooled game of each
 * pooling of `options.poolings` with the rest of the budget, in two rounds:
 * 1. the probe: each pooling with POOLED_PROBE_SHARE of the time left at the
 *    start (at least POOLED_PASS_MIN_MS): most end at once, a pooled win
 *    (which proves nothing) or an exhausted search (which decides);
 * 2. the poolings the probe stopped on its deadline, afresh, each with an
 *    equal share of the time then left (a pooling that ends early leaves
 *    its share to the next).
 * The same state budget and memory cap throughout; the pass stops when less
 * than POOLED_PASS_MIN_MS is left or a pooling is cancelled. The first
 * pooling whose search is exhausted answers `unsolvable`, with the pooled
 * proof summary (`proof.pools`) and, when asked for, the pooled certificate.
 * @returns that answer, or undefined when no pooling decided (the caller answers the full search's).
 */
function pooledPass(engine: Engine, deal: Deal, limits: SolveLimits, before: SolveOutcome['stats'], started: number, options: SolveWithProofOptions): SolveOutcome | undefined {
  const poolings = options.poolings ?? POOLINGS_TO_TRY;
  let expanded = before.statesExpanded;
  let memory = before.memoryBytes;
  const timeLeft = () => limits.timeoutMs - (performance.now() - started);
  /** One pooled search: 'stop' (cancelled), 'open' (its deadline ended it), 'done' (won or out of budget), or the answer. */
  let begun = false;
  const search = (pools: SuitPools, timeoutMs: number): SolveOutcome | 'stop' | 'open' | 'done' => {
    if (!begun) options.onSearch?.('pooled_pass');
    begun = true;
    options.onPooling?.(pools);
    const pooled = engine.solvePooled(deal, pools, { limits: { maxStates: limits.maxStates, timeoutMs }, stop: options.stop, memoryLimitBytes: options.memoryLimitBytes, progress: options.progress });
    expanded += pooled.stats.statesExpanded;
    memory = Math.max(memory, pooled.stats.memoryBytes);
    if (pooled.verdict === 'unknown') return pooled.reason === 'cancelled' ? 'stop' : pooled.reason === 'timeout' ? 'open' : 'done';
    if (pooled.verdict !== 'unsolvable') return 'done';
    options.onPooledProof?.(pools);
    const stats = {
      statesExpanded: expanded,
      statesStored: pooled.stats.statesStored,
      elapsedMs: elapsedMsSince(started),
      memoryBytes: memory,
    };
    const outcome = withProofSummary(engine, deal.rules, { verdict: 'unsolvable', moves: [], stats }, pools);
    if (outcome.proof === undefined || !options.proof?.certificate) return outcome;
    const certificate = certificateFromEngine(engine, deal, outcome.proof.positions, outcome.proof.fingerprint, options.proof, pools);
    return { ...outcome, proof: { ...outcome.proof, certificate } };
  };
  const probeMs = Math.max(POOLED_PASS_MIN_MS, Math.floor(timeLeft() * POOLED_PROBE_SHARE));
  const open: SuitPools[] = [];
  for (const pools of poolings) {
    const left = timeLeft();
    if (left < POOLED_PASS_MIN_MS) return undefined;
    const result = search(pools, Math.min(probeMs, Math.floor(left)));
    if (result === 'stop') return undefined;
    if (result === 'open') open.push(pools);
    else if (result !== 'done') return result;
  }
  for (let i = 0; i < open.length; i++) {
    const left = timeLeft();
    if (left < POOLED_PASS_MIN_MS) return undefined;
    const result = search(open[i], Math.max(POOLED_PASS_MIN_MS, Math.floor(left / (open.length - i))));
    if (result === 'stop') return undefined;
    if (result !== 'open' && result !== 'done') return result;
  }
  return undefined;
}

/**
 * The guided pass (client-sdk/core/guided.ts `guidedPass`) for at most
 * `timeoutMs` within `limits.maxStates`, with `options`' stop flag, memory
 * cap, beams and progress; announced through `onSearch` and `onGuidedPass`,
 * and a find through `onGuidedSolution`.
 * @returns the `solved` outcome with the checked solution, or undefined when no beam found one.
 */
function runGuidedPass(engine: Engine, deal: Deal, timeoutMs: number, limits: SolveLimits, options: SolveWithProofOptions): SolveOutcome | undefined {
  options.onSearch?.('guided_pass');
  options.onGuidedPass?.();
  const guided = guidedPass(engine, deal, {
    timeoutMs, maxExpanded: limits.maxStates, stop: options.stop, memoryLimitBytes: options.memoryLimitBytes, beams: options.guidedBeams, progress: options.progress,
  });
  if (guided !== undefined) options.onGuidedSolution?.();
  return guided;
}

/**
 * Share of the helper pass's time the guided pass may take before the
 * poolings (`limits.guided`; at most GUIDED_PASS_MAX_MS): under the 60 s
 * default 30 s, enough for the first three beams of `GUIDED_BEAMS`.
 */
export const GUIDED_HELPER_SHARE = 0.5;

/**
 * The pooled pass alone, with no full search before it (with
 * `limits.guided`, the guided pass first, in at most GUIDED_HELPER_SHARE of
 * the time: a checked solution ends the pass with `solved`): the poolings of
 * `options.poolings` (default `POOLINGS_TO_TRY`) in turn within `limits`, as
 * the pass after an undecided full search runs them (see `solveWithProof`).
 * server/pool.ts runs it on a second worker while the full search goes on.
 * @returns `solved` with the guided pass's checked solution; `unsolvable`
 *   with the pooled proof (and certificate when asked) when a pooling's
 *   search was exhausted; otherwise `unknown` with reason
 *   `cancelled` when the stop flag ended it, else `timeout` (no pooling
 *   decided: a pooled win proves nothing).
 * @throws RangeError when the rules look at suit (`poolingApplies` is false);
 *   as `Engine.solvePooled`.
 */
export function solvePooledPass(engine: Engine, deal: Deal, limits: SolveLimits, options: SolveWithProofOptions = {}): SolveOutcome {
  if (!poolingApplies(deal.rules)) throw new RangeError('the pooled pass needs rules whose tableau ignores suit (rank build, no wrap) and at most 11 columns');
  const started = performance.now();
  const none = { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 };
  // with limits.guided, the helper pass begins with the guided pass (a solution, never a proof), then the poolings in the time left
  if (limits.guided === true && guidedApplies(deal.rules)) {
    const guided = runGuidedPass(engine, deal, Math.floor(limits.timeoutMs * GUIDED_HELPER_SHARE), limits, options);
    if (guided !== undefined) return guided;
  }
  const decided = pooledPass(engine, deal, limits, none, started, options);
  if (decided !== undefined) return decided;
  const stopped = options.stop !== undefined && Atomics.load(options.stop, 0) !== 0;
  const stats = { ...none, elapsedMs: elapsedMsSince(started) };
  return { verdict: 'unknown', reason: stopped ? 'cancelled' : 'timeout', moves: [], stats };
}
