/**
 * A decoded position in raw memory, its safe auto-moves, and its canonical key.
 *
 * Layout of a position at address `p` (POSITION_BYTES bytes):
 *
 *   offset  0: column lengths, u8 x 10
 *   offset 16: free cells, u8 x 8 (card byte or 0)
 *   offset 24: foundations, u8 x 4 (cards on each suit's foundation, relative)
 *   offset 32: columns, 10 x COLUMN_STRIDE bytes, deepest card first
 *
 * The canonical key is what makes two positions "the same" for the state
 * table: the order of the columns and of the free cells does not matter
 * (fc-solve and patsolve sort the same way; docs/search.md §3). Columns are
 * sorted by their deepest card (unique per non-empty column, so the order is
 * total), empty columns last; free cells are sorted by card. Foundations are
 * not stored: every card not in the tableau or a cell is on its foundation,
 * and foundations build in order, so the key determines them.
 *
 * Key encoding: a stream of 6-bit symbols, packed little-endian into
 * KEY_WORDS u64 words: for each column in canonical order its cards (card
 * bytes 4..55, deepest first) then a 0; then the free-cell cards in
 * descending order, then a 0. At most 52 cards + 10 + 1 zeros = 63 symbols =
 * 378 bits <= 384 = 6 words.
 */
import {
  numColumns, numCells, buildRule, sequenceRule, wrapRanks, rankOf, suitOf, isRed, SEQ_UNLIMITED, pooledMode, poolOf,
  BUILD_ALTERNATE_COLOR, BUILD_SUIT, BUILD_RANK, BUILD_SUIT_UP_OR_DOWN,
} from './rules';
import { writeMove, SOURCE_CELL, SOURCE_COLUMN, TARGET_FOUNDATION } from './output';

export const MAX_COLUMNS: i32 = 10;
export const MAX_CELLS: i32 = 8;
export const COLUMN_STRIDE: i32 = 64;
export const OFF_LENGTHS: i32 = 0;
export const OFF_CELLS: i32 = 16;
export const OFF_FOUNDATIONS: i32 = 24;
export const OFF_CARDS: i32 = 32;
export const POSITION_BYTES: i32 = OFF_CARDS + MAX_COLUMNS * COLUMN_STRIDE;
export const KEY_WORDS: i32 = 6;
export const KEY_BYTES: i32 = KEY_WORDS * 8;

// @ts-ignore: decorator
@inline export function columnLength(p: usize, col: i32): i32 {
  return load<u8>(p + OFF_LENGTHS + col);
}
// @ts-ignore: decorator
@inline export function setColumnLength(p: usize, col: i32, n: i32): void {
  store<u8>(p + OFF_LENGTHS + col, n);
}
// @ts-ignore: decorator
@inline export function cardAt(p: usize, col: i32, i: i32): i32 {
  return load<u8>(p + OFF_CARDS + col * COLUMN_STRIDE + i);
}
// @ts-ignore: decorator
@inline export function setCardAt(p: usize, col: i32, i: i32, card: i32): void {
  store<u8>(p + OFF_CARDS + col * COLUMN_STRIDE + i, card);
}
/** Exposed card of a column, 0 when empty. */
// @ts-ignore: decorator
@inline export function topCard(p: usize, col: i32): i32 {
  const n = columnLength(p, col);
  return n == 0 ? 0 : cardAt(p, col, n - 1);
}
// @ts-ignore: decorator
@inline export function cellCard(p: usize, i: i32): i32 {
  return load<u8>(p + OFF_CELLS + i);
}
// @ts-ignore: decorator
@inline export function setCellCard(p: usize, i: i32, card: i32): void {
  store<u8>(p + OFF_CELLS + i, card);
}
// @ts-ignore: decorator
@inline export function foundation(p: usize, suit: i32): i32 {
  return load<u8>(p + OFF_FOUNDATIONS + suit);
}
// @ts-ignore: decorator
@inline export function setFoundation(p: usize, suit: i32, n: i32): void {
  store<u8>(p + OFF_FOUNDATIONS + suit, n);
}

/**
 * Copies the header of a position (column lengths, free cells, foundations:
 * the OFF_CARDS = 32 bytes before the cards) with two 16-byte loads and
 * stores; `memory.copy` is a call into the runtime, which costs more for so
 * few bytes.
 */
// @ts-ignore: decorator
@inline export function copyHeader(dst: usize, src: usize): void {
  const low = v128.load(src);
  const high = v128.load(src, 16);
  v128.store(dst, low);
  v128.store(dst, high, 16);
}

/**
 * Copies `count` card bytes of a column from `src` to `dst` (neither range
 * overlapping the other) eight bytes at a time: up to 7 bytes past
 * `dst + count` are overwritten and as many past `src + count` read. Both
 * must lie in a column's COLUMN_STRIDE bytes, and the bytes written past the
 * end must lie past the end of the column (not part of the position).
 */
// @ts-ignore: decorator
@inline export function copyCards(dst: usize, src: usize, count: i32): void {
  for (let i = 0; i < count; i += 8) store<u64>(dst + i, load<u64>(src + i));
}

/** Copies a whole position. */
// @ts-ignore: decorator
@inline export function copyPosition(dst: usize, src: usize): void {
  memory.copy(dst, src, POSITION_BYTES);
}

/** True when every card is on the foundations. */
export function isWon(p: usize): bool {
  return load<u32>(p + OFF_FOUNDATIONS) == 0x0d0d0d0d;
}

/** Number of empty free cells. */
export function emptyCellCount(p: usize): i32 {
  let n = 0;
  for (let i = 0; i < numCells; i++) if (cellCard(p, i) == 0) n++;
  return n;
}

/** Number of empty columns. */
export function emptyColumnCount(p: usize): i32 {
  let n = 0;
  for (let c = 0; c < numColumns; c++) if (columnLength(p, c) == 0) n++;
  return n;
}

/** Index of the first empty free cell, or -1 when every cell holds a card. */
export function firstEmptyCell(p: usize): i32 {
  for (let i = 0; i < numCells; i++) if (cellCard(p, i) == 0) return i;
  return -1;
}

/** Index of the first empty column, or -1 when none is empty. */
export function firstEmptyColumn(p: usize): i32 {
  for (let c = 0; c < numColumns; c++) if (columnLength(p, c) == 0) return c;
  return -1;
}

/**
 * True when `card` is the next card of its suit's foundation; in the pooled
 * game, of one of its pool's piles (`pooledPile`).
 */
// @ts-ignore: decorator
@inline export function fitsFoundation(p: usize, card: i32): bool {
  if (pooledMode) return pooledPile(p, card) >= 0;
  return foundation(p, suitOf(card)) + 1 == rankOf(card);
}

/**
 * Pooled game: the pile (a suit slot of the card's pool) a pooled card of
 * relative rank r goes on: the last of the pool's piles, in suit order, that
 * holds r - 1, or -1 when none does. The piles of a pool are kept ascending
 * in suit order, so the pile after it holds at least r and raising this one
 * to r keeps them ascending (the pool's foundations as a sorted multiset).
 */
export function pooledPile(p: usize, card: i32): i32 {
  const below = rankOf(card) - 1;
  const pool = suitOf(card);
  let pile = -1;
  for (let t = 0; t < 4; t++) if (poolOf(t) == pool && foundation(p, t) == below) pile = t;
  return pile;
}

/** Puts `card` (which fits, see `fitsFoundation`) on its foundation: its suit's, or in the pooled game its pile. */
// @ts-ignore: decorator
@inline export function sendHome(p: usize, card: i32): void {
  setFoundation(p, pooledMode ? pooledPile(p, card) : suitOf(card), rankOf(card));
}

/**
 * True when moving `card` (which fits its foundation) there can never lose a
 * solution. The argument, per build rule (docs/search.md §3 collects the
 * sources; the proofs below are ours):
 *
 * A card c of relative rank r can only matter in the tableau as a base for
 * the cards that build on it. If every card that could ever be placed on c
 * either is already home or could go home itself at the moment it would be
 * placed on c, then any solution from the position with c in play turns into
 * one from the position with c home: drop every move of c, send each card the
 * old solution put on c home instead (its foundation is ready by then), drop
 * later moves of those cards, and shorten sequence moves that carried them.
 * Every other card stands where it stood, cells and columns are at least as
 * free, so every remaining move stays legal and the end is still won.
 *
 * - `suit` (no wrap): only r-1 of c's suit builds on c, and it is home. Safe.
 * - `suit_up_or_down` (Fortress, no wrap): r-1 of c's suit is home; r+1 of c's
 *   suit can go home right after c, and so can r+2 placed on r+1, and so on
 *   (each joins a consecutive run r, r+1, ... of c's suit). Safe.
 * - `alternate_color`: r <= 2 (nothing builds on an Ace; the Aces that could
 *   build on a 2 can always go home), or both opposite-colour foundations
 *   hold r-1 (Horne's rule; patsolve `good_automove`): nothing can build on c.
 * - `rank` (any suit): every other foundation holds at least r-2. Each r-1
 *   card that could build on c can then go home, and nothing could build on
 *   it, since every r-2 is home (Solvitaire `other_within_2`).
 * - With wrapping ranks the base card (relative 1) can hold relative 13,
 *   which is never ready for the foundation, so it is not auto-moved; other
 *   cards follow the same-suit arguments. Other builds with wrap: none.
 * - The arguments send the cards that build on c home one at a time. A
 *   sequence move under `supermove` or `cells_plus_one` is a shortcut for
 *   single-card moves, so it changes nothing; under `unlimited` it is not:
 *   with `suit_up_or_down` a whole ascending run r+1, r+2, ... can be put on
 *   c at once, and with c home that run may have nowhere to go (found by the
 *   independent proof checker). So that pairing gets no auto-moves. In the
 *   other builds the card that would head such a run is home already, or
 *   nothing can sit on it, so runs there have length one.
 */
// @ts-ignore: decorator
@inline export function isSafeAutoMove(p: usize, card: i32): bool {
  const r = rankOf(card);
  const s = suitOf(card);
  // The pooled game (`rank` build only): no auto-move for a card of a pool of
  // two suits or more; a card of a suit pooled with none goes home by the
  // rank rule below over every pile (docs/proofs.md, "Pooled certificates").
  if (pooledMode) {
    for (let t = 0; t < 4; t++) if (t != s && poolOf(t) == s) return false;
  }
  if (buildRule == BUILD_SUIT_UP_OR_DOWN && sequenceRule == SEQ_UNLIMITED) return false;
  if (wrapRanks) {
    if (r == 1) return false;
    return buildRule == BUILD_SUIT || buildRule == BUILD_SUIT_UP_OR_DOWN;
  }
  if (buildRule == BUILD_SUIT || buildRule == BUILD_SUIT_UP_OR_DOWN) return true;
  if (buildRule == BUILD_ALTERNATE_COLOR) {
    if (r <= 2) return true;
    const red = isRed(card);
    for (let t = 0; t < 4; t++) {
      if (isRed(t) != red && foundation(p, t) < r - 1) return false;
    }
    return true;
  }
  if (buildRule == BUILD_RANK) {
    for (let t = 0; t < 4; t++) {
      if (t != s && foundation(p, t) < r - 2) return false;
    }
    return true;
  }
  return false;
}

/**
 * Applies safe auto-moves until none is left. When `emit` is set, each one is
 * written to the solution buffer (used while rebuilding a solution).
 * Returns true when at least one card moved.
 * The closure does not depend on the order: foundations only grow, so a card
 * that is safe stays safe and stays exposed until it moves.
 */
export function applyAutoMoves(p: usize, emit: bool): bool {
  if (!pooledMode) {
    if (!emit) return applyAutoMovesByMasks(p);
    // the solution's replay: most moves leave no card that fits a foundation
    // on top of a column or in a cell, and then the passes below move nothing
    if (!exposedCardFits(p)) return false;
  }
  let any = false;
  let moved = true;
  while (moved) {
    moved = false;
    for (let i = 0; i < numCells; i++) {
      const card = cellCard(p, i);
      if (card != 0 && fitsFoundation(p, card) && isSafeAutoMove(p, card)) {
        setCellCard(p, i, 0);
        sendHome(p, card);
        if (emit) writeMove(SOURCE_CELL, i, TARGET_FOUNDATION, suitOf(card), 1, card, true);
        moved = true;
        any = true;
      }
    }
    for (let c = 0; c < numColumns; c++) {
      let n = columnLength(p, c);
      while (n > 0) {
        const card = cardAt(p, c, n - 1);
        if (!fitsFoundation(p, card) || !isSafeAutoMove(p, card)) break;
        n--;
        setColumnLength(p, c, n);
        sendHome(p, card);
        if (emit) writeMove(SOURCE_COLUMN, c, TARGET_FOUNDATION, suitOf(card), 1, card, true);
        moved = true;
        any = true;
      }
    }
  }
  return any;
}

/**
 * Whether some card on top of a column or in a free cell of `p` is the next
 * card of its suit's foundation (outside the pooled game, where a card byte
 * names one card): the 4 next foundation cards as bits of a u64 against the
 * column tops and cell cards. When none is, no auto-move can be made, so
 * `applyAutoMoves` returns at once with the position unchanged (the moves it
 * writes while a solution is replayed are the same).
 */
// @ts-ignore: decorator
@inline function exposedCardFits(p: usize): bool {
  let next: u64 = 0;
  for (let s = 0; s < 4; s++) {
    const rank = foundation(p, s) + 1;
    if (rank <= 13) next |= (<u64>1) << <u64>((rank << 2) | s);
  }
  let exposed: u64 = 0;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    if (n > 0) exposed |= (<u64>1) << <u64>cardAt(p, c, n - 1);
  }
  for (let i = 0; i < numCells; i++) exposed |= (<u64>1) << <u64>cellCard(p, i);
  return (exposed & next) != 0;
}

/** Per card byte: the column whose top card it is, in `applyAutoMovesByMasks` (only cards of its top mask are read). */
const AUTO_TOP_OWNER: usize = memory.data(64);

/**
 * `applyAutoMoves` without writing the moves, outside the pooled game (where
 * every card byte names one card): the same closure, found through masks
 * instead of passes over every cell and column until one moves nothing. The
 * top cards of the columns and the cards in the cells are gathered once as
 * bits of a u64 (bit = card byte); then each suit's next foundation card
 * goes home while it is among them and safe (`isSafeAutoMove`), and the card
 * it uncovers joins the tops. The closure does not depend on the order (see
 * `applyAutoMoves`), so the position is the same byte for byte: the same
 * column lengths, cells emptied in place, the same foundations. Returns true
 * when at least one card moved.
 */
function applyAutoMovesByMasks(p: usize): bool {
  let tops: u64 = 0;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    if (n > 0) {
      const top = cardAt(p, c, n - 1);
      store<u8>(AUTO_TOP_OWNER + <usize>top, <u8>c);
      tops |= (<u64>1) << <u64>top;
    }
  }
  let cells: u64 = 0;
  for (let i = 0; i < numCells; i++) cells |= (<u64>1) << <u64>cellCard(p, i);
  cells &= ~(<u64>1); // card byte 0: an empty cell
  let any = false;
  let moved = true;
  while (moved) {
    moved = false;
    for (let s = 0; s < 4; s++) {
      const f = foundation(p, s);
      if (f >= 13) continue;
      const card = ((f + 1) << 2) | s;
      const bit = (<u64>1) << <u64>card;
      if (((tops | cells) & bit) == 0 || !isSafeAutoMove(p, card)) continue;
      if (cells & bit) {
        for (let i = 0; i < numCells; i++) {
          if (cellCard(p, i) == card) {
            setCellCard(p, i, 0);
            break;
          }
        }
        cells &= ~bit;
      } else {
        const c = <i32>load<u8>(AUTO_TOP_OWNER + <usize>card);
        const n = columnLength(p, c) - 1;
        setColumnLength(p, c, n);
        tops &= ~bit;
        if (n > 0) {
          const top = cardAt(p, c, n - 1);
          store<u8>(AUTO_TOP_OWNER + <usize>top, <u8>c);
          tops |= (<u64>1) << <u64>top;
        }
      }
      sendHome(p, card);
      moved = true;
      any = true;
    }
  }
  return any;
}

// ---------------------------------------------------------------------------
// Canonical key

const COLUMN_ORDER: usize = memory.data(16);
const COLUMN_SORT_KEYS: usize = memory.data(16);
const CELL_SORT: usize = memory.data(16);

/** Sort key of a column for the canonical order: its deepest card, empty columns last. */
// @ts-ignore: decorator
@inline function columnSortKey(p: usize, col: i32): i32 {
  return columnLength(p, col) == 0 ? 255 : cardAt(p, col, 0);
}

/**
 * Writes the canonical order of the columns of `p` into COLUMN_ORDER (insertion
 * sort: at most 10 columns) and returns its address.
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
 * The symbols of a key as bytes, for `encodeKey`: at most 63 used, then
 * room for the 16-byte stores that run past them (128 bytes in all).
 */
const KEY_SYMBOLS: usize = memory.data(128, 16);

/**
 * Packs the 64 symbol bytes at KEY_SYMBOLS (each below 64) into the
 * KEY_BYTES = 48 bytes of a key at `out`, 6 bits each, the first in the
 * lowest bits: per 32-bit lane four bytes into 24 bits, then the three low
 * bytes of the four lanes gathered into 12 (`i8x16.swizzle`). Writes only
 * the 48 bytes at `out`.
 */
// @ts-ignore: decorator
@inline function packKeySymbols(out: usize): void {
  const gather = i8x16(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
  for (let t = 0; t < 4; t++) {
    const x = v128.load(KEY_SYMBOLS + <usize>(t << 4));
    const y = v128.or(
      v128.or(v128.and(x, i32x4.splat(0x3f)), v128.and(i32x4.shr_u(x, 2), i32x4.splat(0xfc0))),
      v128.or(v128.and(i32x4.shr_u(x, 4), i32x4.splat(0x3f000)), v128.and(i32x4.shr_u(x, 6), i32x4.splat(0xfc0000))),
    );
    const z = i8x16.swizzle(y, gather);
    if (t < 3) {
      // bytes 12..15 of this store are zero and overwritten by the next group
      v128.store(out + <usize>(t * 12), z);
    } else {
      store<u64>(out + 36, i64x2.extract_lane(z, 0));
      store<u32>(out + 44, i32x4.extract_lane(z, 2));
    }
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
 * `encodeKeySorted`. Same bytes either way (checked on nine presets against
 * the sorting encoder, docs/engine.md).
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
 * symbol, all packed into the key at `out` (`packKeySymbols`).
 */
// @ts-ignore: decorator
@inline function finishKeySymbols(p: usize, columnsEnd: usize, empties: i32, out: usize): void {
  const zero = v128.splat<i8>(0);
  let at = columnsEnd;
  v128.store(at, zero);
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
  // the cells' 0 and the rest of the 64 symbols
  v128.store(at, zero);
  v128.store(at, zero, 16);
  v128.store(at, zero, 32);
  v128.store(at, zero, 48);
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
  const end = out + KEY_BYTES;
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
 * order), `header` the parent's header (its column lengths, as search.ts's
 * SAVED_HEADER). The caller guarantees that precondition; it is not checked.
 *
 * A move and the auto-moves after it take cards only off a column's top and
 * put them on another's, so a column that was not empty keeps its deepest
 * card or empties: the non-empty columns are still in canonical order in
 * their physical order, and the key needs no sort (no `ctz` over the
 * deepest cards, as `encodeKey`). When a column that was empty in the
 * parent holds cards now, its deepest card may belong anywhere in the
 * order: the key is then encoded by `encodeKey` (`childKeySpliced` false,
 * found by one SIMD compare of the two headers' lengths).
 * Not for the pooled game (two pooled columns may share a deepest card byte).
 */
export function encodeChildKey(p: usize, header: usize, out: usize): void {
  const zero = v128.splat<i8>(0);
  const filled = v128.andnot(i8x16.eq(v128.load(header), zero), i8x16.eq(v128.load(p + OFF_LENGTHS), zero));
  if ((i8x16.bitmask(filled) & ((1 << numColumns) - 1)) != 0) {
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
 * The symbols of a key as bytes (`decodeKey`): 64 bytes, then 64 bytes of
 * slack that the 16-byte copies of a column may read.
 */
const SYMBOLS: usize = memory.data(128, 16);

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
  for (let bit = 0; bit < KEY_BYTES * 8 - 5; bit += 6) {
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
 * 32-bit hash of a key: each of the KEY_WORDS words times its own odd
 * constant, summed, then a murmur3-style finalizer (xor-shift, multiply).
 * The six products do not depend on each other, so they run side by side,
 * where the earlier xxHash64-style rounds were one chain of multiplies. Only
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
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53;
  h ^= h >> 29;
  h *= 0xff51afd7ed558ccd;
  h ^= h >> 32;
  return <u32>h;
}

/** True when two keys are equal (full comparison, never the hash alone). */
// @ts-ignore: decorator
@inline export function keysEqual(a: usize, b: usize): bool {
  return load<u64>(a) == load<u64>(b) &&
    load<u64>(a, 8) == load<u64>(b, 8) &&
    load<u64>(a, 16) == load<u64>(b, 16) &&
    load<u64>(a, 24) == load<u64>(b, 24) &&
    load<u64>(a, 32) == load<u64>(b, 32) &&
    load<u64>(a, 40) == load<u64>(b, 40);
}

