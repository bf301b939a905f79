/**
 * Moves on positions, shared by the search (search.ts and its modules) and
 * the beam (beam.ts): which card builds on which (as masks), the top cards
 * of the columns, where each card lies, playing a packed move, and the
 * order-free position hash (the lazy phase's filter, seen.ts, and the beam's
 * duplicate sets).
 *
 * Everything here works on positions in raw memory (position.ts layout) in
 * any column order, under the rules in force (rules.ts); `prepareBoard`
 * fills the tables once the rules are set.
 */
import { numColumns, numCells, buildRule, wrapRanks, buildsOn, rankOf, suitOf } from './rules';
import {
  OFF_CARDS, OFF_LENGTHS, OFF_CELLS, COLUMN_STRIDE, columnLength, setColumnLength, cardAt, setCardAt, cellCard, setCellCard,
  copyCards, firstEmptyCell, sendHome, changedColumns,
} from './position';
import { MOVE_TO_FOUNDATION, MOVE_TO_CELL, MOVE_TO_EMPTY_COLUMN, moveCard, moveKind, moveOnto, moveCount } from './move';
import { SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION } from './output';

/** Fills the build masks for the rules in force and, once per instance, the hash terms (call after rules.ts `setRules`). */
export function prepareBoard(): void {
  fillBuildMasks();
  if (!zobristFilled) fillZobrist();
}

// ---------------------------------------------------------------------------
// Build masks

/**
 * Per card (0..63, rank << 2 | suit): the set of cards it builds on
 * (rules.ts `buildsOn`) as a 64-bit mask (bit = card byte), for the rules in
 * force. Refilled only when the build rule or the wrap changed.
 */
const BUILD_MASK: usize = memory.data(64 * 8);
/** The build rule and wrap BUILD_MASK was filled for (-1: not yet). */
let buildMaskRule: i32 = -1;

/** Fills BUILD_MASK from rules.ts `buildsOn` when the build rule or the wrap differ from the last fill. */
function fillBuildMasks(): void {
  const rule = buildRule * 2 + (wrapRanks ? 1 : 0);
  if (rule == buildMaskRule) return;
  buildMaskRule = rule;
  for (let a = 0; a < 64; a++) {
    let m: u64 = 0;
    if (rankOf(a) >= 1 && rankOf(a) <= 13) {
      for (let b = 4; b < 56; b++) if (buildsOn(a, b)) m |= (<u64>1) << <u64>b;
    }
    store<u64>(BUILD_MASK + (<usize>a << 3), m);
  }
}

/** The cards `card` builds on, as a mask (bit = card byte). */
// @ts-ignore: decorator
@inline export function buildMask(card: i32): u64 {
  return load<u64>(BUILD_MASK + (<usize>card << 3));
}

/** `buildsOn(card, below)` through the build masks. */
// @ts-ignore: decorator
@inline export function builds(card: i32, below: i32): bool {
  return ((buildMask(card) >> <u64>below) & 1) != 0;
}

/** Cards at the top of column `col` of `p` that form one movable sequence (each builds on the one under it). */
export function topRunLength(p: usize, col: i32): i32 {
  const n = columnLength(p, col);
  if (n == 0) return 0;
  let run = 1;
  while (run < n && builds(cardAt(p, col, n - run), cardAt(p, col, n - run - 1))) run++;
  return run;
}

/** Length of the natural sequence on the bottom of column `col` of `p` (`n` > 0 cards): cards from the deepest that build on each other. */
// @ts-ignore: decorator
@inline export function bottomRunLength(p: usize, col: i32, n: i32): i32 {
  let ok = 1;
  while (ok < n && builds(cardAt(p, col, ok), cardAt(p, col, ok - 1))) ok++;
  return ok;
}

// ---------------------------------------------------------------------------
// Top cards

/** Per card byte: the column whose top card it is, as `columnTops` last found it (only the cards of its mask are meaningful). */
const TOP_OWNER: usize = memory.data(64);

/**
 * The top cards of the columns of `p` as a mask (bit = card byte), each
 * card's column noted for `topOwner`. With a card's `buildMask` it gives the
 * columns a card can go on without a pass over every column. Outside the
 * pooled game only, where a card byte names one card.
 */
// @ts-ignore: decorator
@inline export function columnTops(p: usize): u64 {
  let tops: u64 = 0;
  for (let c = 0; c < numColumns; c++) {
    const m = columnLength(p, c);
    if (m > 0) {
      const top = cardAt(p, c, m - 1);
      store<u8>(TOP_OWNER + top, <u8>c);
      tops |= (<u64>1) << <u64>top;
    }
  }
  return tops;
}

/** The column whose top card is `card` in the position `columnTops` last read (`card` one of its mask's). */
// @ts-ignore: decorator
@inline export function topOwner(card: i32): i32 {
  return <i32>load<u8>(TOP_OWNER + <usize>card);
}

// ---------------------------------------------------------------------------
// Card places

/**
 * Where each card in play lies in the position whose cards were last placed
 * (the search's `measure`, heuristic.ts; the beam's expansion):
 * CARD_COLUMN[card] is its column, or IN_CELL for a free cell, and
 * CARD_INDEX[card] its index in the column (0 = deepest). Entries of cards
 * not in play are stale; the readers ask only for cards in play (or check
 * the card is where the entry says).
 */
const CARD_COLUMN: usize = memory.data(64);
const CARD_INDEX: usize = memory.data(64);
/** `cardColumn` of a card in a free cell. */
export const IN_CELL: i32 = 255;

/** Notes where the `n` cards of column `col` of `p` lie. */
// @ts-ignore: decorator
@inline export function placeColumn(p: usize, col: i32, n: i32): void {
  const base = p + OFF_CARDS + col * COLUMN_STRIDE;
  for (let i = 0; i < n; i++) {
    const card = <usize>load<u8>(base + i);
    store<u8>(CARD_COLUMN + card, <u8>col);
    store<u8>(CARD_INDEX + card, <u8>i);
  }
}

/** Notes the free-cell cards of `p` as in a cell (the entry of card 0, an empty cell, is never read). */
// @ts-ignore: decorator
@inline export function placeCells(p: usize): void {
  for (let i = 0; i < numCells; i++) store<u8>(CARD_COLUMN + <usize>cellCard(p, i), <u8>IN_CELL);
}

/** The column of `card` in the placed position, or IN_CELL. */
// @ts-ignore: decorator
@inline export function cardColumn(card: i32): i32 {
  return <i32>load<u8>(CARD_COLUMN + <usize>card);
}

/** The index of `card` in its column of the placed position (0 = deepest). */
// @ts-ignore: decorator
@inline export function cardIndex(card: i32): i32 {
  return <i32>load<u8>(CARD_INDEX + <usize>card);
}

// ---------------------------------------------------------------------------
// Playing moves

/** Moves the top `count` cards of column `from` onto column `to` of position `p`. */
// @ts-ignore: decorator
@inline export function moveRun(p: usize, from: i32, to: i32, count: i32): void {
  const n = columnLength(p, from);
  const m = columnLength(p, to);
  copyCards(p + OFF_CARDS + to * COLUMN_STRIDE + m, p + OFF_CARDS + from * COLUMN_STRIDE + n - count, count);
  setColumnLength(p, from, n - count);
  setColumnLength(p, to, m + count);
}

/**
 * Takes `count` cards (`card` the deepest) from the source (SOURCE_CELL or
 * SOURCE_COLUMN `srcIndex`) and puts them on the target (TARGET_FOUNDATION,
 * TARGET_CELL or TARGET_COLUMN `dstIndex`) of position `p`; both already
 * known to fit. Changes only the header and card bytes past a column's end,
 * so a saved header (position.ts `copyHeader`) undoes it.
 */
// @ts-ignore: decorator
@inline export function moveCards(p: usize, card: i32, count: i32, srcKind: i32, srcIndex: i32, dstKind: i32, dstIndex: i32): void {
  let liftedFrom: usize = 0;
  if (srcKind == SOURCE_CELL) {
    setCellCard(p, srcIndex, 0);
  } else {
    const n = columnLength(p, srcIndex) - count;
    setColumnLength(p, srcIndex, n);
    liftedFrom = p + OFF_CARDS + srcIndex * COLUMN_STRIDE + n;
  }
  if (dstKind == TARGET_FOUNDATION) {
    sendHome(p, card);
  } else if (dstKind == TARGET_CELL) {
    setCellCard(p, dstIndex, card);
  } else {
    const m = columnLength(p, dstIndex);
    if (srcKind == SOURCE_CELL) setCardAt(p, dstIndex, m, card);
    else copyCards(p + OFF_CARDS + dstIndex * COLUMN_STRIDE + m, liftedFrom, count);
    setColumnLength(p, dstIndex, m + count);
  }
}

/** Where the last `applyMove` took its cards from and put them: output.ts kinds, column or cell numbers of the position it played on. */
export let playedSrcKind: i32 = 0;
export let playedSrcIndex: i32 = 0;
export let playedDstKind: i32 = 0;
export let playedDstIndex: i32 = 0;

/**
 * Plays the packed move `move` on position `p` in whatever column order `p`
 * has: the source is found by the moved card, the target by the card under
 * it (or the first empty column or cell). Leaves the column and cell numbers
 * it used in played*. Returns false when the move does not fit `p`. Changes
 * only the header and card bytes past a column's end (see `moveCards`).
 */
export function applyMove(p: usize, move: u32): bool {
  const card = moveCard(move);
  const kind = moveKind(move);
  const onto = moveOnto(move);
  const count = moveCount(move);

  // Where is the card?
  let srcKind = -1;
  let srcIndex = -1;
  for (let i = 0; i < numCells; i++) {
    if (cellCard(p, i) == card) {
      srcKind = SOURCE_CELL;
      srcIndex = i;
    }
  }
  if (srcKind < 0) {
    for (let c = 0; c < numColumns; c++) {
      const n = columnLength(p, c);
      if (n >= count && cardAt(p, c, n - count) == card) {
        srcKind = SOURCE_COLUMN;
        srcIndex = c;
      }
    }
  }
  if (srcKind < 0) return false;

  let dstKind = 0;
  let dstIndex = -1;
  if (kind == MOVE_TO_FOUNDATION) {
    dstKind = TARGET_FOUNDATION;
    dstIndex = suitOf(card);
  } else if (kind == MOVE_TO_CELL) {
    dstKind = TARGET_CELL;
    dstIndex = firstEmptyCell(p);
  } else {
    dstKind = TARGET_COLUMN;
    for (let c = 0; c < numColumns && dstIndex < 0; c++) {
      if (c == srcIndex && srcKind == SOURCE_COLUMN) continue;
      const n = columnLength(p, c);
      if (kind == MOVE_TO_EMPTY_COLUMN ? n == 0 : n > 0 && cardAt(p, c, n - 1) == onto) dstIndex = c;
    }
  }
  if (dstIndex < 0) return false;

  moveCards(p, card, count, srcKind, srcIndex, dstKind, dstIndex);
  playedSrcKind = srcKind;
  playedSrcIndex = srcIndex;
  playedDstKind = dstKind;
  playedDstIndex = dstIndex;
  return true;
}

// ---------------------------------------------------------------------------
// Position hash

/**
 * Zobrist-style terms, one u64 per (card, what lies under it): index
 * card << 6 | below, `below` a card byte (4..55), BELOW_BOTTOM (the card is
 * its column's deepest) or BELOW_CELL (the card is in a free cell). A
 * position's hash is the XOR of the terms of its cards in the tableau and
 * the cells (`positionHash`). The pairs say which card lies on which, not in
 * which column or cell, so the hash is the same for every column and cell
 * order: a function of the canonical key (key.ts). Cards on the
 * foundations add no term (the rest determine them). Filled once
 * (splitmix64 from a fixed seed), so hashes are the same in every solve and
 * every instance. Outside the pooled game only (two pooled cards may share
 * a byte).
 */
const ZOBRIST: usize = memory.data(64 * 64 * 8, 16);
export const BELOW_BOTTOM: i32 = 0;
export const BELOW_CELL: i32 = 1;
let zobristFilled: bool = false;

function fillZobrist(): void {
  let x: u64 = 0x9e3779b97f4a7c15;
  for (let i = 0; i < 64 * 64; i++) {
    x += 0x9e3779b97f4a7c15;
    let z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    store<u64>(ZOBRIST + (<usize>i << 3), z ^ (z >> 31));
  }
  zobristFilled = true;
}

/** The hash term of `card` lying on `below` (a card byte, BELOW_BOTTOM or BELOW_CELL). */
// @ts-ignore: decorator
@inline export function zobristTerm(card: i32, below: i32): u64 {
  return load<u64>(ZOBRIST + ((<usize>(card << 6 | below)) << 3));
}

/** The term of the card at index `i` of column `c` of `p` (what lies under it: the card at i - 1, or the bottom). */
// @ts-ignore: decorator
@inline function cardTerm(p: usize, c: i32, i: i32): u64 {
  return zobristTerm(cardAt(p, c, i), i == 0 ? BELOW_BOTTOM : cardAt(p, c, i - 1));
}

/** The order-free hash of position `p` (see ZOBRIST): the XOR over its tableau and cell cards. */
export function positionHash(p: usize): u64 {
  let z: u64 = 0;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    for (let i = 0; i < n; i++) z ^= cardTerm(p, c, i);
  }
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    if (card != 0) z ^= zobristTerm(card, BELOW_CELL);
  }
  return z;
}

/**
 * `positionHash(p)`, placing every card of `p` on the way (`placeColumn`,
 * `placeCells`): one pass for a position about to be expanded.
 */
export function placeAndHash(p: usize): u64 {
  let z: u64 = 0;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    const base = p + OFF_CARDS + c * COLUMN_STRIDE;
    let below = BELOW_BOTTOM;
    for (let i = 0; i < n; i++) {
      const card = <i32>load<u8>(base + i);
      store<u8>(CARD_COLUMN + <usize>card, <u8>c);
      store<u8>(CARD_INDEX + <usize>card, <u8>i);
      z ^= zobristTerm(card, below);
      below = card;
    }
  }
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    store<u8>(CARD_COLUMN + <usize>card, <u8>IN_CELL);
    if (card != 0) z ^= zobristTerm(card, BELOW_CELL);
  }
  return z;
}

/** `movedCardHash`'s `to` for a card that went to its foundation (no term: foundations add none). */
export const BELOW_HOME: i32 = -1;

/**
 * The hash after `card`, with any cards on it, moved from lying on `from` to
 * lying on `to` (a card byte, BELOW_BOTTOM, BELOW_CELL or BELOW_HOME), from
 * the hash before: the one term that changes for a move no auto-move
 * followed (the cards on the moved card still lie on the same cards).
 */
// @ts-ignore: decorator
@inline export function movedCardHash(hash: u64, card: i32, from: i32, to: i32): u64 {
  const z = hash ^ zobristTerm(card, from);
  return to == BELOW_HOME ? z : z ^ zobristTerm(card, to);
}

/**
 * The hash of the child in `p`, made in place from a parent whose header
 * (position.ts: column lengths, cells, foundations) is at `header` and whose
 * hash is `parentHash`, by a move and the auto-moves after it: equal to
 * `positionHash(p)`. A move takes cards off the top of one column and puts
 * them on another, and auto-moves only take cards off, so each column of
 * the child is a prefix of the parent's column, or the parent's column with
 * cards put on (the same length means the same cards); the cards past the
 * shorter of the two lengths are the ones whose terms change, and their
 * bytes are still in place (a column's bytes past its length are left as
 * they were). Cells are compared slot by slot (moves and auto-moves keep the
 * other cells where they are).
 */
export function childHash(p: usize, header: usize, parentHash: u64): u64 {
  let z = parentHash;
  let changed = changedColumns(p, header);
  while (changed != 0) {
    const c = <i32>ctz(changed);
    changed &= changed - 1;
    const n = columnLength(p, c);
    const n0 = <i32>load<u8>(header + OFF_LENGTHS + c);
    const from = n < n0 ? n : n0;
    const to = n < n0 ? n0 : n;
    for (let i = from; i < to; i++) z ^= cardTerm(p, c, i);
  }
  const cells = load<u64>(p + OFF_CELLS);
  const cells0 = load<u64>(header + OFF_CELLS);
  if (cells != cells0) {
    for (let i = 0; i < numCells; i++) {
      const a = <i32>load<u8>(header + OFF_CELLS + i);
      const b = cellCard(p, i);
      if (a == b) continue;
      if (a != 0) z ^= zobristTerm(a, BELOW_CELL);
      if (b != 0) z ^= zobristTerm(b, BELOW_CELL);
    }
  }
  return z;
}
