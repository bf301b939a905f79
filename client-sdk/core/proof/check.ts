/**
 * The independent proof checker: reads an unsolvability certificate
 * (docs/proofs.md) and decides whether it proves its deal unsolvable.
 *
 * Independence: nothing here comes from the engine (`assembly/`) or its glue
 * (`engine.ts`). The key decoder and encoder, the auto-move closure and the
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
 * start included, can be won.
 */
import { gunzipSync } from 'node:zlib';
import { formatBoard, parseBoard } from '../board.js';
import { cardToString, makeCard, rankOf, suitOf, type Card } from '../cards.js';
import { SolverError } from '../errors.js';
import type { Move } from '../moves.js';
import {
  CertificateHeaderSchema,
  FINGERPRINT_ALGORITHM,
  KEY_BYTES,
  type AutoMoveRule,
  type CertificateHeader,
} from './format.js';
import { generateDeal } from '../deals/index.js';
import { findPreset, type Layout, type Rules } from '../rules.js';
import { applyMove, checkMove, isWon } from '../verify.js';

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
  | 'not_closed';

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

/** Options of {@link checkCertificate}. */
export interface ProofCheckOptions {
  /** Called every `progressEvery` positions of step 6 with (done, total). */
  onProgress?: (done: number, total: number) => void;
  /** Default 10,000. */
  progressEvery?: number;
  /** Give every candidate move to `checkMove`, skipping none (slower; same answer). */
  exhaustive?: boolean;
}

class Rejection extends Error {
  constructor(
    readonly code: ProofFailureCode,
    message: string,
    readonly extra: Partial<ProofCheckFail> = {},
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------
// Which auto-move rule the checker vouches for (docs/proofs.md, "Why each
// reduction is sound")
// ---------------------------------------------------------------------------

/**
 * The auto-move rule this checker accepts for `rules`. The arguments are in
 * docs/proofs.md ("Why each reduction is sound"); each shows that sending
 * the card home keeps a solvable position solvable. One exception:
 * `suit_up_or_down` with `unlimited` sequence moves, where a run can be
 * parked on the card in one move with no free cell or column to spare, and
 * once the card is home the run may have nowhere to go. There only `none`
 * (no auto-moves) is accepted; the engine's `suit_always` is unsound there
 * (docs/proofs.md has a position it calls unsolvable that has a 12-move
 * solution).
 */
export function vouchedAutoMoveRule(rules: Rules): AutoMoveRule {
  if (rules.build === 'suit_up_or_down' && rules.sequenceMove === 'unlimited') return 'none';
  const suitLike = rules.build === 'suit' || rules.build === 'suit_up_or_down';
  if (rules.wrap) return suitLike ? 'suit_wrap_not_base' : 'none';
  if (suitLike) return 'suit_always';
  return rules.build === 'alternate_color' ? 'alternate_color_horne' : 'rank_other_within_2';
}

/** The reductions a header must declare: exactly these names, the rule on `safe_auto_moves`. */
function checkReductions(header: CertificateHeader): AutoMoveRule {
  const vouched = vouchedAutoMoveRule(header.rules);
  const names = header.reductions.map((r) => r.name).sort();
  const want = ['column_order', 'free_cell_order', 'safe_auto_moves'];
  if (names.join(',') !== want.join(',')) {
    throw new Rejection(
      'unsupported_reduction',
      `the header declares the reductions [${names.join(', ')}]; this checker vouches for exactly [${want.join(', ')}]`,
    );
  }
  const auto = header.reductions.find((r) => r.name === 'safe_auto_moves')!;
  if (auto.rule !== vouched) {
    throw new Rejection(
      'unsupported_reduction',
      `the header declares the auto-move rule ${JSON.stringify(auto.rule ?? null)}; under these rules this checker vouches only for ${vouched}`,
    );
  }
  for (const r of header.reductions) {
    if (r.name !== 'safe_auto_moves' && r.rule !== undefined) {
      throw new Rejection('unsupported_reduction', `reduction ${r.name} takes no rule`);
    }
  }
  return vouched;
}

// ---------------------------------------------------------------------------
// Relative ranks (docs/proofs.md, "Key encoding")
// ---------------------------------------------------------------------------

/** Relative rank 1..13 of a card: the foundation base is 1. */
function relRank(card: Card, base: number): number {
  return ((rankOf(card) - base + 13) % 13) + 1;
}

/** Key symbol of a card: relRank * 4 + suit. */
function symbolOf(card: Card, base: number): number {
  return relRank(card, base) * 4 + suitOf(card);
}

/** The card a key symbol (4..55) stands for. */
function cardOfSymbol(symbol: number, base: number): Card {
  const rel = symbol >> 2;
  return makeCard(((rel - 1 + base - 1) % 13) + 1, symbol & 3);
}

// ---------------------------------------------------------------------------
// Safe auto-moves, the checker's own implementation of the declared rule
// ---------------------------------------------------------------------------

function isRedSuit(suit: number): boolean {
  return suit === 1 || suit === 2;
}

/** True when `card`, which fits its foundation, may go there under `rule` (foundations: relative counts). */
function isSafe(rule: AutoMoveRule, rel: number, suit: number, foundations: readonly number[]): boolean {
  switch (rule) {
    case 'suit_always':
      return true;
    case 'suit_wrap_not_base':
      return rel !== 1;
    case 'none':
      return false;
    case 'alternate_color_horne':
      if (rel <= 2) return true;
      for (let t = 0; t < 4; t++) if (isRedSuit(t) !== isRedSuit(suit) && foundations[t] < rel - 1) return false;
      return true;
    case 'rank_other_within_2':
      for (let t = 0; t < 4; t++) if (t !== suit && foundations[t] < rel - 2) return false;
      return true;
  }
}

/**
 * Plays every safe auto-move on `layout` (mutated) until none is left. The
 * result does not depend on the order: foundations only grow, so a card
 * that may go home stays allowed to, and stays exposed until it moves.
 */
function closeUnderAutoMoves(layout: Layout, rule: AutoMoveRule, base: number): void {
  if (rule === 'none') return;
  const f = layout.foundations;
  let moved = true;
  while (moved) {
    moved = false;
    for (let i = 0; i < layout.freeCells.length; i++) {
      const card = layout.freeCells[i];
      if (card === null) continue;
      const rel = relRank(card, base);
      const suit = suitOf(card);
      if (f[suit] + 1 === rel && isSafe(rule, rel, suit, f)) {
        layout.freeCells[i] = null;
        f[suit] = rel;
        moved = true;
      }
    }
    for (const col of layout.columns) {
      while (col.length > 0) {
        const card = col[col.length - 1];
        const rel = relRank(card, base);
        const suit = suitOf(card);
        if (f[suit] + 1 !== rel || !isSafe(rule, rel, suit, f)) break;
        col.pop();
        f[suit] = rel;
        moved = true;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Keys: the checker's own encoder and decoder
// ---------------------------------------------------------------------------

const ORDER = new Int32Array(16);
const SORT_KEY = new Int32Array(16);
const CELLS = new Int32Array(16);

/**
 * Writes the canonical key of `layout` into `out` (KEY_BYTES bytes): columns
 * ascending by the symbol of their deepest card, empty columns last, each
 * deepest card first and ended by 0; then the cell cards in descending
 * symbol order, ended by 0; symbol k at bits 6k..6k+5, little-endian.
 */
function encodeKey(layout: Layout, base: number, out: Uint8Array): void {
  out.fill(0);
  const columns = layout.columns;
  const m = columns.length;
  for (let i = 0; i < m; i++) {
    const key = columns[i].length === 0 ? 256 + i : symbolOf(columns[i][0], base);
    let j = i;
    while (j > 0 && SORT_KEY[j - 1] > key) {
      SORT_KEY[j] = SORT_KEY[j - 1];
      ORDER[j] = ORDER[j - 1];
      j--;
    }
    SORT_KEY[j] = key;
    ORDER[j] = i;
  }
  let bit = 0;
  for (let k = 0; k < m; k++) {
    const col = columns[ORDER[k]];
    for (let i = 0; i <= col.length; i++) {
      const symbol = i < col.length ? symbolOf(col[i], base) : 0;
      const byte = bit >> 3;
      const v = symbol << (bit & 7);
      out[byte] |= v & 0xff;
      if (v > 0xff) out[byte + 1] |= v >> 8;
      bit += 6;
    }
  }
  let cells = 0;
  for (const card of layout.freeCells) {
    if (card === null) continue;
    const sym = symbolOf(card, base);
    let j = cells++;
    while (j > 0 && CELLS[j - 1] < sym) {
      CELLS[j] = CELLS[j - 1];
      j--;
    }
    CELLS[j] = sym;
  }
  for (let i = 0; i <= cells; i++) {
    const symbol = i < cells ? CELLS[i] : 0;
    const byte = bit >> 3;
    const v = symbol << (bit & 7);
    out[byte] |= v & 0xff;
    if (v > 0xff) out[byte + 1] |= v >> 8;
    bit += 6;
  }
}

/** Symbol k (0..63) of a key. */
function symbolAt(key: Uint8Array, k: number): number {
  const bit = 6 * k;
  const byte = bit >> 3;
  const shift = bit & 7;
  const lo = key[byte];
  const hi = byte + 1 < KEY_BYTES ? key[byte + 1] : 0;
  return ((lo | (hi << 8)) >> shift) & 63;
}

const SYMBOLS = (KEY_BYTES * 8) / 6;

/**
 * Decodes a key into a position: columns in key order, the cells filled from
 * cell 0 in key order, foundations from the missing cards.
 * @throws Rejection `bad_position` when the key is not a valid position.
 */
function decodeKey(key: Uint8Array, rules: Rules, index: number): Layout {
  const base = rules.foundationBase;
  const bad = (why: string) => new Rejection('bad_position', `position ${index} (key ${hex(key)}): ${why}`, { positionIndex: index });
  const seen = new Uint8Array(64);
  let k = 0;
  const next = (): number => {
    if (k >= SYMBOLS) throw bad('the key ends before its last terminator');
    return symbolAt(key, k++);
  };
  const take = (where: string): number | null => {
    const s = next();
    if (s === 0) return null;
    if (s < 4 || s > 55) throw bad(`symbol ${s} in ${where} is not a card (4..55)`);
    if (seen[s]) throw bad(`card ${cardToString(cardOfSymbol(s, base))} appears twice`);
    seen[s] = 1;
    return s;
  };
  const columns: Card[][] = [];
  for (let c = 0; c < rules.columns; c++) {
    const col: Card[] = [];
    for (let s = take(`column ${c}`); s !== null; s = take(`column ${c}`)) col.push(cardOfSymbol(s, base));
    columns.push(col);
  }
  const freeCells: (Card | null)[] = [];
  for (let s = take('the free cells'); s !== null; s = take('the free cells')) freeCells.push(cardOfSymbol(s, base));
  if (freeCells.length > rules.freeCells) throw bad(`${freeCells.length} cards in free cells, the rules have ${rules.freeCells}`);
  while (freeCells.length < rules.freeCells) freeCells.push(null);
  while (k < SYMBOLS) if (next() !== 0) throw bad('nonzero bits after the free cells');
  // Foundations: suit s holds relRanks 1..f, f = (lowest relRank in play) - 1; every card above must be in play.
  const foundations: [number, number, number, number] = [13, 13, 13, 13];
  for (let s = 0; s < 4; s++) {
    let r = 1;
    while (r <= 13 && !seen[r * 4 + s]) r++;
    foundations[s] = r - 1;
    for (; r <= 13; r++) {
      if (!seen[r * 4 + s]) {
        throw bad(`${cardToString(cardOfSymbol(r * 4 + s, base))} is missing but a lower card of its suit is in play (no foundation can hold it)`);
      }
    }
  }
  return { columns, freeCells, foundations };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

// ---------------------------------------------------------------------------
// The set: keys as big-endian 32-bit words, for comparison and binary search
// ---------------------------------------------------------------------------

const WORDS = KEY_BYTES / 4;

/** 1, 0, -1 as the key at `a` (in words) compares bytewise with the one at `b`. */
function compareAt(words: Uint32Array, a: number, other: Uint32Array, b: number): number {
  for (let w = 0; w < WORDS; w++) {
    const x = words[a + w];
    const y = other[b + w];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function toWords(bytes: Uint8Array, count: number): Uint32Array {
  const words = new Uint32Array(count * WORDS);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, false);
  return words;
}

/** True when the key (as WORDS words in `probe`) is in the sorted set. */
function contains(set: Uint32Array, count: number, probe: Uint32Array): boolean {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareAt(set, mid * WORDS, probe, 0);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Fingerprint (docs/proofs.md, "Fingerprint")
// ---------------------------------------------------------------------------

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = (1n << 64n) - 1n;

/**
 * The fingerprint of a set of keys: the sum modulo 2^64 of the FNV-1a 64-bit
 * hash of each key's bytes, as 16 lower-case hex digits. Order-free, so it
 * identifies the set whatever order it was found in.
 */
export function fingerprintKeys(keys: Uint8Array, keyBytes = KEY_BYTES): string {
  // FNV-1a on 64 bits, with the multiplication split in 32-bit halves (BigInt per byte is too slow).
  let sumHi = 0n;
  let sumLo = 0n;
  for (let off = 0; off + keyBytes <= keys.length; off += keyBytes) {
    let hi = 0xcbf29ce4;
    let lo = 0x84222325;
    for (let b = 0; b < keyBytes; b++) {
      lo = (lo ^ keys[off + b]) >>> 0;
      // (hi:lo) * 0x100000001b3 mod 2^64 = (hi:lo) * 0x1b3 + (lo << 40)
      const loMul = lo * 0x1b3;
      const carry = Math.floor(loMul / 0x100000000);
      const newLo = loMul >>> 0;
      hi = (Math.imul(hi, 0x1b3) + carry + ((lo << 8) >>> 0)) >>> 0;
      lo = newLo;
    }
    sumHi += BigInt(hi);
    sumLo += BigInt(lo);
  }
  const sum = ((sumHi << 32n) + sumLo) & MASK64;
  return sum.toString(16).padStart(16, '0');
}

/** Reference FNV-1a 64 of one key with BigInt (tests hold the fast version to it). */
export function fnv1a64Reference(bytes: Uint8Array): bigint {
  let h = FNV_OFFSET;
  for (const b of bytes) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK64;
  return h;
}

// ---------------------------------------------------------------------------
// Reading the file
// ---------------------------------------------------------------------------

/**
 * Splits a certificate into its header and its key bytes.
 * @throws Rejection `not_gzip`, `bad_header`.
 */
function readCertificate(file: Uint8Array): { header: CertificateHeader; body: Uint8Array } {
  let raw: Buffer;
  try {
    raw = gunzipSync(file);
  } catch (err) {
    throw new Rejection('not_gzip', `the file is not a complete gzip stream (${err instanceof Error ? err.message : String(err)}): truncated or corrupted`);
  }
  const nl = raw.indexOf(0x0a);
  if (nl < 0) throw new Rejection('bad_header', 'no header line (no line break in the file)');
  let json: unknown;
  try {
    json = JSON.parse(raw.subarray(0, nl).toString('utf8'));
  } catch (err) {
    throw new Rejection('bad_header', `the header line is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = CertificateHeaderSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Rejection('bad_header', `header field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return { header: parsed.data, body: raw.subarray(nl + 1) };
}

// ---------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------

/** How `checkMove` begins the reason of its check 6 (the moved run is not one tableau sequence). */
const RUN_NOT_A_SEQUENCE = 'moved run ';
/** How `checkMove` words the failure of its check 7 (sequence-move capacity). */
const OVER_CAPACITY = /^\d+ cards exceed the sequence-move capacity /;

const CARD_TEXT: string[] = Array.from({ length: 56 }, (_, c) => (c >= 4 ? cardToString(c) : ''));

/** A move in words, for counterexamples. */
export function describeMove(move: Move): string {
  const where = (kind: string, i: number) => (kind === 'foundation' ? `foundation ${'CDHS'[i]}` : `${kind === 'cell' ? 'free cell' : 'column'} ${i}`);
  const what = move.count > 1 ? `${move.count} cards from ${move.card}` : move.card;
  return `${what}: ${where(move.from, move.fromIndex)} to ${where(move.to, move.toIndex)}`;
}

/** A certificate whose steps 1-5 passed, ready for step 6 on any range of positions. */
interface Prepared {
  header: CertificateHeader;
  rule: AutoMoveRule;
  /** The key bytes, `positions` × KEY_BYTES. */
  body: Uint8Array;
  /** The same keys as big-endian words, for lookups. */
  set: Uint32Array;
  /** See ProofCheckPass. */
  rulesChanged: string[];
}

/** Steps 1-5 (see the module comment). @throws Rejection */
function prepare(file: Uint8Array): Prepared {
  const { header, body } = readCertificate(file);
  try {
    return prepareRead(header, body);
  } catch (err) {
    if (err instanceof Rejection && err.extra.header === undefined) throw new Rejection(err.code, err.message, { header, ...err.extra });
    throw err;
  }
}

function prepareRead(header: CertificateHeader, body: Uint8Array): Prepared {
  const rules = header.rules;
  const base = rules.foundationBase;
  const rule = checkReductions(header);

  // 3. length, order, fingerprint
  const n = header.positions;
  if (body.length !== n * KEY_BYTES) {
    throw new Rejection(
      'bad_length',
      `the header announces ${n} positions (${n * KEY_BYTES} bytes of keys) but the file holds ${body.length} bytes` +
        (body.length % KEY_BYTES === 0 ? ` (${body.length / KEY_BYTES} positions)` : ` (not a whole number of ${KEY_BYTES}-byte keys)`),
      { header },
    );
  }
  const set = toWords(body, n);
  for (let i = 1; i < n; i++) {
    const c = compareAt(set, (i - 1) * WORDS, set, i * WORDS);
    if (c === 0) {
      throw new Rejection('duplicate_position', `positions ${i - 1} and ${i} are the same key ${hex(body.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES))}`, {
        header,
        positionIndex: i,
      });
    }
    if (c > 0) throw new Rejection('not_sorted', `position ${i} sorts before position ${i - 1}: the keys must be in ascending byte order`, { header, positionIndex: i });
  }
  const fingerprint = fingerprintKeys(body);
  if (fingerprint !== header.fingerprint) {
    throw new Rejection('fingerprint_mismatch', `the keys' fingerprint is ${fingerprint}, the header says ${header.fingerprint}`, { header });
  }

  // 4. every key a canonical, valid, unwon position
  const scratch = new Uint8Array(KEY_BYTES);
  for (let i = 0; i < n; i++) {
    const key = body.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
    const layout = decodeKey(key, rules, i);
    encodeKey(layout, base, scratch);
    if (Buffer.compare(scratch, key) !== 0) {
      throw new Rejection(
        'bad_position',
        `position ${i} (key ${hex(key)}) is not in canonical form (columns sorted by their deepest card, empty columns last, cells descending); canonical: ${hex(scratch)}`,
        { header, positionIndex: i, position: formatBoard(layout, rules) },
      );
    }
    if (isWon(layout)) {
      throw new Rejection('won_position', `position ${i} is won (every card on the foundations): a set with a won position proves nothing`, {
        header,
        positionIndex: i,
        position: formatBoard(layout, rules),
      });
    }
  }

  // 5. the start
  let start: Layout;
  try {
    start = parseBoard(header.start, rules);
  } catch (err) {
    throw new Rejection('bad_start', `the header's start board is not a valid position: ${err instanceof SolverError ? err.message : String(err)}`, { header });
  }
  const dealtBase = checkDealOrigin(header, start);
  closeUnderAutoMoves(start, rule, base);
  const lookup = makeLookup(set, n, base);
  if (!lookup.has(start)) {
    throw new Rejection('start_missing', 'the start position (after the auto-move closure) is not in the set', {
      header,
      result: formatBoard(start, rules),
      resultKey: lookup.lastKeyHex(),
    });
  }
  return { header, rule, body, set, rulesChanged: rulesChangedFromPreset(header, dealtBase) };
}

function dealLabel(header: CertificateHeader): string {
  return header.deal === null ? header.game : `${header.game} deal ${header.deal.number} (${header.deal.numbering})`;
}

/**
 * Step 5, the deal: when the header names one, the deal generators deal it
 * again and it must be exactly the start position as given (columns, the
 * cards in the cells in order, foundations). Returns the foundation base the
 * deal chooses (Penguin's beak), if any.
 * @throws Rejection `deal_mismatch`
 */
function checkDealOrigin(header: CertificateHeader, start: Layout): number | undefined {
  if (header.deal === null) return undefined;
  let dealt: { layout: Layout; foundationBase?: number };
  try {
    dealt = generateDeal(header.game, header.deal.numbering, header.deal.number);
  } catch (err) {
    throw new Rejection('deal_mismatch', `the header names ${dealLabel(header)}, which cannot be dealt: ${err instanceof SolverError ? err.message : String(err)}`, { header });
  }
  const cards = (cells: (number | null)[]) => cells.filter((c) => c !== null);
  const same =
    JSON.stringify(dealt.layout.columns) === JSON.stringify(start.columns) &&
    JSON.stringify(cards(dealt.layout.freeCells)) === JSON.stringify(cards(start.freeCells)) &&
    JSON.stringify(dealt.layout.foundations) === JSON.stringify(start.foundations);
  if (!same) {
    throw new Rejection('deal_mismatch', `the header names ${dealLabel(header)}, but its start position is not that deal`, {
      header,
      result: formatBoard(dealt.layout, { ...header.rules, foundationBase: dealt.foundationBase ?? header.rules.foundationBase }),
    });
  }
  return dealt.foundationBase;
}

/** The header's rules that differ from its game's preset (see ProofCheckPass `rulesChanged`). */
function rulesChangedFromPreset(header: CertificateHeader, dealtBase: number | undefined): string[] {
  const preset = findPreset(header.game);
  if (!preset) return [];
  const expected: Rules = { ...preset.rules, ...(dealtBase !== undefined ? { foundationBase: dealtBase } : {}) };
  const changed: string[] = [];
  for (const key of Object.keys(header.rules) as (keyof Rules)[]) {
    // a board of a game whose deal picks the foundation base (Penguin) sets its own
    if (key === 'foundationBase' && header.deal === null && preset.rules.wrap) continue;
    if (header.rules[key] !== expected[key]) changed.push(`${key} ${String(header.rules[key])} instead of ${String(expected[key])}`);
  }
  return changed;
}

function makeLookup(set: Uint32Array, n: number, base: number) {
  const scratch = new Uint8Array(KEY_BYTES);
  const view = new DataView(scratch.buffer);
  const probe = new Uint32Array(WORDS);
  return {
    /** True when the canonical key of `layout` is in the set. */
    has(layout: Layout): boolean {
      encodeKey(layout, base, scratch);
      for (let w = 0; w < WORDS; w++) probe[w] = view.getUint32(w * 4, false);
      return contains(set, n, probe);
    },
    /** Hex of the key the last `has` looked up. */
    lastKeyHex: () => hex(scratch),
  };
}

/** Counts of step 6. */
interface MoveCounts {
  movesTried: number;
  movesChecked: number;
}

/**
 * Step 6 for positions `from` .. `to - 1`. Every candidate move goes to
 * `checkMove`, except those its documented checks reject whatever the
 * skipped part is (`exhaustive` turns these skips off; tests hold both modes
 * to the same legal moves):
 * - a target equal to the source (its check 3);
 * - more than one card to a cell or a foundation (its check 4);
 * - a foundation other than the card's suit (its check 8: "the foundation of
 *   the card's suit");
 * - a free cell that holds a card (its check 8: "an empty cell");
 * - one card onto a non-empty column is asked once per (card, top card) pair
 *   and the verdict remembered: for such a candidate checks 0-7 pass (valid
 *   rules and shape, the card is where the move says, a single card is a
 *   sequence, capacity applies only to runs) and check 8 reads only the two
 *   cards. The legal ones are still played and looked up in every position;
 * - a count whose run is not a sequence (its check 6, which reads only the
 *   source), and every larger count from that column, whose run contains
 *   it; likewise a count over the sequence-move capacity toward a non-empty
 *   column (its check 7: the capacity is largest toward a non-empty column,
 *   where e counts every empty column, and does not depend on the count).
 *   One probe per count, toward another column (a non-empty one when there
 *   is one), decides.
 * @throws Rejection `not_closed` at the first move whose result is missing.
 */
function checkMoves(prepared: Prepared, from: number, to: number, options: ProofCheckOptions): MoveCounts {
  const { header, rule, body, set } = prepared;
  const rules = header.rules;
  const base = rules.foundationBase;
  const n = header.positions;
  const lookup = makeLookup(set, n, base);
  const exhaustive = options.exhaustive === true;
  const progressEvery = options.progressEvery ?? 10_000;
  const move: Move = { from: 'column', fromIndex: 0, to: 'column', toIndex: 0, count: 1, card: '', auto: false };
  let movesTried = 0;
  let movesChecked = 0;
  // checkMove's verdict on one card onto a non-empty column, by (card, top card): -1 not asked yet, 0 illegal, 1 legal.
  const singleOnTop = new Int8Array(64 * 64).fill(-1);
  let layout: Layout;
  let index = 0;

  const tryMove = (): void => {
    movesTried++;
    if (checkMove(rules, layout, move) === null) follow();
  };
  /** Plays the legal `move` and looks its result up. */
  const follow = (): void => {
    movesChecked++;
    const next = applyMove(rules, layout, move);
    closeUnderAutoMoves(next, rule, base);
    if (!lookup.has(next)) {
      const played = { ...move };
      throw new Rejection('not_closed', `position ${index}: the legal move ${describeMove(played)} leads (after auto-moves) to a position that is not in the set`, {
        header,
        positionIndex: index,
        position: formatBoard(layout, rules),
        move: played,
        result: formatBoard(next, rules),
        resultKey: lookup.lastKeyHex(),
      });
    }
  };
  const tryTargets = (card: Card): void => {
    const isColumn = move.from === 'column';
    for (let t = 0; t < rules.columns; t++) {
      if (!exhaustive && isColumn && t === move.fromIndex) continue;
      move.to = 'column';
      move.toIndex = t;
      const target = layout.columns[t];
      if (!exhaustive && move.count === 1 && target.length > 0) {
        const pair = card * 64 + target[target.length - 1];
        if (singleOnTop[pair] < 0) {
          movesTried++;
          singleOnTop[pair] = checkMove(rules, layout, move) === null ? 1 : 0;
        }
        if (singleOnTop[pair] === 1) follow();
        continue;
      }
      tryMove();
    }
    if (!exhaustive && move.count > 1) return;
    for (let t = 0; t < rules.freeCells; t++) {
      if (!exhaustive && layout.freeCells[t] !== null) continue;
      move.to = 'cell';
      move.toIndex = t;
      tryMove();
    }
    for (let t = 0; t < 4; t++) {
      if (!exhaustive && t !== suitOf(card)) continue;
      move.to = 'foundation';
      move.toIndex = t;
      tryMove();
    }
  };

  for (index = from; index < to; index++) {
    layout = decodeKey(body.subarray(index * KEY_BYTES, (index + 1) * KEY_BYTES), rules, index);
    for (let c = 0; c < layout.columns.length; c++) {
      const col = layout.columns[c];
      move.from = 'column';
      move.fromIndex = c;
      let probe = -1;
      for (let t = 0; t < rules.columns; t++) {
        if (t === c) continue;
        if (layout.columns[t].length > 0) {
          probe = t;
          break;
        }
        if (probe < 0) probe = t;
      }
      const probeNonEmpty = probe >= 0 && layout.columns[probe].length > 0;
      for (let count = 1; count <= col.length; count++) {
        const card = col[col.length - count];
        move.count = count;
        move.card = CARD_TEXT[card];
        if (!exhaustive && count > 1 && probe >= 0) {
          move.to = 'column';
          move.toIndex = probe;
          movesTried++;
          const why = checkMove(rules, layout, move);
          if (why !== null && (why.startsWith(RUN_NOT_A_SEQUENCE) || (probeNonEmpty && OVER_CAPACITY.test(why)))) break;
        }
        tryTargets(card);
      }
    }
    for (let s = 0; s < layout.freeCells.length; s++) {
      const card = layout.freeCells[s];
      if (card === null) continue;
      move.from = 'cell';
      move.fromIndex = s;
      move.count = 1;
      move.card = CARD_TEXT[card];
      tryTargets(card);
    }
    if (options.onProgress && (index + 1 - from) % progressEvery === 0) options.onProgress(index + 1 - from, to - from);
  }
  return { movesTried, movesChecked };
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
    const counts = checkMoves(prepared, 0, prepared.header.positions, options);
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
    const prepared: Prepared = { header: data.header, rule, body: data.body, set: toWords(data.body, data.header.positions), rulesChanged: [] };
    return { ok: true, counts: checkMoves(prepared, data.from, data.to, {}) };
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
      const counts = checkMoves(prepared, 0, n, {});
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
