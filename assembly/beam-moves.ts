/**
 * The beam's moves (beam.ts): listing the moves of a position with where
 * each goes, playing a listed one without a search, and playing a packed
 * move read back from a solution.
 *
 * Pruning (docs/search.md §2): the card moved last (a single card, no
 * auto-move after it) is not moved again at once (a move of it could have
 * been made from the position before: the "triangle" of two moves one move
 * replaces); only the first empty column and free cell are targets; a
 * column that is one sorted run is not moved into an empty column.
 */
import {
  numColumns, numCells, buildsOn, emptyColumnAccepts, sequenceCapacity, buildRule, wrapRanks, reserveCells, BUILD_ALTERNATE_COLOR, BUILD_SUIT,
  BUILD_RANK,
} from './rules';
import {
  columnLength, cardAt, cellCard, isSafeAutoMove, emptyCellCount, emptyColumnCount, firstEmptyColumn, fitsFoundation, applyAutoMoves,
} from './position';
import { writeMove, SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION } from './output';
import { buildMask, topRunLength, columnTops, topOwner, applyMove, moveCards, playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex } from './board';
import { MOVE_TO_FOUNDATION, MOVE_TO_CELL, MOVE_TO_EMPTY_COLUMN, MOVE_TO_CARD, packMove, moveCard, moveKind, moveCount } from './move';

/** Children one position can have (upper bound, generous). */
const MAX_CHILDREN: i32 = 512;
export const CHILD_MOVES: usize = memory.data(MAX_CHILDREN * 4);

/** Per child move: where it goes in the listed position (see `where`). */
export const CHILD_WHERE: usize = memory.data(MAX_CHILDREN * 4);

/** Stores packed move `move` (with its source and target `at`) as child move `k`; returns k + 1 (moves past MAX_CHILDREN are dropped). */
// @ts-ignore: decorator
@inline function putMove(k: i32, move: u32, at: u32): i32 {
  if (k >= MAX_CHILDREN) return k;
  store<u32>(CHILD_MOVES + (<usize>k << 2), move);
  store<u32>(CHILD_WHERE + (<usize>k << 2), at);
  return k + 1;
}

/**
 * Source and target of a listed move in its position, one u32, a byte
 * each: the source kind, its index, the target kind, its index (kinds as
 * output.ts SOURCE_* and TARGET_*; indices of columns 0..17, cells 0..7).
 */
// @ts-ignore: decorator
@inline function where(srcKind: i32, srcIndex: i32, dstKind: i32, dstIndex: i32): u32 {
  return <u32>srcKind | (<u32>srcIndex << 8) | (<u32>dstKind << 16) | (<u32>dstIndex << 24);
}

/** The source kind of a `where` word. */
// @ts-ignore: decorator
@inline export function whereSrcKind(at: u32): i32 {
  return <i32>(at & 255);
}
/** The source index (column or cell) of a `where` word. */
// @ts-ignore: decorator
@inline export function whereSrcIndex(at: u32): i32 {
  return <i32>((at >> 8) & 255);
}
/** The target kind of a `where` word. */
// @ts-ignore: decorator
@inline export function whereDstKind(at: u32): i32 {
  return <i32>((at >> 16) & 255);
}
/** The target index (column, cell or foundation) of a `where` word. */
// @ts-ignore: decorator
@inline export function whereDstIndex(at: u32): i32 {
  return <i32>(at >> 24);
}

/**
 * Plays packed move `move` on position `p` (any column order), finding the
 * card and the target by identity; with `emit` it is written to the solution
 * buffer with the real column and cell numbers of `p`. Returns false when
 * the move does not fit `p` (the card is not where it could move from, or
 * the target is missing).
 */
export function playPacked(p: usize, move: u32, emit: bool): bool {
  const card = moveCard(move);
  const kind = moveKind(move);
  const count = moveCount(move);
  // The checks a listed move passed when it was generated, which a move read
  // back from a solution must pass again: one card to a cell or a
  // foundation, and a foundation that takes it; applyMove does the rest.
  if (count < 1) return false;
  if (count != 1) {
    if (kind == MOVE_TO_FOUNDATION || kind == MOVE_TO_CELL) return false;
    for (let i = 0; i < numCells; i++) if (cellCard(p, i) == card) return false;
  }
  if (kind == MOVE_TO_FOUNDATION && !fitsFoundation(p, card)) return false;
  if (!applyMove(p, move)) return false;
  if (emit) writeMove(playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex, count, card, false);
  return true;
}

/**
 * Plays child move `m` of the last `listMoves` on `p` (that position): the
 * source and target are known, so nothing is searched for (playPacked finds
 * them by card identity instead, for replays).
 */
export function playListed(p: usize, m: i32): void {
  const move = load<u32>(CHILD_MOVES + (<usize>m << 2));
  const at = load<u32>(CHILD_WHERE + (<usize>m << 2));
  const card = moveCard(move);
  const count = moveCount(move);
  moveCards(p, card, count, whereSrcKind(at), whereSrcIndex(at), whereDstKind(at), whereDstIndex(at));
}

/**
 * The safe auto-moves after child move `at` (a `where` word) was played on a
 * position closed under auto-moves (every position the beam expands is: the
 * start and each child get applyAutoMoves): whether a card fits its
 * foundation and whether it is safe depend on the foundations only, so with
 * the foundations unchanged only the card the move exposed can newly go home.
 * A move to a foundation, or an exposed card that goes home, runs the full
 * applyAutoMoves; any other move changes nothing. Returns true when a card
 * moved (as applyAutoMoves).
 */
export function autoMovesAfter(p: usize, at: u32): bool {
  if (whereDstKind(at) == TARGET_FOUNDATION) return applyAutoMoves(p, false);
  if (whereSrcKind(at) != SOURCE_COLUMN) return false;
  const col = whereSrcIndex(at);
  const n = columnLength(p, col);
  if (n == 0) return false;
  const card = cardAt(p, col, n - 1);
  if (!fitsFoundation(p, card) || !isSafeAutoMove(p, card)) return false;
  return applyAutoMoves(p, false);
}

/** Cards at the top of column `col` that form one movable sequence (`fast`: through the build masks, else rules.ts buildsOn, the self-check's reference). */
function topRun(p: usize, col: i32, fast: bool): i32 {
  if (fast) return topRunLength(p, col);
  const n = columnLength(p, col);
  if (n == 0) return 0;
  let run = 1;
  while (run < n && buildsOn(cardAt(p, col, n - run), cardAt(p, col, n - run - 1))) run++;
  return run;
}

/**
 * Lists the moves of `p` as packed moves in CHILD_MOVES, in the order
 * foundation moves (cells, then columns), cell to column, column to column,
 * column to cell (none into a reserve). `repeat` is a card not to move (0: none). `fast` lets
 * builds on the rank above find targets through the top-card mask (board.ts
 * `columnTops`; the same moves in another order; false tries every column,
 * the self-check's reference).
 * Returns how many.
 */
export function listMoves(p: usize, repeat: i32, fast: bool): i32 {
  let k = 0;
  // a reserve's empty cells take no card (rules.ts `reserveCells`)
  const freeCells = reserveCells ? 0 : emptyCellCount(p);
  const emptyColumns = emptyColumnCount(p);
  const emptyTarget = firstEmptyColumn(p);
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    if (card != 0 && card != repeat && fitsFoundation(p, card)) k = putMove(k, packMove(card, MOVE_TO_FOUNDATION, 0, 1), where(SOURCE_CELL, i, TARGET_FOUNDATION, 0));
  }
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    if (n == 0) continue;
    const card = cardAt(p, c, n - 1);
    if (card != repeat && fitsFoundation(p, card)) k = putMove(k, packMove(card, MOVE_TO_FOUNDATION, 0, 1), where(SOURCE_COLUMN, c, TARGET_FOUNDATION, 0));
  }
  // Builds where a card goes on the rank above it only (no wrap): a run is
  // consecutive ranks, and a card can go on at most four top cards (the rank
  // above, each suit), found through the top-card mask instead of trying every column.
  const rankStep = fast && !wrapRanks && (buildRule == BUILD_ALTERNATE_COLOR || buildRule == BUILD_SUIT || buildRule == BUILD_RANK);
  // the top cards of the columns as a mask (bit = card), ANDed with a card's build mask
  const tops: u64 = rankStep ? columnTops(p) : 0;
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    if (card == 0 || card == repeat) continue;
    if (rankStep) {
      // the tops it builds on, in the order of their suits (as card numbers)
      let on = buildMask(card) & tops;
      while (on != 0) {
        const top = <i32>ctz(on);
        on &= on - 1;
        k = putMove(k, packMove(card, MOVE_TO_CARD, top, 1), where(SOURCE_CELL, i, TARGET_COLUMN, topOwner(top)));
      }
      if (emptyTarget >= 0 && emptyColumnAccepts(card)) k = putMove(k, packMove(card, MOVE_TO_EMPTY_COLUMN, 0, 1), where(SOURCE_CELL, i, TARGET_COLUMN, emptyTarget));
      continue;
    }
    for (let to = 0; to < numColumns; to++) {
      const m = columnLength(p, to);
      if (m > 0) {
        const top = cardAt(p, to, m - 1);
        if (buildsOn(card, top)) k = putMove(k, packMove(card, MOVE_TO_CARD, top, 1), where(SOURCE_CELL, i, TARGET_COLUMN, to));
      } else if (to == emptyTarget && emptyColumnAccepts(card)) {
        k = putMove(k, packMove(card, MOVE_TO_EMPTY_COLUMN, 0, 1), where(SOURCE_CELL, i, TARGET_COLUMN, to));
      }
    }
  }
  const capacityOnCard = sequenceCapacity(freeCells, emptyColumns);
  const capacityToEmpty = emptyColumns > 0 ? sequenceCapacity(freeCells, emptyColumns - 1) : 0;
  for (let from = 0; from < numColumns; from++) {
    const n = columnLength(p, from);
    if (n == 0) continue;
    const run = topRun(p, from, rankStep);
    if (rankStep) {
      const most = run < capacityOnCard ? run : capacityOnCard;
      for (let j = 1; j <= most; j++) {
        const card = cardAt(p, from, n - j);
        if (card == repeat) continue;
        // owner is never `from`: its top ranks at most `card`
        let on = buildMask(card) & tops;
        while (on != 0) {
          const top = <i32>ctz(on);
          on &= on - 1;
          k = putMove(k, packMove(card, MOVE_TO_CARD, top, j), where(SOURCE_COLUMN, from, TARGET_COLUMN, topOwner(top)));
        }
      }
      if (emptyTarget >= 0 && run < n) {
        // a column that is one sorted run is not moved into an empty column
        const most = run < capacityToEmpty ? run : capacityToEmpty;
        for (let j = 1; j <= most; j++) {
          const card = cardAt(p, from, n - j);
          if (card == repeat || !emptyColumnAccepts(card)) continue;
          k = putMove(k, packMove(card, MOVE_TO_EMPTY_COLUMN, 0, j), where(SOURCE_COLUMN, from, TARGET_COLUMN, emptyTarget));
        }
      }
      continue;
    }
    for (let to = 0; to < numColumns; to++) {
      if (to == from) continue;
      const m = columnLength(p, to);
      if (m > 0) {
        const top = cardAt(p, to, m - 1);
        const most = run < capacityOnCard ? run : capacityOnCard;
        for (let j = 1; j <= most; j++) {
          const card = cardAt(p, from, n - j);
          if (card == repeat || !buildsOn(card, top)) continue;
          k = putMove(k, packMove(card, MOVE_TO_CARD, top, j), where(SOURCE_COLUMN, from, TARGET_COLUMN, to));
        }
      } else if (to == emptyTarget && run < n) {
        // a column that is one sorted run is not moved into an empty column
        const most = run < capacityToEmpty ? run : capacityToEmpty;
        for (let j = 1; j <= most; j++) {
          const card = cardAt(p, from, n - j);
          if (card == repeat || !emptyColumnAccepts(card)) continue;
          k = putMove(k, packMove(card, MOVE_TO_EMPTY_COLUMN, 0, j), where(SOURCE_COLUMN, from, TARGET_COLUMN, to));
        }
      }
    }
  }
  if (freeCells > 0) {
    let cell = 0;
    while (cellCard(p, cell) != 0) cell++;
    for (let from = 0; from < numColumns; from++) {
      const n = columnLength(p, from);
      if (n == 0) continue;
      const card = cardAt(p, from, n - 1);
      if (card == repeat) continue;
      k = putMove(k, packMove(card, MOVE_TO_CELL, 0, 1), where(SOURCE_COLUMN, from, TARGET_CELL, cell));
    }
  }
  return k;
}

/** Order-free signature of the `k` listed child moves (move word and where word). */
export function movesSignature(k: i32): u64 {
  let sum: u64 = 0;
  for (let m = 0; m < k; m++) {
    let x = (<u64>load<u32>(CHILD_MOVES + (<usize>m << 2)) << 32) | <u64>load<u32>(CHILD_WHERE + (<usize>m << 2));
    x = (x ^ (x >> 31)) * 0x94d049bb133111eb;
    sum += x ^ (x >> 29);
  }
  return sum;
}
