/**
 * The beam's cost of a position (beam.ts), its goal test and the finish of
 * a goal position.
 *
 * - Cost, no g term: cards not home, cards above the sorted run at the
 *   bottom of their column, occupied free cells, empty columns (a bonus,
 *   subtracted) and blockers (the cards above each suit's next foundation
 *   card), each weighed by `setBeamWeights`; clamped into NUM_BINS bins.
 * - Goal: every column strictly decreasing in rank from bottom to top. Then
 *   the lowest card in play of any suit is exposed (everything below it in
 *   its column is higher), so playing the lowest playable card home, one at
 *   a time, always finishes (`finish`); those moves are counted unless they
 *   are safe auto-moves.
 *
 * A child's cost comes from its parent's per-column runs and totals
 * (`measureParent`) and the columns the move changed (`childCostQuick`,
 * `childCost`); `costFromScratch` is the self-check's reference.
 */
import { numColumns, numCells, rankOf, suitOf, buildsOn } from './rules';
import { MAX_COLUMNS, columnLength, cardAt, cellCard, foundation, isWon, emptyCellCount, fitsFoundation, applyAutoMoves } from './position';
import { SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION } from './output';
import { builds, cardColumn, cardIndex, IN_CELL, movedCardHash, BELOW_BOTTOM, BELOW_CELL, BELOW_HOME } from './board';
import { MOVE_TO_FOUNDATION, packMove, moveCard, moveCount } from './move';
import { playPacked, whereSrcKind, whereSrcIndex, whereDstKind, whereDstIndex } from './beam-moves';

/** Cost bins of a level. */
export const NUM_BINS: i32 = 2048;

/** The cost weights of the next beams (`setBeamWeights`). */
let wNotHome: i32 = 1;
let wUnsorted: i32 = 1;
let wCells: i32 = 1;
let wEmpty: i32 = 0;
let wBlockers: i32 = 0;

/**
 * Sets the cost weights of the next beams (defaults 1, 1, 1, 0, 0): cards not
 * home, cards above the sorted run at the bottom of their column, occupied
 * free cells, empty columns (a bonus, subtracted), and blockers (the cards
 * above each suit's next foundation card in its column, summed over suits).
 */
export function setBeamWeights(notHome: i32, unsorted: i32, cells: i32, empty: i32, blockers: i32): void {
  wNotHome = notHome;
  wUnsorted = unsorted;
  wCells = cells;
  wEmpty = empty;
  wBlockers = blockers;
}

// ---------------------------------------------------------------------------
// The measured position

// Per column of the position being expanded: the length of its sorted run
// from the bottom (each card builds on the one below), and of its run of
// strictly falling ranks from the bottom. A child changes only the move's
// target column by adding cards; every other column only loses top cards
// (the move's source, auto-moves), and a column that loses cards keeps
// min(run, new length) of its run. So a child's cost and goal test take
// one pass over the target column instead of all cards.
const SORTED_RUN: usize = memory.data(MAX_COLUMNS);
const FALLING_RUN: usize = memory.data(MAX_COLUMNS);
const PARENT_LENGTHS: usize = memory.data(MAX_COLUMNS);

// The measured position's totals of the cost terms, for childCostQuick.
let parentHome: i32 = 0;
let parentUnsorted: i32 = 0;
let parentUnfallen: i32 = 0;
let parentEmpty: i32 = 0;
let parentCells: i32 = 0;
let parentBlockers: i32 = 0;

/** Per suit of the measured position: the column holding its next foundation card (255: a free cell, or the suit is complete), and the card's index there. */
const NEXT_COLUMN: usize = memory.data(4);
const NEXT_INDEX: usize = memory.data(4);

/**
 * Blockers of `p`: for each suit whose next foundation card (one above its
 * foundation) lies in a column, the cards above it there. Those cards must
 * all move before that card can go home. With `record`, the card's column and
 * index per suit go to NEXT_COLUMN and NEXT_INDEX.
 */
function blockersOf(p: usize, record: bool): i32 {
  let total = 0;
  let wanted: u64 = 0;
  for (let s = 0; s < 4; s++) {
    if (record) store<u8>(NEXT_COLUMN + s, 255);
    const r = foundation(p, s) + 1;
    if (r <= 13) wanted |= (<u64>1) << <u64>((r << 2) | s);
  }
  for (let c = 0; c < numColumns && wanted != 0; c++) {
    const n = columnLength(p, c);
    for (let i = 0; i < n; i++) {
      const card = cardAt(p, c, i);
      if (((wanted >> <u64>card) & 1) == 0) continue;
      wanted &= ~((<u64>1) << <u64>card);
      total += n - 1 - i;
      if (record) {
        store<u8>(NEXT_COLUMN + suitOf(card), c);
        store<u8>(NEXT_INDEX + suitOf(card), i);
      }
    }
  }
  return total;
}

/**
 * blockersOf(p, true) for the position whose cards board.ts `placeAndHash`
 * just placed (board.ts `cardColumn`, `cardIndex`: where each card in play lies)
 * instead of a scan of the columns.
 */
function blockersMeasured(p: usize): i32 {
  let total = 0;
  for (let s = 0; s < 4; s++) {
    store<u8>(NEXT_COLUMN + s, 255);
    const r = foundation(p, s) + 1;
    if (r > 13) continue;
    const card = (r << 2) | s;
    const c = cardColumn(card);
    if (c == IN_CELL) continue;
    const i = cardIndex(card);
    // a stale entry (the card is home: a wrapping game's complete suit) is no card in a column
    if (i >= columnLength(p, c) || cardAt(p, c, i) != card) continue;
    store<u8>(NEXT_COLUMN + s, c);
    store<u8>(NEXT_INDEX + s, i);
    total += columnLength(p, c) - 1 - i;
  }
  return total;
}

/**
 * Fills SORTED_RUN, FALLING_RUN and PARENT_LENGTHS for the position `p` about
 * to be expanded, and its totals: cards home, cards above the sorted runs,
 * columns that do not fall strictly in rank, empty columns, occupied cells
 * (after board.ts `placeAndHash` of it, whose card places the blockers read).
 */
export function measureParent(p: usize): void {
  let unsorted = 0;
  let unfallen = 0;
  let empty = 0;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    store<u8>(PARENT_LENGTHS + c, n);
    let ok = n == 0 ? 0 : 1;
    while (ok < n && builds(cardAt(p, c, ok), cardAt(p, c, ok - 1))) ok++;
    store<u8>(SORTED_RUN + c, ok);
    let fall = n == 0 ? 0 : 1;
    while (fall < n && rankOf(cardAt(p, c, fall)) < rankOf(cardAt(p, c, fall - 1))) fall++;
    store<u8>(FALLING_RUN + c, fall);
    unsorted += n - ok;
    if (fall < n) unfallen++;
    if (n == 0) empty++;
  }
  let home = 0;
  for (let s = 0; s < 4; s++) home += foundation(p, s);
  parentHome = home;
  parentUnsorted = unsorted;
  parentUnfallen = unfallen;
  parentEmpty = empty;
  parentCells = numCells - emptyCellCount(p);
  parentBlockers = wBlockers != 0 ? blockersMeasured(p) : 0;
}

// ---------------------------------------------------------------------------
// Children

/** Set by `childCost` and `childCostQuick`: every column of the child falls strictly in rank (the goal: see the file comment). */
export let childSorted: bool = false;

/**
 * The position hash (board.ts) of the child `p` of the measured position,
 * whose hash is `parentHash`, reached by child move `move` at `at` (a
 * beam-moves.ts `where` word) with no auto-move after it: only the moved
 * card lies on something else now. What it lay on is still in place under
 * it in the source column (which only lost cards); what it lies on now is
 * the target column's old top card (the measured lengths, PARENT_LENGTHS).
 */
export function childMoveHash(p: usize, parentHash: u64, move: u32, at: u32): u64 {
  const card = moveCard(move);
  const srcKind = whereSrcKind(at);
  const srcIndex = whereSrcIndex(at);
  const dstKind = whereDstKind(at);
  const dstIndex = whereDstIndex(at);
  let from = BELOW_CELL;
  if (srcKind == SOURCE_COLUMN) {
    const i = <i32>load<u8>(PARENT_LENGTHS + srcIndex) - moveCount(move);
    from = i == 0 ? BELOW_BOTTOM : cardAt(p, srcIndex, i - 1);
  }
  let to = BELOW_HOME;
  if (dstKind == TARGET_CELL) {
    to = BELOW_CELL;
  } else if (dstKind == TARGET_COLUMN) {
    const m = <i32>load<u8>(PARENT_LENGTHS + dstIndex);
    to = m == 0 ? BELOW_BOTTOM : cardAt(p, dstIndex, m - 1);
  }
  return movedCardHash(parentHash, card, from, to);
}

/**
 * childCost for a child of the measured position reached by child move
 * `move` at `at` (a `where` word) with no auto-move after it: the parent's
 * totals with the terms of the one or two columns the move touched replaced
 * (the same value as childCost; sets childSorted).
 */
export function childCostQuick(p: usize, move: u32, at: u32): i32 {
  const count = moveCount(move);
  const card = moveCard(move);
  const srcKind = whereSrcKind(at);
  const srcIndex = whereSrcIndex(at);
  const dstKind = whereDstKind(at);
  const dstIndex = whereDstIndex(at);
  let home = parentHome;
  let unsorted = parentUnsorted;
  let unfallen = parentUnfallen;
  let empty = parentEmpty;
  let cells = parentCells;
  let blockers = parentBlockers;
  if (wBlockers != 0 && dstKind != TARGET_FOUNDATION) {
    // A suit's next card keeps the cards above it when it moves with them (or
    // alone, to a cell or from one); it loses `count` when they leave from
    // above it and gains `count` when they land on its column.
    for (let s = 0; s < 4; s++) {
      const c = <i32>load<u8>(NEXT_COLUMN + s);
      if (c == 255) continue;
      if (srcKind == SOURCE_COLUMN && c == srcIndex && <i32>load<u8>(NEXT_INDEX + s) < <i32>load<u8>(PARENT_LENGTHS + c) - count) blockers -= count;
      else if (dstKind == TARGET_COLUMN && c == dstIndex) blockers += count;
    }
  }
  if (srcKind == SOURCE_CELL) {
    cells--;
  } else {
    const n = <i32>load<u8>(PARENT_LENGTHS + srcIndex);
    const ok = <i32>load<u8>(SORTED_RUN + srcIndex);
    const fall = <i32>load<u8>(FALLING_RUN + srcIndex);
    const n2 = n - count;
    const ok2 = ok < n2 ? ok : n2;
    const fall2 = fall < n2 ? fall : n2;
    unsorted += (n2 - ok2) - (n - ok);
    unfallen += (fall2 < n2 ? 1 : 0) - (fall < n ? 1 : 0);
    if (n2 == 0) empty++;
  }
  if (dstKind == TARGET_FOUNDATION) {
    home++;
  } else if (dstKind == TARGET_CELL) {
    cells++;
  } else {
    const c = dstIndex;
    const before = <i32>load<u8>(PARENT_LENGTHS + c);
    const n = before + count;
    let ok = <i32>load<u8>(SORTED_RUN + c);
    let fall = <i32>load<u8>(FALLING_RUN + c);
    unsorted -= before - ok;
    if (fall < before) unfallen--;
    if (before == 0) empty--;
    if (ok >= before) while (ok < n && builds(cardAt(p, c, ok), cardAt(p, c, ok - 1))) ok++;
    if (ok == 0) {
      ok = 1;
      while (ok < n && builds(cardAt(p, c, ok), cardAt(p, c, ok - 1))) ok++;
    }
    if (fall >= before) while (fall < n && rankOf(cardAt(p, c, fall)) < rankOf(cardAt(p, c, fall - 1))) fall++;
    if (fall == 0) {
      fall = 1;
      while (fall < n && rankOf(cardAt(p, c, fall)) < rankOf(cardAt(p, c, fall - 1))) fall++;
    }
    unsorted += n - ok;
    if (fall < n) unfallen++;
  }
  childSorted = unfallen == 0;
  // A foundation move takes the suit's next card (a top card or a cell's:
  // nothing above it) home: the other suits' next cards in its column lose
  // it from above them, and the suit's new next card (where the placed cards put
  // it; `p` is the child) adds the cards above it.
  if (wBlockers != 0 && dstKind == TARGET_FOUNDATION) {
    const suit = suitOf(card);
    if (srcKind == SOURCE_COLUMN) {
      for (let s = 0; s < 4; s++) if (s != suit && <i32>load<u8>(NEXT_COLUMN + s) == srcIndex) blockers--;
    }
    const r = rankOf(card) + 1;
    if (r <= 13) {
      const next = (r << 2) | suit;
      const c = cardColumn(next);
      if (c != IN_CELL) {
        const i = cardIndex(next);
        const n = columnLength(p, c);
        if (i < n && cardAt(p, c, i) == next) blockers += n - 1 - i;
      }
    }
  }
  const v = (52 - home) * wNotHome + unsorted * wUnsorted + cells * wCells - empty * wEmpty + blockers * wBlockers + 64;
  return v < 0 ? 0 : v >= NUM_BINS ? NUM_BINS - 1 : v;
}

/**
 * Cost of the child of the measured position reached by a move that put
 * cards on column `target` (-1: no column gained cards), the same value as
 * the file comment's cost; sets childSorted.
 */
export function childCost(p: usize, target: i32): i32 {
  let home = 0;
  for (let s = 0; s < 4; s++) home += foundation(p, s);
  let unsorted = 0;
  let sorted = true;
  let empty = 0;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    if (n == 0) empty++;
    let ok = <i32>load<u8>(SORTED_RUN + c);
    let fall = <i32>load<u8>(FALLING_RUN + c);
    if (c == target) {
      const before = <i32>load<u8>(PARENT_LENGTHS + c);
      if (ok >= before) while (ok < n && builds(cardAt(p, c, ok), cardAt(p, c, ok - 1))) ok++;
      if (ok == 0 && n > 0) {
        ok = 1;
        while (ok < n && builds(cardAt(p, c, ok), cardAt(p, c, ok - 1))) ok++;
      }
      if (fall >= before) while (fall < n && rankOf(cardAt(p, c, fall)) < rankOf(cardAt(p, c, fall - 1))) fall++;
      if (fall == 0 && n > 0) {
        fall = 1;
        while (fall < n && rankOf(cardAt(p, c, fall)) < rankOf(cardAt(p, c, fall - 1))) fall++;
      }
    }
    if (ok > n) ok = n;
    if (fall > n) fall = n;
    unsorted += n - ok;
    if (fall < n) sorted = false;
  }
  childSorted = sorted;
  const cells = numCells - emptyCellCount(p);
  const blockers = wBlockers != 0 ? blockersOf(p, false) : 0;
  const v = (52 - home) * wNotHome + unsorted * wUnsorted + cells * wCells - empty * wEmpty + blockers * wBlockers + 64;
  return v < 0 ? 0 : v >= NUM_BINS ? NUM_BINS - 1 : v;
}

// ---------------------------------------------------------------------------
// Finishing a sorted position

/** The moves of the last `finish` that were not auto-moves (`finishMoves` of them). */
export const FINISH: usize = memory.data(64 * 4);
export let finishMoves: i32 = 0;

/**
 * Plays `p` (every column falling strictly in rank, the goal) out: auto-moves, then
 * the lowest card that fits its foundation, until won; the moves that were
 * not auto-moves go to FINISH (finishMoves of them). Returns how many of them
 * count (a foundation move that is a safe auto-move in its position is never
 * listed: applyAutoMoves takes it), or -1 when no card fits (cannot happen
 * for a sorted position; guards the argument).
 */
export function finish(p: usize): i32 {
  finishMoves = 0;
  while (true) {
    applyAutoMoves(p, false);
    if (isWon(p)) return finishMoves;
    let bestCard = 0;
    for (let i = 0; i < numCells; i++) {
      const card = cellCard(p, i);
      if (card != 0 && fitsFoundation(p, card) && (bestCard == 0 || rankOf(card) < rankOf(bestCard))) bestCard = card;
    }
    for (let c = 0; c < numColumns; c++) {
      const n = columnLength(p, c);
      if (n == 0) continue;
      const card = cardAt(p, c, n - 1);
      if (fitsFoundation(p, card) && (bestCard == 0 || rankOf(card) < rankOf(bestCard))) bestCard = card;
    }
    if (bestCard == 0 || finishMoves >= 64) return -1;
    const move = packMove(bestCard, MOVE_TO_FOUNDATION, 0, 1);
    if (!playPacked(p, move, false)) return -1;
    store<u32>(FINISH + (<usize>finishMoves << 2), move);
    finishMoves++;
  }
}

// ---------------------------------------------------------------------------
// From scratch (the self-check's reference)

export let scratchSorted: bool = false;

/** The beam's cost of `p` from its cards alone (no parent); sets scratchSorted (every column falls strictly in rank). */
export function costFromScratch(p: usize): i32 {
  let home = 0;
  for (let s = 0; s < 4; s++) home += foundation(p, s);
  let unsorted = 0;
  let empty = 0;
  let sorted = true;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    if (n == 0) {
      empty++;
      continue;
    }
    let ok = 1;
    while (ok < n && buildsOn(cardAt(p, c, ok), cardAt(p, c, ok - 1))) ok++;
    unsorted += n - ok;
    for (let i = 1; i < n; i++) if (rankOf(cardAt(p, c, i)) >= rankOf(cardAt(p, c, i - 1))) sorted = false;
  }
  scratchSorted = sorted;
  const cells = numCells - emptyCellCount(p);
  const v = (52 - home) * wNotHome + unsorted * wUnsorted + cells * wCells - empty * wEmpty + blockersOf(p, false) * wBlockers + 64;
  return v < 0 ? 0 : v >= NUM_BINS ? NUM_BINS - 1 : v;
}
