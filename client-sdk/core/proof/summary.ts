/**
 * The proof summary of an `unsolvable` verdict (positions, reductions,
 * fingerprint: `ProofSummary` of format.ts), attached to the engine's
 * outcome. Browser-safe, like format.ts: the SDK's in-process solver
 * (sdk/local.ts) uses it, and `writer.ts` `solveWithProof` adds the
 * certificate after it.
 */
import type { Rules } from '../rules.js';
import type { SolveOutcome } from '../solve-types.js';
import { FINGERPRINT_ALGORITHM, pooledReductions, reductionsFor, type ProofOutcome } from './format.js';

/** What {@link withProofSummary} needs of an engine (`Engine` of engine.ts). */
export interface FingerprintSource {
  fingerprint(): string;
}

/**
 * The outcome with its proof summary when the verdict is `unsolvable`
 * (positions = positions stored, every one expanded; the reductions for
 * `rules`, or with `pools` the pooled game's; the engine's fingerprint of its
 * last solve), else the outcome as it is. Call it right after the solve, before the engine solves again.
 * Browser-safe; `writer.ts` `solveWithProof` adds the certificate.
 */
export function withProofSummary(engine: FingerprintSource, rules: Rules, outcome: SolveOutcome, pools?: readonly string[]): SolveOutcome {
  if (outcome.verdict !== 'unsolvable') return outcome;
  const proof: ProofOutcome = {
    positions: outcome.stats.statesStored,
    ...(pools !== undefined ? { pools: [...pools] } : {}),
    reductions: pools !== undefined ? pooledReductions(pools) : reductionsFor(rules),
    fingerprint: engine.fingerprint(),
    fingerprintAlgorithm: FINGERPRINT_ALGORITHM,
  };
  return { ...outcome, proof };
}
