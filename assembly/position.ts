/**
 * A decoded position in raw memory, and its safe auto-moves.
 *
 * Layout of a position at address `p` (POSITION_BYTES bytes):
 *
 *   0              18           26            30   32
 *   ┌──────────────┬────────────┬─────────────┬────┬──────────────────────────┐
 *   │ column       │ free cells │ foundations │    │ columns: MAX_COLUMNS x   │
 *   │ lengths      │ u8 x 8     │ u8 x 4      │    │ COLUMN_STRIDE card bytes,│
 *   │ u8 x 18      │ (card, or  │ (cards home │    │ deepest card first       │
 *   │              │ 0: empty)  │ per suit)   │    │                          │
 *   └──────────────┴────────────┴─────────────┴────┴──────────────────────────┘
 *   OFF_LENGTHS    OFF_CELLS    OFF_FOUNDATIONS    OFF_CARDS
 *
 * The header (the first OFF_CARDS = 32 bytes) stays two 16-byte words
 * whatever the column count: the lengths of columns 0..15 are the first
 * word, so a game of at most 16 columns compares lengths with one SIMD
 * compare (`changedColumns`, `emptyColumns`), and only a wider one (Fan's
 * 18) reads the two lengths in the second word too.
 *
 * A card byte is rank << 2 | suit (rules.ts), ranks relative to the
 * foundation base; bytes past a column's length are not part of the
 * position. The first OFF_CARDS bytes are the header: a move and the
 * auto-moves after it change the header and card bytes past a column's end
 * only, so a saved header undoes them (`copyHeader`). The canonical key of a
 * position is key.ts's.
 */import {
  numColumns, numCells, buildRule, sequenceRule, wrapRanks, rankOf, suitOf, isRed, SEQ_UNLIMITED, pooledMode, poolOf,
  BUILD_ALTERNATE_COLOR, BUILD_SUIT, BUILD_RANK, BUILD_SUIT_UP_OR_DOWN,
} from './rules';
import { writeMove, SOURCE_CELL, SOURCE_COLUMN, TARGET_FOUNDATION } from './output';

/** Most tableau columns (Fan's 18; client-sdk/core/rules.ts MAX_COLUMNS). */
export const MAX_COLUMNS: i32 = 18;
export const MAX_CELLS: i32 = 8;
export const COLUMN_STRIDE: i32 = 64;
export const OFF_LENGTHS: i32 = 0;
export const OFF_CELLS: i32 = 18;
export const OFF_FOUNDATIONS: i32 = 26;
export const OFF_CARDS: i32 = 32;
export const POSITION_BYTES: i32 = OFF_CARDS + MAX_COLUMNS * COLUMN_STRIDE;

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
 * The columns (bit c = column c, below 1 << numColumns) whose lengths differ
 * between the headers at `a` and `b` (positions or saved headers): one SIMD
 * compare of the first 16 lengths, and of the second header word only in a
 * game of more than 16 columns.
 */
// @ts-ignore: decorator
@inline export function changedColumns(a: usize, b: usize): u32 {
  let same = <u32>i8x16.bitmask(i8x16.eq(v128.load(a + OFF_LENGTHS), v128.load(b + OFF_LENGTHS)));
  if (numColumns > 16) same |= <u32>i8x16.bitmask(i8x16.eq(v128.load(a + OFF_LENGTHS, 16), v128.load(b + OFF_LENGTHS, 16))) << 16;
  return ~same & ((<u32>1 << <u32>numColumns) - 1);
}

/** The empty columns of the position or header at `p` (bit c = column c), as `changedColumns` reads the lengths. */
// @ts-ignore: decorator
@inline export function emptyColumns(p: usize): u32 {
  const zero = i8x16.splat(0);
  let empty = <u32>i8x16.bitmask(i8x16.eq(v128.load(p + OFF_LENGTHS), zero));
  if (numColumns > 16) empty |= <u32>i8x16.bitmask(i8x16.eq(v128.load(p + OFF_LENGTHS, 16), zero)) << 16;
  return empty & ((<u32>1 << <u32>numColumns) - 1);
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
 * - Cells and columns that take no card (a reserve, `emptyCell` none: King
 *   Albert; an emptied column that is never filled, `emptyColumn` none:
 *   Baker's Dozen, Good Measure): the solution built for the position with
 *   c home never fills a cell or column the old one did not, and has at
 *   least its empty ones, so the arguments above hold whatever an empty
 *   cell or column accepts (docs/proofs.md "Cells and columns that take no
 *   card", per game).
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
