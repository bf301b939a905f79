/**
 * What the proof checker (check.ts) answers: a pass, or a failure with a
 * stable code and the first counterexample, and the `Rejection` that its
 * steps throw to end the check at the first fault.
 */
import type { Move } from '../moves.js';
import type { CertificateHeader } from './format.js';

/** Why a certificate was rejected (stable codes; `reason` says it in words). */
export type ProofFailureCode =
  | 'not_gzip'
  | 'bad_header'
  | 'unsupported_reduction'
  | 'bad_length'
  | 'not_sorted'
  | 'duplicate_position'
  | 'fingerprint_mismatch'
  | 'bad_position'
  | 'won_position'
  | 'bad_start'
  | 'deal_mismatch'
  | 'start_missing'
  | 'not_closed'
  // layered certificates (check-layered.ts) only
  | 'bad_layer'
  | 'layer_order'
  | 'bad_trailer'
  /** The layered file ends (or its trailer comes) before its end block and trailer line: the reason says where. */
  | 'truncated';

/** A certificate that proves its deal unsolvable. */
export interface ProofCheckPass {
  ok: true;
  header: CertificateHeader;
  /** Positions in the set (all checked). */
  positions: number;
  /**
   * Calls of `checkMove`: every source × target × count, less the candidates
   * it is sure to refuse and the repeated single-card questions (see
   * `checkMoves`; all of them with `exhaustive`).
   */
  movesTried: number;
  /** Legal moves among them, each played and its result found in the set. */
  movesChecked: number;
  /** Wall-clock milliseconds of the check (decompression included). */
  elapsedMs: number;
  /** Threads that checked the moves. */
  threads: number;
  /**
   * The header's rules that differ from its game's preset, as
   * `"freeCells 0 instead of 4"`; empty when they are the preset's or the
   * game is not a preset. What was proven is the start position under the
   * header's rules: with changes, not the game as usually played.
   */
  rulesChanged: string[];
}

/** A rejected certificate, with the first counterexample where there is one. */
export interface ProofCheckFail {
  ok: false;
  code: ProofFailureCode;
  /** What is wrong, in words (names the position and the move when there are). */
  reason: string;
  /** The header, when it could be read. */
  header?: CertificateHeader;
  /** 0-based index (in file order) of the position at fault. */
  positionIndex?: number;
  /** That position as fc-solve board text. */
  position?: string;
  /** The legal move whose result is missing (`not_closed`). */
  move?: Move;
  /**
   * The position reached (after the auto-move closure), fc-solve board text;
   * for `deal_mismatch`, the deal the header names, as dealt.
   */
  result?: string;
  /** Its canonical key, hex (`not_closed`, `start_missing`). */
  resultKey?: string;
  elapsedMs: number;
}

/** The checker's answer. */
export type ProofCheckResult = ProofCheckPass | ProofCheckFail;

/** Counts of step 6 (the moves checked), as {@link ProofCheckPass} reports them. */
export interface MoveCounts {
  /** Calls of `checkMove` (see {@link ProofCheckPass.movesTried}). */
  movesTried: number;
  /** Legal moves among them, each played and its result found in the set. */
  movesChecked: number;
}

/** Options of {@link checkCertificate}. */
export interface ProofCheckOptions {
  /** Called every `progressEvery` positions of step 6 with (done, total). */
  onProgress?: (done: number, total: number) => void;
  /** Default 10,000. */
  progressEvery?: number;
  /** Give every candidate move to `checkMove`, skipping none (slower; same answer). */
  exhaustive?: boolean;
}

/**
 * A certificate fault found by a step of the check: its code, its reason in
 * words (the `message`), and the counterexample fields of the failure.
 * Thrown inside the checker only; `checkCertificate` turns it into a `ProofCheckFail`.
 */
export class Rejection extends Error {
  constructor(
    readonly code: ProofFailureCode,
    message: string,
    readonly extra: Partial<ProofCheckFail> = {},
  ) {
    super(message);
  }
}
