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
import type { Engine, ProgressOptions } from '../engine.js';
import { withProofSummary, type CertificateResult, type ProofRequest } from './format.js';
import type { Deal } from '../rules.js';
import type { SolveLimits, SolveOutcome } from '../solve-types.js';

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

/** Options of {@link solveWithProof}. */
export interface SolveWithProofOptions {
  /** Stop flag (see `Engine.solve`). */
  stop?: Int32Array;
  /** Cap on the engine's memory (see `Engine.solve`). */
  memoryLimitBytes?: number;
  /** Build the certificate of an `unsolvable` verdict within these caps. */
  proof?: ProofRequest;
  /** Progress reports during the search (see `Engine.solve`). */
  progress?: ProgressOptions;
}

/**
 * `Engine.solve`, and for an `unsolvable` verdict the proof summary
 * (`outcome.proof`: positions, reductions, fingerprint) and, when
 * `options.proof.certificate` is set, the certificate (`outcome.proof.certificate`).
 * The other verdicts come back as `Engine.solve` gives them.
 * @throws as `Engine.solve`; SolverError `engine_error` when the exported set
 *   is inconsistent (see {@link sortKeys}).
 */
export function solveWithProof(engine: Engine, deal: Deal, limits: SolveLimits, options: SolveWithProofOptions = {}): SolveOutcome {
  const outcome = withProofSummary(engine, deal.rules, engine.solve(deal, limits, options.stop, options.memoryLimitBytes, options.progress));
  if (outcome.proof === undefined || !options.proof?.certificate) return outcome;
  const certificate = certificateFromEngine(engine, deal, outcome.proof.positions, outcome.proof.fingerprint, options.proof);
  return { ...outcome, proof: { ...outcome.proof, certificate } };
}

