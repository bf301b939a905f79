/**
 * The compact key of the no-cell Castle games (Beleaguered Castle, Streets
 * and Alleys, Citadel: any-suit building, no free cells), 17 bytes instead of
 * key.ts's 48, and the choice between the two layouts at solve start.
 *
 * Why a Castle position fits in 17 bytes. Cards leave a column only from its
 * top, and arrive only on a card one rank higher (any suit: `rank` build) or
 * on an empty column (where the rules let one be filled: never in Good
 * Measure, so there a column is a prefix of its start column and a run). So every column of every position reached from the
 * start is a prefix of some start column (the cards never disturbed) with a
 * descending run on it: each card of the run is one rank below the card it
 * lies on, the first one below the prefix's top card, or, when the prefix is
 * empty, any card (the column was emptied). The decomposition used here is
 * canonical, a function of the column's cards alone: a column whose deepest
 * card is the deepest card of start column d has the prefix the longest
 * common prefix of the two (the cards after it are still a descending run
 * from its top, since a longer common prefix only moves run cards into it);
 * any other column is a run with no prefix (a "pure" run). Two columns never
 * share a deepest card, so no start column is the prefix of two columns.
 *
 * The key, 136, 144 or 152 bits (17, 18 or 19 bytes, little-endian):
 *
 *   bits   0..15  the four foundations, 4 bits each (clubs first)
 *   bits  16..    the prefix length of each start column, ceil(log2(L_d + 1))
 *                 bits for a start column of L_d cards, in start-column order,
 *                 in a field of 24 bits (the dealt Castle games of 8 columns
 *                 of at most 7 cards), 32 (Good Measure: 10 columns of 5) or
 *                 40 (Baker's Dozen: 13 of 4); more bits: the full key is kept
 *   then 12 bytes the code of each rank 1..12 (Aces first), below
 *
 * A card's link: when it is a run card lying on a card, the suit of that
 * card (0..3; that card is the one of the next rank up, so its suit names
 * it); 4 for any other card (the deepest card of a pure run, a home card, a
 * prefix card). Which cards are run cards follows from the rest of the key: a
 * card is home when its rank is at most its suit's foundation, in a prefix
 * when it is one of the first p_d cards of start column d, and on a run
 * otherwise. A King on a run is always the deepest card of a pure run
 * (nothing is one rank above it), so Kings need no link.
 *
 * The code of rank r packs the links (v_0..v_3) of its four cards (clubs
 * first). At most one card lies on any card, so the links of one rank that
 * are below 4 are distinct (two cards of rank r never lie on the same card
 * of rank r + 1): of the 5^4 = 625 tuples only 209 can occur (sum over k of
 * C(4,k) 4!/(4-k)!: 1 + 16 + 72 + 96 + 24), so one byte holds them
 * (`RANK_CODE` maps t = v_0 + 5 v_1 + 25 v_2 + 125 v_3 to 0..208, `RANK_LINKS`
 * back to the four links, one a byte). Against three base-5 digits in 7 bits
 * (19 bytes in all) that is 96 bits instead of 112, and neither
 * encoding nor decoding divides: the encoder subtracts (4 - v) 5^s from each
 * rank's 624 for every linked card, and the decoder looks each rank's links
 * up in one load. Decoding (`decodeCompact`) rebuilds every column from the
 * links, so the key is injective: two different positions never share one
 * (each link is a function of the position, and the position is a function
 * of the key).
 *
 * The table (table.ts) keeps the 48-byte key's layout for every other game.
 * Certificates and the exported stored set always carry key.ts's
 * canonical 48-byte keys: each compact record is decoded and re-encoded
 * (`canonicalKeyOfCompact`), so the proof format and `check-proof` do not
 * depend on this file.
 */
import { numColumns, numCells, buildRule, wrapRanks, pooledMode, BUILD_RANK } from './rules';
import {
  MAX_COLUMNS, MAX_CELLS, COLUMN_STRIDE, OFF_CARDS, OFF_FOUNDATIONS, POSITION_BYTES, columnLength, setColumnLength, cardAt, setCellCard,
} from './position';
import { encodeKey, decodeKey, hashKey } from './key';

/** Most bytes of a compact key as stored in a record (`compactKeyBytes`: 17, 18 or 19). */
export const COMPACT_KEY_BYTES: i32 = 19;
/** Most bits the prefix lengths may take (bits 16..55 of the key: the rank codes then start within the first word). */
const PREFIX_BITS_MAX: i32 = 40;
/**
 * Bytes of the compact key of this solve: 17 when the prefix lengths fit in
 * 24 bits (eight start columns of at most 7 cards, 3 bits each; 16 + 24 +
 * 96 = 136 bits), 18 in 32 bits, else 19 (at most PREFIX_BITS_MAX).
 */
export let compactKeyBytes: i32 = COMPACT_KEY_BYTES;
/** Offset of the last four bytes of a compact key (compared and copied as a u32, overlapping the second word). */
export let compactTail: usize = 15;
/** First bit of the rank codes: 40, 48 or 56 (after the foundations and a 24-, 32- or 40-bit prefix field). */
let digitStart: u64 = 56;

/** The last solve started with the compact layout (compact key, 25- or 26-byte records, 4-byte slots: records.ts, compact-table.ts). */
export let compactLayout: bool = false;
/** Set by the test and tuning hook below: false keeps the 48-byte key's layout for every game. */
let compactAllowed: bool = true;

/** Test and tuning hook (exported by tuning.ts): allow (default) or forbid the compact layout for later solves. */
export function setCompactLayoutAllowed(allowed: bool): void {
  compactAllowed = allowed;
}

/** True when the last solve used the compact layout (for the glue's stats and the tests). */
export function compactLayoutInUse(): bool {
  return compactLayout;
}

/** Start columns: cards deepest first, COLUMN_STRIDE bytes each (bytes past a column's length are 0). */
const BASE_CARDS: usize = memory.data(MAX_COLUMNS * COLUMN_STRIDE);
const BASE_LENGTHS: usize = memory.data(MAX_COLUMNS);
/** Bit position (from bit 16) and width of each start column's prefix length. */
const PREFIX_SHIFT: usize = memory.data(MAX_COLUMNS);
const PREFIX_WIDTH: usize = memory.data(MAX_COLUMNS);
/** For each card byte: 1 + the start column whose deepest card it is, 0 for none. */
const BASE_OF: usize = memory.data(64);
/** PREFIX_MASK[d * 64 + p]: the card bits (bit = card byte) of the first p cards of start column d. */
const PREFIX_MASK: usize = memory.data(MAX_COLUMNS * 64 * 8);

/** Scratch of decode: the link of each card byte 4..51 (index card - 4; four bytes a rank, `RANK_LINKS` of its code). */
const DIGITS: usize = memory.data(64, 16);
/** Scratch of encode: per rank (index rank, u16), 624 minus (4 - v) 5^s for each card of that rank with a link v < 4. */
const RANK_SUMS: usize = memory.data(32, 16);
/** RANK_CODE[t]: the byte code (0..208) of the link tuple t = v_0 + 5 v_1 + 25 v_2 + 125 v_3; 255 for a tuple that cannot occur. */
const RANK_CODE: usize = memory.data(640);
/** RANK_LINKS[code] (u32): the four links of a rank code, byte s = v_s. */
const RANK_LINKS: usize = memory.data(256 * 4);
/** LINK_SUB[card * 4 + below]: (4 - below) 5^suit(card), what a card lying on a card of suit `below` takes off its rank's sum (u16). */
const LINK_SUB: usize = memory.data(64 * 4 * 2);
let rankTablesReady: bool = false;

/** Fills RANK_CODE, RANK_LINKS and LINK_SUB (once per engine instance). */
function fillRankTables(): void {
  let code = 0;
  for (let t = 0; t < 625; t++) {
    // the links below 4 must be distinct
    let seen = 0;
    let ok = true;
    let links: u32 = 0;
    let x = t;
    for (let s = 0; s < 4; s++) {
      const v = x % 5;
      x /= 5;
      links |= <u32>v << <u32>(s << 3);
      if (v < 4) {
        if (seen & (1 << v)) ok = false;
        seen |= 1 << v;
      }
    }
    if (ok) {
      store<u8>(RANK_CODE + t, code);
      store<u32>(RANK_LINKS + (<usize>code << 2), links);
      code++;
    } else {
      store<u8>(RANK_CODE + t, 255);
    }
  }
  if (code != 209) unreachable();
  for (let card = 0; card < 64; card++) {
    let pow = 1;
    for (let s = 0; s < (card & 3); s++) pow *= 5;
    for (let below = 0; below < 4; below++) store<u16>(LINK_SUB + (<usize>(card * 4 + below) << 1), (4 - below) * pow);
  }
  rankTablesReady = true;
}
/** Scratch of decode: the prefix length of each start column. */
const PREFIX_LENGTHS: usize = memory.data(MAX_COLUMNS, 16);
/** Scratch of decode: CHILD[card] = the run card lying on `card`, 0 for none. */
const CHILD: usize = memory.data(64, 16);
/** Scratch position of `canonicalKeyOfCompact`. */
const SCRATCH: usize = memory.data(POSITION_BYTES, 16);

/** Bits needed for a number 0..n. */
// @ts-ignore: decorator
@inline function bitsFor(n: i32): i32 {
  return n == 0 ? 0 : 32 - <i32>clz(<u32>n);
}

/**
 * Chooses the layout of a solve from its rules and start position `start`
 * (a position in position.ts's layout, before auto-moves): compact when the
 * rules build down regardless of suit, have no free cells, no wrapping ranks,
 * are not the pooled game (two cards there may share a byte, so a deepest
 * card names no single start column), and the prefix lengths fit in
 * PREFIX_BITS_MAX = 40 bits.
 * Fills the base tables from `start`'s columns. Sets and returns
 * `compactLayout`.
 */
export function chooseLayout(start: usize): bool {
  compactLayout = false;
  if (!compactAllowed || buildRule != BUILD_RANK || numCells != 0 || wrapRanks || pooledMode) return false;
  memory.fill(BASE_CARDS, 0, MAX_COLUMNS * COLUMN_STRIDE);
  memory.fill(BASE_OF, 0, 64);
  let shift = 0;
  for (let d = 0; d < numColumns; d++) {
    const n = columnLength(start, d);
    store<u8>(BASE_LENGTHS + d, n);
    const width = bitsFor(n);
    store<u8>(PREFIX_SHIFT + d, shift);
    store<u8>(PREFIX_WIDTH + d, width);
    shift += width;
    let mask: u64 = 0;
    store<u64>(PREFIX_MASK + (<usize>(d * 64) << 3), 0);
    for (let i = 0; i < n; i++) {
      const card = cardAt(start, d, i);
      store<u8>(BASE_CARDS + d * COLUMN_STRIDE + i, card);
      mask |= (<u64>1) << <u64>card;
      store<u64>(PREFIX_MASK + (<usize>(d * 64 + i + 1) << 3), mask);
    }
    if (n > 0) store<u8>(BASE_OF + cardAt(start, d, 0), d + 1);
  }
  if (shift > PREFIX_BITS_MAX) return false;
  if (!rankTablesReady) fillRankTables();
  const field = shift <= 24 ? 24 : shift <= 32 ? 32 : 40;
  compactKeyBytes = (16 + field + 96) >> 3;
  compactTail = <usize>compactKeyBytes - 4;
  digitStart = <u64>(16 + field);
  compactLayout = true;
  baseParent = 0;
  return true;
}

/** Cards the column at `a` (`n` cards, deepest first) shares, from the deepest, with start column `d`. */
// @ts-ignore: decorator
@inline function commonPrefix(a: usize, n: i32, d: i32): i32 {
  const limit = min(n, <i32>load<u8>(BASE_LENGTHS + d));
  const b = BASE_CARDS + d * COLUMN_STRIDE;
  let i = 0;
  while (i < limit) {
    const x = load<u64>(a + i) ^ load<u64>(b + i);
    if (x != 0) {
      i += <i32>(ctz(x) >> 3);
      break;
    }
    i += 8;
  }
  return i < limit ? i : limit;
}

/**
 * Writes the compact key of `p` (a position reached in the solve that
 * `chooseLayout` set up, with no free cells) at `out`: the key's
 * `compactKeyBytes` bytes and zero bytes up to 24, so that `out` holds three
 * whole words (the file comment has the encoding).
 */
export function encodeCompact(p: usize, out: usize): void {
  // every rank's sum starts at 624 (all four links 4)
  const all4 = v128.splat<i16>(624);
  v128.store(RANK_SUMS, all4);
  v128.store(RANK_SUMS, all4, 16);
  let prefixes: u64 = 0;
  for (let c = 0; c < numColumns; c++) {
    prefixes |= columnPart(p + OFF_CARDS + c * COLUMN_STRIDE, columnLength(p, c), RANK_SUMS, true);
  }
  finishKey(p, prefixes, out);
}

/**
 * One column's part of a compact key: the cards at `base` (`n` of them,
 * deepest first) take their links off the rank sums at `sums` (`add`; else
 * they put them back), and the column's prefix length is returned in its
 * place in the prefix field (0 for a pure run or an empty column). A key's
 * rank sums and prefix field are those of its columns together, so a child
 * that differs from its parent in a few columns differs in their parts only
 * (`encodeCompactChild`).
 */
// @ts-ignore: decorator
@inline function columnPart(base: usize, n: i32, sums: usize, add: bool): u64 {
  if (n == 0) return 0;
  const d1 = <i32>load<u8>(BASE_OF + <usize>load<u8>(base));
  let from = 1;
  let bits: u64 = 0;
  if (d1 != 0) {
    const prefix = commonPrefix(base, n, d1 - 1);
    bits = <u64>prefix << <u64>load<u8>(PREFIX_SHIFT + d1 - 1);
    from = prefix;
  }
  // each run card after the first lies on the card below it: its link is that card's suit
  let below = <u32>load<u8>(base + from - 1);
  for (let i = from; i < n; i++) {
    const card = <u32>load<u8>(base + i);
    const at = sums + (<usize>(card >> 2) << 1);
    const v = <u32>load<u16>(LINK_SUB + (<usize>((card << 2) | (below & 3)) << 1));
    store<u16>(at, add ? <u32>load<u16>(at) - v : <u32>load<u16>(at) + v);
    below = card;
  }
  return bits;
}

/** Writes the key of `p` from the rank sums in RANK_SUMS and the prefix field `prefixes` (with `p`'s foundations) at `out`, as `encodeCompact`. */
// @ts-ignore: decorator
@inline function finishKey(p: usize, prefixes: u64, out: usize): void {
  const f = load<u32>(p + OFF_FOUNDATIONS);
  const foundations = <u64>((f & 0xf) | ((f >> 4) & 0xf0) | ((f >> 8) & 0xf00) | ((f >> 12) & 0xf000));
  // the rank codes: ranks 1..8 in `low`, 9..12 in `high`
  let low: u64 = 0;
  for (let r = 1; r <= 8; r++) {
    low |= <u64>load<u8>(RANK_CODE + <usize>load<u16>(RANK_SUMS + (<usize>r << 1))) << <u64>((r - 1) << 3);
  }
  let high: u64 = 0;
  for (let r = 9; r <= 12; r++) {
    high |= <u64>load<u8>(RANK_CODE + <usize>load<u16>(RANK_SUMS + (<usize>r << 1))) << <u64>((r - 9) << 3);
  }
  const ds = digitStart;
  store<u64>(out, foundations | (prefixes << 16) | (low << ds));
  store<u64>(out, (low >> (64 - ds)) | (high << ds), 8);
  store<u64>(out, high >> (64 - ds), 16);
}

/** The record whose columns BASE_SUMS and `basePrefixes` hold (`encodeCompactChild`); 0: none. */
let baseParent: u32 = 0;
/** Rank sums (as RANK_SUMS) and prefix field of the position of record `baseParent`. */
const BASE_SUMS: usize = memory.data(32, 16);
let basePrefixes: u64 = 0;

/** Forgets the parent `encodeCompactChild` holds (compact-table.ts, whenever the table is reset: record indices start over). */
export function forgetCompactBase(): void {
  baseParent = 0;
}

/**
 * `encodeCompact` of a child made in place from its parent, record
 * `parent`: `p` holds the child, `parentHeader` the parent's header (its
 * column lengths at offset 0, as search-state.ts SAVED_HEADER). A move and the
 * auto-moves after it write cards only past the end of a column and take
 * cards only off its top, so the parent's columns are the first
 * `parentHeader` lengths of `p`'s cards, and a column whose length is the
 * same holds the same cards (it lost nothing, or lost exactly what it
 * gained). So only the columns whose length changed are redone: their
 * parent parts taken out, their child parts put in. The parent's parts are
 * computed once per parent (the first child of an expansion); `p`'s column
 * order must stay the same across the children of one parent, as it does
 * within one expansion. Writes the same key as `encodeCompact(p, out)`.
 */
export function encodeCompactChild(p: usize, parentHeader: usize, parent: u32, out: usize): void {
  if (parent != baseParent) {
    const all4 = v128.splat<i16>(624);
    v128.store(BASE_SUMS, all4);
    v128.store(BASE_SUMS, all4, 16);
    let bits: u64 = 0;
    for (let c = 0; c < numColumns; c++) {
      bits |= columnPart(p + OFF_CARDS + c * COLUMN_STRIDE, <i32>load<u8>(parentHeader + c), BASE_SUMS, true);
    }
    basePrefixes = bits;
    baseParent = parent;
  }
  v128.store(RANK_SUMS, v128.load(BASE_SUMS));
  v128.store(RANK_SUMS, v128.load(BASE_SUMS, 16), 16);
  let prefixes = basePrefixes;
  // first every changed column's parent part out (two changed columns may
  // share a start column: the card that emptied one heads the other), then
  // every child part in
  for (let c = 0; c < numColumns; c++) {
    const before = <i32>load<u8>(parentHeader + c);
    if (before != columnLength(p, c)) {
      prefixes &= ~columnPart(p + OFF_CARDS + c * COLUMN_STRIDE, before, RANK_SUMS, false);
    }
  }
  for (let c = 0; c < numColumns; c++) {
    const now = columnLength(p, c);
    if (now != <i32>load<u8>(parentHeader + c)) {
      prefixes |= columnPart(p + OFF_CARDS + c * COLUMN_STRIDE, now, RANK_SUMS, true);
    }
  }
  finishKey(p, prefixes, out);
}

/** SUIT_CARDS << s: the card bits of suit s, ranks 1..13 (card byte rank * 4 + suit). */
const SUIT_CARDS: u64 = 0x0011111111111110;

/**
 * Rebuilds the position of a compact key at `key` into `p`: columns in
 * canonical order (by deepest card, empty columns last, as key.ts's
 * `decodeKey` gives them), no free cells, the foundations of the key.
 */
export function decodeCompact(key: usize, p: usize): void {
  const w0 = load<u64>(key);
  const w1 = load<u64>(key, 8);
  // the bytes past 16 (1 or 2), read from the tail word so as not to pass the key's end
  const w2 = <u64>(load<u32>(key + compactTail) >> ((16 - <u32>compactTail) << 3));
  // foundations, and the cards in play (rank above the foundation)
  let inPlay: u64 = 0;
  let fbytes: u32 = 0;
  for (let s = 0; s < 4; s++) {
    const f = <u32>((w0 >> <u64>(s << 2)) & 15);
    fbytes |= f << <u32>(s << 3);
    inPlay |= (SUIT_CARDS << <u64>s) & (<u64>-1 << <u64>((f + 1) << 2));
  }
  store<u32>(p + OFF_FOUNDATIONS, fbytes);
  // prefixes
  let prefixCards: u64 = 0;
  let starts: u64 = 0;
  const prefixes = w0 >> 16;
  for (let d = 0; d < numColumns; d++) {
    const width = <u64>load<u8>(PREFIX_WIDTH + d);
    const len = <i32>((prefixes >> <u64>load<u8>(PREFIX_SHIFT + d)) & ((<u64>1 << width) - 1));
    store<u8>(PREFIX_LENGTHS + d, len);
    if (len > 0) {
      prefixCards |= load<u64>(PREFIX_MASK + (<usize>(d * 64 + len) << 3));
      starts |= (<u64>1) << <u64>load<u8>(BASE_CARDS + d * COLUMN_STRIDE);
    }
  }
  // links: each rank's code looked up, four links a u32
  const ds = digitStart;
  const low = (w0 >> ds) | (w1 << (64 - ds));
  const high = (w1 >> ds) | (w2 << (64 - ds));
  for (let r = 0; r < 8; r++) {
    store<u32>(DIGITS + (<usize>r << 2), load<u32>(RANK_LINKS + (<usize>((low >> <u64>(r << 3)) & 255) << 2)));
  }
  for (let r = 0; r < 4; r++) {
    store<u32>(DIGITS + (<usize>(r + 8) << 2), load<u32>(RANK_LINKS + (<usize>((high >> <u64>(r << 3)) & 255) << 2)));
  }
  // links of the run cards
  v128.store(CHILD, v128.splat<i64>(0));
  v128.store(CHILD, v128.splat<i64>(0), 16);
  v128.store(CHILD, v128.splat<i64>(0), 32);
  v128.store(CHILD, v128.splat<i64>(0), 48);
  let run = inPlay & ~prefixCards;
  while (run != 0) {
    const card = <i32>ctz(run);
    run &= run - 1;
    const digit = card >= 52 ? 4 : <i32>load<u8>(DIGITS + card - 4);
    if (digit == 4) starts |= (<u64>1) << <u64>card;
    else store<u8>(CHILD + (((card >> 2) + 1) << 2 | digit), card);
  }
  // columns, by deepest card
  let c = 0;
  while (starts != 0) {
    const first = <i32>ctz(starts);
    starts &= starts - 1;
    const out = p + OFF_CARDS + c * COLUMN_STRIDE;
    let n = 0;
    let top = first;
    if ((prefixCards >> <u64>first) & 1) {
      const d = <i32>load<u8>(BASE_OF + first) - 1;
      n = <i32>load<u8>(PREFIX_LENGTHS + d);
      const from = BASE_CARDS + d * COLUMN_STRIDE;
      for (let i = 0; i < n; i += 8) store<u64>(out + i, load<u64>(from + i));
      top = <i32>load<u8>(out + n - 1);
    } else {
      store<u8>(out, first);
      n = 1;
    }
    let next = <i32>load<u8>(CHILD + top);
    while (next != 0) {
      store<u8>(out + n, next);
      n++;
      next = <i32>load<u8>(CHILD + next);
    }
    setColumnLength(p, c, n);
    c++;
  }
  for (; c < MAX_COLUMNS; c++) setColumnLength(p, c, 0);
  for (let i = 0; i < MAX_CELLS; i++) setCellCard(p, i, 0);
}

/** 32-bit hash of a compact key (`compactKeyBytes` bytes: two words and the u32 at `compactTail`; the same rounds as key.ts's `hashKey`). */
export function hashCompact(key: usize): u32 {
  let h: u64 = 0x27d4eb2f165667c5;
  for (let w = 0; w < 3; w++) {
    let k = w < 2 ? load<u64>(key + (<usize>w << 3)) : <u64>load<u32>(key + compactTail);
    k *= 0xc2b2ae3d27d4eb4f;
    k = rotl<u64>(k, 31);
    k *= 0x9e3779b185ebca87;
    h ^= k;
    h = rotl<u64>(h, 27) * 0x9e3779b185ebca87 + 0x85ebca77c2b2ae63;
  }
  h ^= h >> 33;
  h *= 0xc2b2ae3d27d4eb4f;
  h ^= h >> 29;
  h *= 0x165667b19e3779f9;
  h ^= h >> 32;
  return <u32>h;
}

/** True when two compact keys are equal (all `compactKeyBytes` bytes, never the hash alone). */
// @ts-ignore: decorator
@inline export function compactKeysEqual(a: usize, b: usize): bool {
  const t = compactTail;
  return load<u64>(a) == load<u64>(b) && load<u64>(a, 8) == load<u64>(b, 8) && load<u32>(a + t) == load<u32>(b + t);
}

/** Writes the key of `p` in the solve's layout at `out` (48 bytes of room): compact or key.ts's. */
// @ts-ignore: decorator
@inline export function encodeStateKey(p: usize, out: usize): void {
  if (compactLayout) encodeCompact(p, out);
  else encodeKey(p, out);
}

/** Hash of a key in the solve's layout. */
// @ts-ignore: decorator
@inline export function hashStateKey(key: usize): u32 {
  return compactLayout ? hashCompact(key) : hashKey(key);
}

/** Rebuilds the position of a key in the solve's layout into `p`. */
// @ts-ignore: decorator
@inline export function decodeStateKey(key: usize, p: usize): void {
  if (compactLayout) decodeCompact(key, p);
  else decodeKey(key, p);
}

/** Writes key.ts's canonical 48-byte key of the compact key at `key` to `out` (for certificates and exports). */
export function canonicalKeyOfCompact(key: usize, out: usize): void {
  decodeCompact(key, SCRATCH);
  encodeKey(SCRATCH, out);
}
