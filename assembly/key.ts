/**
 * The canonical key of a position: what makes two positions "the same" for
 * the state table. The order of the columns and of the free cells does not
 * matter (fc-solve and patsolve sort the same way; docs/search.md §3).
 * Columns are sorted by their deepest card (unique per non-empty column, so
 * the order is total), empty columns last; free cells are sorted by card.
 * Foundations are not stored: every card not in the tableau or a cell is on
 * its foundation, and foundations build in order, so the key determines
 * them.
 *
 * Key encoding: a stream of 6-bit symbols, packed little-endian into u64
 * words: for each column in canonical order its cards (card bytes 4..55,
 * deepest first) then a 0; then the free-cell cards in descending order,
 * then a 0; the rest zero bits. At most 52 cards + one 0 a column + 1 =
 * 53 + columns symbols: up to 11 columns 64 symbols, KEY_BYTES = 48 (six
 * words); beyond, up to MAX_COLUMNS = 18, 71 symbols, WIDE_KEY_BYTES = 56
 * (seven words, room for 74). A solve's width (`keyBytes`, `wideKeys`) is
 * set from its column count when the input is read (`setKeyWidth`), the
 * certificate format's `keyBytesFor` (client-sdk/core/proof/format.ts).
 */
import { numColumns, numCells, pooledMode, poolOf } from './rules';
import {
  MAX_CELLS, MAX_COLUMNS, COLUMN_STRIDE, OFF_LENGTHS, OFF_CELLS, OFF_FOUNDATIONS, OFF_CARDS, emptyColumns, columnLength, setColumnLength, cardAt, cellCard, setCellCard, setFoundation,
} from './position';

/** Bytes of the key of a game of at most 11 columns (six u64 words). */
export const KEY_BYTES: i32 = 48;
/** Bytes of the key of a game of 12 to 18 columns (seven u64 words). */
export const WIDE_KEY_BYTES: i32 = 56;
/** Room for one key of any width (buffers, strides). */
export const MAX_KEY_BYTES: i32 = WIDE_KEY_BYTES;

/** Keys of this solve are WIDE_KEY_BYTES long (more than 11 columns); else KEY_BYTES. */
export let wideKeys: bool = false;
/** Bytes of a key of this solve: KEY_BYTES or WIDE_KEY_BYTES. */
export let keyBytes: i32 = KEY_BYTES;

/** Sets the key width of a game of `columns` columns (input.ts `readInput`): 53 + columns symbols must fit. */
export function setKeyWidth(columns: i32): void {
  wideKeys = 53 + columns > (KEY_BYTES * 8) / 6;
  keyBytes = wideKeys ? WIDE_KEY_BYTES : KEY_BYTES;
}

const COLUMN_ORDER: usize = memory.data(MAX_COLUMNS);
const COLUMN_SORT_KEYS: usize = memory.data(MAX_COLUMNS);
const CELL_SORT: usize = memory.data(16);

/** Sort key of a column for the canonical order: its deepest card, empty columns last. */
// @ts-ignore: decorator
@inline function columnSortKey(p: usize, col: i32): i32 {
  return columnLength(p, col) == 0 ? 255 : cardAt(p, col, 0);
}

/**
 * Writes the canonical order of the columns of `p` into COLUMN_ORDER (insertion
 * sort: at most MAX_COLUMNS columns) and returns its address.
 */
export function canonicalColumnOrder(p: usize): usize {
  if (pooledMode) return pooledColumnOrder(p);
  const n = numColumns;
  for (let i = 0; i < n; i++) store<u8>(COLUMN_SORT_KEYS + i, columnSortKey(p, i));
  for (let i = 0; i < n; i++) {
    const key = load<u8>(COLUMN_SORT_KEYS + i);
    let j = i;
    while (j > 0) {
      const prev = load<u8>(COLUMN_ORDER + j - 1);
      if (load<u8>(COLUMN_SORT_KEYS + prev) <= key) break;
      store<u8>(COLUMN_ORDER + j, prev);
      j--;
    }
    store<u8>(COLUMN_ORDER + j, i);
  }
  return COLUMN_ORDER;
}

/**
 * Pooled game: -1, 0, 1 as column `a` of `p` sorts before, with, or after
 * column `b`: by their cards deepest first, a column that is a prefix of the
 * other first, empty columns last. In the pooled game two columns may start
 * with the same symbol (two cards of one rank and pool), so the deepest card
 * alone does not order them; equal columns are interchangeable.
 */
function comparePooledColumns(p: usize, a: i32, b: i32): i32 {
  const na = columnLength(p, a);
  const nb = columnLength(p, b);
  if (na == 0 || nb == 0) return na == nb ? 0 : na == 0 ? 1 : -1;
  const n = na < nb ? na : nb;
  for (let i = 0; i < n; i++) {
    const x = cardAt(p, a, i);
    const y = cardAt(p, b, i);
    if (x != y) return x < y ? -1 : 1;
  }
  return na == nb ? 0 : na < nb ? -1 : 1;
}

/** `canonicalColumnOrder` of the pooled game: columns sorted by `comparePooledColumns` (insertion sort, stable). */
function pooledColumnOrder(p: usize): usize {
  const n = numColumns;
  for (let i = 0; i < n; i++) {
    let j = i;
    while (j > 0) {
      const prev = <i32>load<u8>(COLUMN_ORDER + j - 1);
      if (comparePooledColumns(p, prev, i) <= 0) break;
      store<u8>(COLUMN_ORDER + j, prev);
      j--;
    }
    store<u8>(COLUMN_ORDER + j, i);
  }
  return COLUMN_ORDER;
}

/** Writes the cards in the free cells of `p`, descending, to CELL_SORT; returns how many. */
function sortCells(p: usize): i32 {
  let m = 0;
  for (let i = 0; i < numCells; i++) {
    const card = <i32>cellCard(p, i);
    if (card == 0) continue;
    let j = m;
    while (j > 0 && <i32>load<u8>(CELL_SORT + j - 1) < card) {
      store<u8>(CELL_SORT + j, load<u8>(CELL_SORT + j - 1));
      j--;
    }
    store<u8>(CELL_SORT + j, card);
    m++;
  }
  return m;
}

/**
 * Packs up to eight card bytes (the low `count` bytes of `bytes`, each below
 * 64) into 6-bit symbols, the first byte in the lowest bits: pairs of bytes
 * into 12-bit lanes, pairs of those into 24 bits, then into 48.
 */
// @ts-ignore: decorator
@inline function packSymbols(bytes: u64, count: i32): u64 {
  let x = count >= 8 ? bytes : bytes & ((<u64>1 << (<u64>count << 3)) - 1);
  x = (x & 0x003f003f003f003f) | ((x >> 2) & 0x0fc00fc00fc00fc0);
  x = (x & 0x00000fff00000fff) | ((x >> 4) & 0x00fff00000fff000);
  return (x & 0x0000000000ffffff) | ((x >> 8) & 0x0000ffffff000000);
}

/**
 * The symbols of a key as bytes, for `encodeKey`: at most 71 used, the
 * zeros up to the 80th, then room for the 16-byte stores that run past them
 * (160 bytes in all).
 */
const KEY_SYMBOLS: usize = memory.data(160, 16);

/**
 * Sixteen symbol bytes (KEY_SYMBOLS from symbol 16 t, each below 64) packed
 * into the low 12 bytes of the result, 6 bits each, the first in the lowest
 * bits: per 32-bit lane four bytes into 24 bits, then the three low bytes of
 * the four lanes gathered into 12 (`i8x16.swizzle`); the high 4 bytes zero.
 */
// @ts-ignore: decorator
@inline function packSymbolGroup(t: i32): v128 {
  const x = v128.load(KEY_SYMBOLS + <usize>(t << 4));
  const y = v128.or(
    v128.or(v128.and(x, i32x4.splat(0x3f)), v128.and(i32x4.shr_u(x, 2), i32x4.splat(0xfc0))),
    v128.or(v128.and(i32x4.shr_u(x, 4), i32x4.splat(0x3f000)), v128.and(i32x4.shr_u(x, 6), i32x4.splat(0xfc0000))),
  );
  return i8x16.swizzle(y, i8x16(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
}

/**
 * Packs the symbol bytes at KEY_SYMBOLS into the key at `out`, 12 bytes per
 * 16 symbols (`packSymbolGroup`): the first 64 symbols into KEY_BYTES = 48
 * bytes, or with `wideKeys` 74 into WIDE_KEY_BYTES = 56. Writes only the
 * key's bytes at `out`.
 */
// @ts-ignore: decorator
@inline function packKeySymbols(out: usize): void {
  // bytes 12..15 of each 16-byte store are zero and overwritten by the next group
  v128.store(out, packSymbolGroup(0));
  v128.store(out + 12, packSymbolGroup(1));
  v128.store(out + 24, packSymbolGroup(2));
  const last = packSymbolGroup(3);
  if (wideKeys) {
    v128.store(out + 36, last);
    // symbols 64..73 and 4 bits of the 74th (zero: at most 71 are used)
    store<u64>(out + 48, i64x2.extract_lane(packSymbolGroup(4), 0));
  } else {
    store<u64>(out + 36, i64x2.extract_lane(last, 0));
    store<u32>(out + 44, i32x4.extract_lane(last, 2));
  }
}

/**
 * Column of each deepest card, for `encodeKey` (only the cards of its mask are read).
 */
const DEEPEST_OWNER: usize = memory.data(64);

/**
 * Writes the canonical key of `p` (KEY_BYTES bytes) at `out`: for each column
 * in canonical order its cards and a 0, then the free cells descending, as
 * 6-bit symbols (file comment; the byte layout is what the certificate
 * checker, client-sdk/core/proof/check-keys.ts, decodes).
 *
 * The canonical order comes from a mask instead of a sort: outside the pooled
 * game every card is unique, so the deepest cards of the non-empty columns,
 * as bits of a u64, are taken in ascending order with `ctz` (DEEPEST_OWNER
 * names each one's column), the empty columns' zeros follow, and the cells
 * come out descending with `clz`. The symbols are laid out as bytes first
 * (KEY_SYMBOLS: a column's cards copied 16 bytes at a time, its 0 after
 * them), then packed into 6 bits each by SIMD (`packKeySymbols`).
 * The pooled game (two cards may share a byte) keeps the sorting encoder,
 * `encodeKeySorted`. Same bytes either way (the tests compare the two).
 */
export function encodeKey(p: usize, out: usize): void {
  if (pooledMode) {
    encodeKeySorted(p, out);
    return;
  }
  let deep: u64 = 0;
  let empties = 0;
  const columns = numColumns;
  for (let c = 0; c < columns; c++) {
    if (columnLength(p, c) == 0) {
      empties++;
    } else {
      const card = cardAt(p, c, 0);
      store<u8>(DEEPEST_OWNER + card, <u8>c);
      deep |= (<u64>1) << <u64>card;
    }
  }
  // each column's cards and its 0, in canonical order: 16 bytes at a time,
  // the bytes copied past its end overwritten by its 0 and what follows
  let at = KEY_SYMBOLS;
  while (deep != 0) {
    const c = <i32>load<u8>(DEEPEST_OWNER + <usize>ctz(deep));
    deep &= deep - 1;
    const n = columnLength(p, c);
    const base = p + OFF_CARDS + c * COLUMN_STRIDE;
    // The column's stride (COLUMN_STRIDE) holds the bytes read past its end.
    for (let i = 0; i < n; i += 16) v128.store(at + i, v128.load(base + i));
    store<u8>(at + n, 0);
    at += n + 1;
  }
  finishKeySymbols(p, at, empties, out);
}

/**
 * The end of `encodeKey` and `encodeChildKey`: after the columns' symbols
 * (KEY_SYMBOLS up to `at`), the `empties` empty columns' zeros (at most
 * MAX_COLUMNS), the cards in the free cells descending, zeros up to the 64th
 * symbol (the 80th with `wideKeys`), all packed into the key at `out`
 * (`packKeySymbols`).
 */
// @ts-ignore: decorator
@inline function finishKeySymbols(p: usize, columnsEnd: usize, empties: i32, out: usize): void {
  const zero = v128.splat<i8>(0);
  let at = columnsEnd;
  v128.store(at, zero);
  // more than 16 empty columns only past 16 columns, where the keys are wide
  if (wideKeys) v128.store(at, zero, 16);
  at += empties;
  let cells: u64 = 0;
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    if (card != 0) cells |= (<u64>1) << <u64>card;
  }
  while (cells != 0) {
    const card = 63 - clz(cells);
    cells ^= (<u64>1) << card;
    store<u8>(at, <u8>card);
    at++;
  }
  // the cells' 0 and the rest of the 64 symbols (80 with `wideKeys`)
  v128.store(at, zero);
  v128.store(at, zero, 16);
  v128.store(at, zero, 32);
  v128.store(at, zero, 48);
  if (wideKeys) v128.store(at, zero, 64);
  packKeySymbols(out);
}

/**
 * `encodeKey` by sorting (`canonicalColumnOrder`, `sortCells`): the pooled
 * game's encoder, where two columns may start with the same card byte.
 */
function encodeKeySorted(p: usize, out: usize): void {
  let acc: u64 = 0;
  let bits: u64 = 0;
  let at = out;
  const order = canonicalColumnOrder(p);
  for (let k = 0; k <= numColumns; k++) {
    let base: usize = CELL_SORT;
    let n = 0;
    if (k < numColumns) {
      const c = <i32>load<u8>(order + k);
      n = columnLength(p, c);
      base = p + OFF_CARDS + c * COLUMN_STRIDE;
    } else {
      n = sortCells(p);
    }
    // A column's stride (COLUMN_STRIDE) and CELL_SORT hold the bytes read past its end.
    for (let i = 0; i < n; i += 8) {
      const count = n - i < 8 ? n - i : 8;
      const v = packSymbols(load<u64>(base + i), count);
      const width = <u64>(count * 6);
      acc |= v << bits;
      bits += width;
      if (bits >= 64) {
        store<u64>(at, acc);
        at += 8;
        bits -= 64;
        acc = bits > 0 ? v >> (width - bits) : 0;
      }
    }
    if (k == numColumns) break;
    // the column's terminating 0
    bits += 6;
    if (bits >= 64) {
      store<u64>(at, acc);
      at += 8;
      bits -= 64;
      acc = 0;
    }
  }
  // the last 0 needs no bits of its own: the rest of the key is zero
  const end = out + <usize>keyBytes;
  while (at < end) {
    store<u64>(at, acc);
    at += 8;
    acc = 0;
  }
}

/**
 * Whether the last `encodeChildKey` took the columns in their physical
 * order (true) or, because the move filled a column that was empty in the
 * parent, encoded the key by `encodeKey` (false: the child's physical
 * column order may not be canonical, so it cannot be a parent of
 * `encodeChildKey` in its own physical order).
 */
export let childKeySpliced: bool = false;

/**
 * Writes the canonical key of `p` (KEY_BYTES bytes at `out`, byte for byte
 * `encodeKey(p, out)`) when `p` was made in place from a parent whose
 * non-empty columns, in physical order 0, 1, ..., have ascending deepest
 * cards (`decodeKey` gives such a position: its columns in canonical
 * order), `header` the parent's header (its column lengths, as search-state.ts's
 * SAVED_HEADER). The caller guarantees that precondition; it is not checked.
 *
 * A move and the auto-moves after it take cards only off a column's top and
 * put them on another's, so a column that was not empty keeps its deepest
 * card or empties: the non-empty columns are still in canonical order in
 * their physical order, and the key needs no sort (no `ctz` over the
 * deepest cards, as `encodeKey`). When a column that was empty in the
 * parent holds cards now, its deepest card may belong anywhere in the
 * order: the key is then encoded by `encodeKey` (`childKeySpliced` false,
 * found by SIMD compares of the two headers' lengths, position.ts
 * `emptyColumns`).
 * Not for the pooled game (two pooled columns may share a deepest card byte).
 */
export function encodeChildKey(p: usize, header: usize, out: usize): void {
  // the columns empty in the parent and not in the child
  if ((emptyColumns(header) & ~emptyColumns(p)) != 0) {
    childKeySpliced = false;
    encodeKey(p, out);
    return;
  }
  childKeySpliced = true;
  let at = KEY_SYMBOLS;
  let empties = 0;
  const columns = numColumns;
  for (let c = 0; c < columns; c++) {
    const n = columnLength(p, c);
    if (n == 0) {
      empties++;
      continue;
    }
    const base = p + OFF_CARDS + c * COLUMN_STRIDE;
    // The column's stride (COLUMN_STRIDE) holds the bytes read past its end.
    for (let i = 0; i < n; i += 16) v128.store(at + i, v128.load(base + i));
    store<u8>(at + n, 0);
    at += n + 1;
  }
  finishKeySymbols(p, at, empties, out);
}

// @ts-ignore: decorator
@inline function readSymbol(key: usize, bit: i32): i32 {
  const word = bit >> 6;
  const off = bit & 63;
  let v = load<u64>(key + (<usize>word << 3)) >> <u64>off;
  if (off > 58) v |= load<u64>(key + (<usize>(word + 1) << 3)) << <u64>(64 - off);
  return <i32>(v & 63);
}

/**
 * The symbols of a key as bytes (`decodeKey`): 64 bytes (80 for a wide
 * key), then slack that the 16-byte copies of a column may read.
 */
const SYMBOLS: usize = memory.data(144, 16);

/**
 * Rebuilds a position (columns in canonical order) from its key: column c
 * of `p` is the key's c-th column (empty columns last), the free cells its
 * cards descending then zeros (all MAX_CELLS), the foundations those the key
 * implies.
 *
 * Outside the pooled game with SIMD: the 64 six-bit symbols are unpacked
 * into bytes sixteen at a time (each three bytes of the key into one 32-bit
 * lane, then each symbol shifted to its byte), the zero symbols (the ends of
 * the columns and of the cells) become one u64 mask, and each column is
 * copied 16 bytes at a time between two of them. Every card not in play is
 * on its foundation, and a foundation holds its suit's ranks 1..f in order,
 * so the cards of suit s in play are exactly f + 1..13: f = 13 - their
 * count, counted by suit on the unpacked bytes. The pooled game (several
 * suits share a card byte) keeps the symbol-by-symbol decoder
 * (`decodeKeyScalar`).
 */
export function decodeKey(key: usize, p: usize): void {
  if (pooledMode) {
    decodeKeyScalar(key, p);
    return;
  }
  if (wideKeys) {
    decodeWideKey(key, p);
    return;
  }
  const low6 = i32x4.splat(0x3f);
  const zero = v128.splat<i8>(0);
  const three = v128.splat<i8>(3);
  let zeros: u64 = 0;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let t = 0; t < 4; t++) {
    // symbols 16t..16t+15 are in key bytes 12t..12t+11; the last group is read from byte 32 so as not to pass the key's end
    let x = t < 3
      ? i8x16.swizzle(v128.load(key + <usize>(t * 12)), i8x16(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1))
      : i8x16.swizzle(v128.load(key + 32), i8x16(4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1));
    x = v128.or(
      v128.or(v128.and(x, low6), v128.and(i32x4.shl(x, 2), i32x4.splat(0x3f00))),
      v128.or(v128.and(i32x4.shl(x, 4), i32x4.splat(0x3f0000)), v128.and(i32x4.shl(x, 6), i32x4.splat(0x3f000000))),
    );
    v128.store(SYMBOLS + <usize>(t << 4), x);
    const isZero = i8x16.eq(x, zero);
    zeros |= (<u64>i8x16.bitmask(isZero)) << <u64>(t << 4);
    const suit = v128.andnot(v128.and(x, three), isZero);
    const inPlay = v128.not(isZero);
    s0 += popcnt(i8x16.bitmask(v128.and(i8x16.eq(suit, zero), inPlay)));
    s1 += popcnt(i8x16.bitmask(i8x16.eq(suit, v128.splat<i8>(1))));
    s2 += popcnt(i8x16.bitmask(i8x16.eq(suit, v128.splat<i8>(2))));
    s3 += popcnt(i8x16.bitmask(i8x16.eq(suit, three)));
  }
  let at = 0;
  for (let c = 0; c < numColumns; c++) {
    const end = <i32>ctz(zeros >> <u64>at) + at;
    const n = end - at;
    const dst = p + OFF_CARDS + c * COLUMN_STRIDE;
    const src = SYMBOLS + <usize>at;
    for (let i = 0; i < n; i += 16) v128.store(dst + i, v128.load(src + i));
    setColumnLength(p, c, n);
    at = end + 1;
  }
  // the cells: the symbols up to the next zero (at most MAX_CELLS = 8), the rest zeros
  const cells = <i32>ctz(zeros >> <u64>at);
  store<u64>(p + OFF_CELLS, cells >= 8 ? load<u64>(SYMBOLS + <usize>at) : load<u64>(SYMBOLS + <usize>at) & ((<u64>1 << <u64>(cells << 3)) - 1));
  store<u32>(p + OFF_FOUNDATIONS, <u32>(13 - s0) | (<u32>(13 - s1) << 8) | (<u32>(13 - s2) << 16) | (<u32>(13 - s3) << 24));
}

/**
 * `decodeKey` of a WIDE_KEY_BYTES key (`wideKeys`): as the 48-byte decoder,
 * with a fifth group of symbols (64..79, from key bytes 48..55; the bytes
 * past the key's end read as zero) and the zero symbols in two masks.
 */
function decodeWideKey(key: usize, p: usize): void {
  const low6 = i32x4.splat(0x3f);
  const zero = v128.splat<i8>(0);
  const three = v128.splat<i8>(3);
  let zeros: u64 = 0;
  let zerosHigh: u32 = 0;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let t = 0; t < 5; t++) {
    // symbols 16t..16t+15 are in key bytes 12t..12t+11; the last two groups are read from bytes 32 and 40 so as not to pass the key's end
    let x = t < 3
      ? i8x16.swizzle(v128.load(key + <usize>(t * 12)), i8x16(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1))
      : t == 3
        ? i8x16.swizzle(v128.load(key + 32), i8x16(4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1))
        : i8x16.swizzle(v128.load(key + 40), i8x16(8, 9, 10, -1, 11, 12, 13, -1, 14, 15, -1, -1, -1, -1, -1, -1));
    x = v128.or(
      v128.or(v128.and(x, low6), v128.and(i32x4.shl(x, 2), i32x4.splat(0x3f00))),
      v128.or(v128.and(i32x4.shl(x, 4), i32x4.splat(0x3f0000)), v128.and(i32x4.shl(x, 6), i32x4.splat(0x3f000000))),
    );
    v128.store(SYMBOLS + <usize>(t << 4), x);
    const isZero = i8x16.eq(x, zero);
    if (t < 4) zeros |= (<u64>i8x16.bitmask(isZero)) << <u64>(t << 4);
    else zerosHigh = <u32>i8x16.bitmask(isZero);
    const suit = v128.andnot(v128.and(x, three), isZero);
    const inPlay = v128.not(isZero);
    s0 += popcnt(i8x16.bitmask(v128.and(i8x16.eq(suit, zero), inPlay)));
    s1 += popcnt(i8x16.bitmask(i8x16.eq(suit, v128.splat<i8>(1))));
    s2 += popcnt(i8x16.bitmask(i8x16.eq(suit, v128.splat<i8>(2))));
    s3 += popcnt(i8x16.bitmask(i8x16.eq(suit, three)));
  }
  let at = 0;
  for (let c = 0; c <= numColumns; c++) {
    // the next zero symbol at or after `at` (symbols 0..79: `zeros`, then `zerosHigh`)
    let end: i32;
    if (at < 64 && (zeros >> <u64>at) != 0) end = <i32>ctz(zeros >> <u64>at) + at;
    else end = <i32>ctz(zerosHigh >> <u32>(at < 64 ? 0 : at - 64)) + (at < 64 ? 64 : at);
    const n = end - at;
    const src = SYMBOLS + <usize>at;
    if (c == numColumns) {
      // the cells: the symbols up to the zero (at most MAX_CELLS = 8), the rest zeros
      store<u64>(p + OFF_CELLS, n >= 8 ? load<u64>(src) : load<u64>(src) & ((<u64>1 << <u64>(n << 3)) - 1));
      break;
    }
    const dst = p + OFF_CARDS + c * COLUMN_STRIDE;
    for (let i = 0; i < n; i += 16) v128.store(dst + i, v128.load(src + i));
    setColumnLength(p, c, n);
    at = end + 1;
  }
  store<u32>(p + OFF_FOUNDATIONS, <u32>(13 - s0) | (<u32>(13 - s1) << 8) | (<u32>(13 - s2) << 16) | (<u32>(13 - s3) << 24));
}

/** `decodeKey` symbol by symbol: the pooled game's decoder (and the reference the SIMD one was checked against). */
function decodeKeyScalar(key: usize, p: usize): void {
  let bit = 0;
  let present: u64 = 0;
  for (let c = 0; c < numColumns; c++) {
    let n = 0;
    const base = p + OFF_CARDS + c * COLUMN_STRIDE;
    while (true) {
      const sym = readSymbol(key, bit);
      bit += 6;
      if (sym == 0) break;
      store<u8>(base + n, sym);
      present |= (<u64>1) << <u64>sym;
      n++;
    }
    setColumnLength(p, c, n);
  }
  let i = 0;
  while (true) {
    const sym = readSymbol(key, bit);
    bit += 6;
    if (sym == 0) break;
    setCellCard(p, i, sym);
    present |= (<u64>1) << <u64>sym;
    i++;
  }
  for (; i < MAX_CELLS; i++) setCellCard(p, i, 0);
  if (pooledMode) {
    decodePooledFoundations(key, p);
    return;
  }
  // Foundations: every absent card is home; a suit's foundation ends below its lowest card in play.
  for (let s = 0; s < 4; s++) {
    let f = 13;
    for (let r = 1; r <= 13; r++) {
      if ((present >> <u64>(r * 4 + s)) & 1) {
        f = r - 1;
        break;
      }
    }
    setFoundation(p, s, f);
  }
}

const SYMBOL_COUNT: usize = memory.data(64);

/**
 * Pooled game: the foundations implied by a pooled key. For a pool whose
 * piles, ascending, hold h_1 <= h_2 <= ..., the cards of rank r in play
 * number c_r = #{i : h_i < r}, so h_i = (least r with c_r >= i) - 1 (13 when
 * there is none); pile i is the pool's i-th suit in suit order.
 */
function decodePooledFoundations(key: usize, p: usize): void {
  memory.fill(SYMBOL_COUNT, 0, 64);
  for (let bit = 0; bit < keyBytes * 8 - 5; bit += 6) {
    const sym = readSymbol(key, bit);
    if (sym != 0) store<u8>(SYMBOL_COUNT + sym, load<u8>(SYMBOL_COUNT + sym) + 1);
  }
  for (let s = 0; s < 4; s++) {
    const pool = poolOf(s);
    let index = 1; // s is the index-th suit of its pool
    for (let t = 0; t < s; t++) if (poolOf(t) == pool) index++;
    let f = 13;
    for (let r = 1; r <= 13; r++) {
      if (<i32>load<u8>(SYMBOL_COUNT + r * 4 + pool) >= index) {
        f = r - 1;
        break;
      }
    }
    setFoundation(p, s, f);
  }
}

/**
 * 32-bit hash of a key: each of its words (six, or seven with `wideKeys`)
 * times its own odd constant, summed, then a murmur3-style finalizer
 * (xor-shift, multiply).
 * The six products do not depend on each other, so they run side by side
 * (a chain of rounds would wait on each multiply). Only
 * the state table uses it (a slot's start and a first filter before the
 * full key comparison), so a collision costs time, never a wrong answer.
 */
export function hashKey(key: usize): u32 {
  let h = load<u64>(key) * 0x9e3779b185ebca87 +
    load<u64>(key, 8) * 0xc2b2ae3d27d4eb4f +
    load<u64>(key, 16) * 0x165667b19e3779f9 +
    load<u64>(key, 24) * 0x85ebca77c2b2ae63 +
    load<u64>(key, 32) * 0x27d4eb2f165667c5 +
    load<u64>(key, 40) * 0xff51afd7ed558ccd;
  if (wideKeys) h += load<u64>(key, 48) * 0x9fb21c651e98df25;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53;
  h ^= h >> 29;
  h *= 0xff51afd7ed558ccd;
  h ^= h >> 32;
  return <u32>h;
}

/** True when two keys of width K (records.ts Key48, Key56) are equal (full comparison, never the hash alone). */
// @ts-ignore: decorator
@inline export function keysEqualOf<K>(a: usize, b: usize): bool {
  return load<u64>(a) == load<u64>(b) &&
    load<u64>(a, 8) == load<u64>(b, 8) &&
    load<u64>(a, 16) == load<u64>(b, 16) &&
    load<u64>(a, 24) == load<u64>(b, 24) &&
    load<u64>(a, 32) == load<u64>(b, 32) &&
    load<u64>(a, 40) == load<u64>(b, 40) &&
    (offsetof<K>() == <usize>KEY_BYTES || load<u64>(a, 48) == load<u64>(b, 48));
}

/** True when two keys of this solve's width are equal (full comparison, never the hash alone). */
// @ts-ignore: decorator
@inline export function keysEqual(a: usize, b: usize): bool {
  return load<u64>(a) == load<u64>(b) &&
    load<u64>(a, 8) == load<u64>(b, 8) &&
    load<u64>(a, 16) == load<u64>(b, 16) &&
    load<u64>(a, 24) == load<u64>(b, 24) &&
    load<u64>(a, 32) == load<u64>(b, 32) &&
    load<u64>(a, 40) == load<u64>(b, 40) &&
    (!wideKeys || load<u64>(a, 48) == load<u64>(b, 48));
}

