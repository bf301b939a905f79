/**
 * Unsolvability certificates, format v1: the names and the header shared by
 * the writer (`writer.ts`) and the independent checker (`check.ts`).
 * docs/proofs.md is the specification; this file is its executable half.
 *
 * A certificate is the gzip (RFC 1952) of:
 *
 *   1. one header line: a JSON object ({@link CertificateHeader}) in UTF-8,
 *      with no line break inside, ended by one `\n` (0x0A);
 *   2. `positions` canonical keys of `keyBytes` bytes each (48; 56 for a
 *      game of more than 11 columns, {@link keyBytesFor}), sorted
 *      ascending bytewise, no duplicates, nothing after them.
 *
 * A pooled certificate (docs/proofs.md "Pooled certificates") adds `pools`
 * to the header and uses the key encoding `pooled-6bit-le-v1`.
 *
 * The key encoding (`canonical-6bit-le-v1`) is the engine's canonical key,
 * written down in docs/proofs.md so that anyone can decode it without the
 * engine: 6-bit symbols packed little-endian; per column (canonical order)
 * its cards deepest first as relRank*4+suit, then 0; then the free-cell
 * cards in descending code order, then 0; the rest zero bits.
 *
 * No Node module is imported here: the SDK's browser side may use the names
 * and the summary types (the writer and the checker need node:zlib;
 * summary.ts attaches the summary to an outcome).
 */
import { z } from 'zod';
import { BUILD_RULES, EMPTY_CELL_RULES, EMPTY_COLUMN_RULES, MAX_COLUMNS, MAX_FREE_CELLS, NUMBERINGS, SEQUENCE_MOVE_RULES, type Rules } from '../rules.js';

/** `format` field of every certificate header. */
export const CERTIFICATE_FORMAT = 'solitaire-unsolvability-certificate';
/** The format version this SDK writes and checks. */
export const CERTIFICATE_VERSION = 1;
/** Name of the key encoding of version 1 (docs/proofs.md, "Key encoding"). */
export const KEY_ENCODING = 'canonical-6bit-le-v1';
/**
 * Name of the key encoding of a pooled certificate (docs/proofs.md, "Pooled
 * certificates"): as `canonical-6bit-le-v1`, but a card's symbol is
 * relRank * 4 + the lowest suit of its pool, and columns sort by their whole
 * symbol sequence.
 */
export const POOLED_KEY_ENCODING = 'pooled-6bit-le-v1';
/** Bytes of one canonical key of a game of up to 11 columns: 64 symbols of 6 bits. */
export const KEY_BYTES = 48;
/** Bytes of one canonical key of a wider game, 12..21 columns (Baker's Dozen, Fan): 74 symbols of 6 bits. */
export const WIDE_KEY_BYTES = 56;

/**
 * The key width of a certificate of `rules` (docs/proofs.md, "Key
 * encoding"): a key holds at most 52 cards, one terminator a column and one
 * after the cells, 53 + columns symbols of 6 bits, so {@link KEY_BYTES} (64
 * symbols) up to 11 columns and {@link WIDE_KEY_BYTES} (74) up to 21.
 */
export function keyBytesFor(rules: { columns: number }): typeof KEY_BYTES | typeof WIDE_KEY_BYTES {
  return 53 + rules.columns <= (KEY_BYTES * 8) / 6 ? KEY_BYTES : WIDE_KEY_BYTES;
}
/** Name of the fingerprint function (docs/proofs.md, "Fingerprint"). */
export const FINGERPRINT_ALGORITHM = 'sum-mod-2^64-of-fnv1a64';
/** MIME type of a certificate file. */
export const CERTIFICATE_MEDIA_TYPE = 'application/gzip';

/**
 * The safe auto-move rule the search applies after every move, per rules
 * (assembly/position.ts `isSafeAutoMove` argues each; docs/proofs.md repeats
 * the arguments):
 * - `suit_always`: `suit` or `suit_up_or_down` build, no wrap (but not
 *   `suit_up_or_down` with `unlimited` sequence moves): every card that fits
 *   its foundation goes there;
 * - `alternate_color_horne`: relRank <= 2, or both opposite-colour
 *   foundations hold at least relRank - 1;
 * - `rank_other_within_2`: every other foundation holds at least relRank - 2;
 * - `suit_wrap_not_base`: `suit`/`suit_up_or_down` with wrap: every card but
 *   relRank 1 (the foundation base);
 * - `none`: no auto-moves (other builds with wrap, and `suit_up_or_down`
 *   with `unlimited` sequence moves, where a whole run can be parked on the card);
 * - `rank_other_within_2_unpooled`: the pooled game only (client-sdk/core/pools.ts):
 *   a card of a suit pooled with no other, when every other pile holds at
 *   least relRank - 2; never a card of a pool of two suits or more.
 */
export type AutoMoveRule = 'suit_always' | 'alternate_color_horne' | 'rank_other_within_2' | 'suit_wrap_not_base' | 'none' | 'rank_other_within_2_unpooled';

/** Every auto-move rule name, for the header schema. */
export const AUTO_MOVE_RULES = ['suit_always', 'alternate_color_horne', 'rank_other_within_2', 'suit_wrap_not_base', 'none', 'rank_other_within_2_unpooled'] as const;

/**
 * The auto-move rule that is sound for `rules` (and that the engine uses).
 * A certificate must declare exactly this rule: the checker refuses any
 * other, since an unsound rule could close a set that still holds a solvable
 * position.
 */
export function autoMoveRuleFor(rules: Rules): AutoMoveRule {
  // unlimited sequence moves can park a whole run on a card up or down in suit (assembly/position.ts)
  if (rules.build === 'suit_up_or_down' && rules.sequenceMove === 'unlimited') return 'none';
  const suitLike = rules.build === 'suit' || rules.build === 'suit_up_or_down';
  if (rules.wrap) return suitLike ? 'suit_wrap_not_base' : 'none';
  if (suitLike) return 'suit_always';
  if (rules.build === 'alternate_color') return 'alternate_color_horne';
  return 'rank_other_within_2';
}

const AUTO_MOVE_MEANING: Record<AutoMoveRule, string> = {
  suit_always: 'after every move, every card that fits its foundation goes there (in-suit building: nothing else can ever need it)',
  alternate_color_horne:
    'after every move, a card goes to its foundation when its rank is at most 2 or both opposite-colour foundations reach rank - 1 (Horne): nothing can ever need it',
  rank_other_within_2:
    'after every move, a card goes to its foundation when every other foundation reaches rank - 2: each card that could build on it can go home itself',
  suit_wrap_not_base: 'after every move, every card but the foundation base that fits its foundation goes there (wrapping in-suit building)',
  none: 'none: with wrapping ranks in this build no foundation move is provably safe',
  rank_other_within_2_unpooled:
    'pooled game: after every move, a card of a suit pooled with no other goes to its foundation when every other pile reaches rank - 2; a card of a pool of two suits or more never goes by itself',
};

/** Names of the reductions, as they appear in summaries and certificate headers. */
export type ReductionName = 'safe_auto_moves' | 'column_order' | 'free_cell_order' | 'suit_pools';

/** One reduction of the search: what it is and, for auto-moves, which rule. */
export interface Reduction {
  name: ReductionName;
  /** One line: what the reduction does and why it loses no solution. */
  meaning: string;
  /** For `safe_auto_moves`: the rule applied. */
  rule?: AutoMoveRule;
}

/**
 * The reductions the search uses for `rules`, in a fixed order: safe
 * auto-moves (with the rule), and the column and free-cell order of the
 * canonical key. Nothing else is reduced: every position is stored under its
 * full key (never a hash alone) and nothing is pruned but duplicates.
 */
export function reductionsFor(rules: Rules): Reduction[] {
  const rule = autoMoveRuleFor(rules);
  return [
    { name: 'safe_auto_moves', rule, meaning: AUTO_MOVE_MEANING[rule] },
    { name: 'column_order', meaning: 'positions that differ only in the order of their columns are one position (columns sorted by their deepest card)' },
    { name: 'free_cell_order', meaning: 'positions that differ only in which free cell holds which card are one position (cells sorted)' },
  ];
}

/**
 * The reductions of a search of the *pooled* game (client-sdk/core/pools.ts):
 * `suit_pools` (the suits merged into the header's `pools`), auto-moves of
 * unpooled cards only (`safe_auto_moves` with rule
 * `rank_other_within_2_unpooled`), and the column and free-cell order of
 * the pooled key. A pooled set with no won position proves the real deal
 * unsolvable, since every real move is a pooled move (docs/proofs.md).
 */
export function pooledReductions(pools: readonly string[]): Reduction[] {
  return [
    { name: 'suit_pools', meaning: `the suits are merged into the pools ${pools.join(' ')}: a card is known by rank and pool only, and a pool's foundation piles are interchangeable; every real move is a pooled move, so no pooled solution means no solution` },
    { name: 'safe_auto_moves', rule: 'rank_other_within_2_unpooled', meaning: AUTO_MOVE_MEANING.rank_other_within_2_unpooled },
    { name: 'column_order', meaning: 'positions that differ only in the order of their columns are one position (columns sorted by their cards)' },
    { name: 'free_cell_order', meaning: 'positions that differ only in which free cell holds which card are one position (cells sorted)' },
  ];
}

const RulesShape = z.strictObject({
  columns: z.number().int().min(1).max(MAX_COLUMNS),
  freeCells: z.number().int().min(0).max(MAX_FREE_CELLS),
  emptyCell: z.enum(EMPTY_CELL_RULES).optional(),
  build: z.enum(BUILD_RULES),
  emptyColumn: z.enum(EMPTY_COLUMN_RULES),
  sequenceMove: z.enum(SEQUENCE_MOVE_RULES),
  foundationBase: z.number().int().min(1).max(13),
  wrap: z.boolean(),
});

/** The header line of a certificate, version 1 (docs/proofs.md, "Header"). */
export const CertificateHeaderSchema = z.strictObject({
  format: z.literal(CERTIFICATE_FORMAT),
  version: z.literal(CERTIFICATE_VERSION),
  /** Preset id the deal was posed in (informational; the rules below are what counts). */
  game: z.string().max(64),
  /** Where the start position came from, e.g. `{"number": "11982", "numbering": "ms"}` (informational). */
  deal: z.strictObject({ number: z.string().regex(/^\d{1,40}$/), numbering: z.enum(NUMBERINGS) }).nullable(),
  rules: RulesShape,
  /** The start position, fc-solve board text, as given (before auto-moves). */
  start: z.string().max(16_384),
  positions: z.number().int().min(1),
  /** {@link keyBytesFor} the rules: 48, or 56 for more than 11 columns (checked against the rules by the checker). */
  keyBytes: z.union([z.literal(KEY_BYTES), z.literal(WIDE_KEY_BYTES)]),
  keyEncoding: z.enum([KEY_ENCODING, POOLED_KEY_ENCODING]),
  /**
   * Pooled certificates only (keyEncoding `pooled-6bit-le-v1`): the pools,
   * as groups of suit letters, e.g. `["C", "DH", "S"]` (client-sdk/core/pools.ts).
   */
  pools: z.array(z.string().regex(/^[CDHS]{1,4}$/)).min(1).max(4).optional(),
  reductions: z.array(
    z.strictObject({
      name: z.string().max(64),
      rule: z.enum(AUTO_MOVE_RULES).optional(),
    }),
  ),
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/),
  fingerprintAlgorithm: z.literal(FINGERPRINT_ALGORITHM),
});

/** A parsed certificate header. */
export type CertificateHeader = z.infer<typeof CertificateHeaderSchema>;

/**
 * The proof summary every `unsolvable` verdict carries, and the certificate
 * when one was asked for.
 */
export interface ProofSummary {
  /** Distinct canonical positions reachable from the start (all of them examined); of the pooled game when `pools` is set. */
  positions: number;
  /**
   * Set when the proof is of the pooled game (docs/proofs.md, "Pooled
   * certificates"): the pools, e.g. `["C", "DH", "S"]`.
   */
  pools?: string[];
  /** The reductions the search used (see {@link reductionsFor}). */
  reductions: Reduction[];
  /** Fingerprint of the explored set, 16 hex digits (docs/proofs.md, "Fingerprint"). */
  fingerprint: string;
  /** Always {@link FINGERPRINT_ALGORITHM}. */
  fingerprintAlgorithm: string;
}

/** What a solve may be asked to produce beyond the verdict. */
export interface ProofRequest {
  /** Build the certificate of an `unsolvable` verdict. */
  certificate: boolean;
  /** Most positions a certificate may hold (beyond: not built, `overCap`). */
  maxPositions: number;
  /** Largest certificate, bytes, the caller accepts (beyond: not returned, `overCap` with its size). */
  maxBytes: number;
  /** Informational header fields. */
  game?: string;
  deal?: { number: string; numbering: 'ms' | 'pysolfc' } | null;
}

/** The certificate part of a proof, as produced in the solver (worker) thread. */
export type CertificateResult =
  | { included: true; bytes: number; certificate: Uint8Array }
  | { included: false; reason: 'over_position_cap'; positions: number; maxPositions: number; estimatedRawBytes: number }
  | { included: false; reason: 'over_size_cap'; bytes: number; maxBytes: number }
  /** A layered certificate (format v2), already written layer by layer to the caller's sink (`SolveWithProofOptions.layeredCertificate`). */
  | { included: false; reason: 'streamed'; bytes: number; version: 2; layers: number };

/** Proof data attached to an `unsolvable` outcome. */
export interface ProofOutcome extends ProofSummary {
  certificate?: CertificateResult;
}

/** Where the binary certificate of a request can be fetched (the same body). */
export const CERTIFICATE_DOWNLOAD = 'POST /v1/proofs';

/** The certificate part of a response's `proof` (see `ProofSchema` in api/schemas.ts). */
export type CertificateWire =
  | {
      included: true;
      format: typeof CERTIFICATE_FORMAT;
      version: typeof CERTIFICATE_VERSION;
      mediaType: typeof CERTIFICATE_MEDIA_TYPE;
      encoding: 'base64';
      bytes: number;
      data: string;
    }
  | { included: false; reason: 'over_size_cap'; bytes: number; maxBytes: number; download: string }
  | { included: false; reason: 'over_position_cap'; positions: number; maxPositions: number; estimatedRawBytes: number };

/** A response's `proof`. */
export interface ProofWire extends ProofSummary {
  certificate?: CertificateWire;
}

/** Base64 of bytes (Node's Buffer when there is one, else btoa in chunks). */
export function toBase64(bytes: Uint8Array): string {
  const B = (globalThis as { Buffer?: { from(b: ArrayBufferLike, o: number, l: number): { toString(e: string): string } } }).Buffer;
  if (B) return B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The wire form of an outcome's proof: the summary, and the certificate inline (base64) or why not. */
export function proofToWire(proof: ProofOutcome): ProofWire {
  const { certificate, ...summary } = proof;
  if (certificate === undefined) return summary;
  if (certificate.included) {
    return {
      ...summary,
      certificate: {
        included: true,
        format: CERTIFICATE_FORMAT,
        version: CERTIFICATE_VERSION,
        mediaType: CERTIFICATE_MEDIA_TYPE,
        encoding: 'base64',
        bytes: certificate.bytes,
        data: toBase64(certificate.certificate),
      },
    };
  }
  // a streamed (layered) certificate went to the caller's file: the wire names none
  if (certificate.reason === 'streamed') return summary;
  if (certificate.reason === 'over_size_cap') {
    return { ...summary, certificate: { ...certificate, download: CERTIFICATE_DOWNLOAD } };
  }
  return { ...summary, certificate };
}
