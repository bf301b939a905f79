/**
 * Shortening a found solution: beam search one level per move, bounded by the
 * best length so far, and re-search of the best solution's suffixes.
 *
 * The method follows the ideas of macroxue/freecell as summarised in
 * docs/search.md §2 (written from that summary, no code taken):
 *
 * - One beam level per move that counts (a move that is not a safe auto-move;
 *   position.ts `isSafeAutoMove` decides, the engine's own rule). Each level
 *   keeps the `width` children of lowest cost in integer cost bins; when the
 *   level is full, a cheaper child evicts one of the dearest.
 * - Cost, no g term: cards not home + cards above the sorted run at the
 *   bottom of their column + occupied free cells (weights settable, below).
 * - Bound: a child at depth d that is not finished needs at least one more
 *   move, so it is dropped when d + 1 >= best (best = the shortest length
 *   known, in counted moves).
 * - Goal: every column strictly decreasing in rank from bottom to top. Then
 *   the lowest card in play of any suit is exposed (everything below it in its
 *   column is higher), so playing the lowest playable card home, one at a time,
 *   always finishes; those moves are counted unless they are safe auto-moves.
 * - Prefix re-search: the beam is run again from the position after the
 *   first k counted moves of the best solution, bounded by best - k; a
 *   shorter suffix replaces the old one.
 * - Pruning: the card moved last (a single card, no auto-move after it) is not
 *   moved again at once (a move of it could have been made from the position
 *   before: the "triangle" of two moves one move replaces); only the first
 *   empty column and free cell are targets; a column that is one sorted run is
 *   not moved into an empty column.
 * - Duplicates: a 64-bit hash of the canonical key, per level (the level being
 *   built and the one being expanded). A hash collision can only drop a child,
 *   never make a solution wrong: every solution is replayed here move by move
 *   and again by the independent checker in the glue.
 *
 * Nothing here decides a verdict: the beam only runs after the main search
 * (search.ts) solved the deal, and the glue keeps the first solution unless
 * this one is shorter and passes the checker.
 *
 * Memory: the session takes the arena (arena.ts) from the start, so the state
 * table of the last `solve` is gone afterwards (its keys and fingerprint are
 * only read after an unsolvable verdict, when no shortening runs).
 *
 * Paths are lists of packed moves (the move word of move.ts, the same as the
 * search's), which name cards, not column numbers, so a path found on
 * canonical positions replays on the real start position.
 */
import {
  numColumns, numCells, rankOf, suitOf, buildsOn, emptyColumnAccepts, sequenceCapacity, setRules,
  buildRule, wrapRanks, BUILD_ALTERNATE_COLOR, BUILD_SUIT, BUILD_RANK, setPools,
} from './rules';
import {
  POSITION_BYTES, MAX_CELLS, MAX_COLUMNS, COLUMN_STRIDE, OFF_CARDS, columnLength, setColumnLength, cardAt, setCardAt, cellCard, setCellCard,
  foundation, setFoundation, copyPosition, copyHeader, copyCards, isWon, isSafeAutoMove, emptyCellCount, emptyColumnCount, firstEmptyColumn,
  fitsFoundation, applyAutoMoves,
} from './position';
import { KEY_BYTES } from './key';
import { resetArena, allocate, arenaBytesUsed } from './arena';
import {
  OUTPUT, OUTPUT_MOVE_BYTES, outputCount, outputOverflow, resetOutput, writeMove,
  SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION,
} from './output';
import { readInput } from './input';
import {
  prepareBoard, buildMask, builds, topRunLength, bottomRunLength, columnTops, topOwner, placeColumn, placeCells, cardColumn, cardIndex, IN_CELL,
  applyMove, moveCards, playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex, positionHash, childHash,
} from './board';
import { pollStop } from './host';
import {
  MOVE_TO_FOUNDATION, MOVE_TO_CELL, MOVE_TO_EMPTY_COLUMN, MOVE_TO_CARD, packMove, moveCard, moveKind, moveCount,
} from './move';

/** Deepest beam (moves); deeper levels are not searched. */
const MAX_LEVELS: i32 = 512;
/** Longest path kept (counted moves plus finishing moves). */
const MAX_PATH: i32 = 1024;
/** Cost bins of a level. */
const NUM_BINS: i32 = 2048;
/** Children one position can have (upper bound, generous). */
const MAX_CHILDREN: i32 = 512;
/** Positions expanded between two polls of the host's stop flag and clock. */
const POLL_INTERVAL: u32 = 256;
const NONE: u32 = 0xffffffff;

const START: usize = memory.data(POSITION_BYTES);
const WORK: usize = memory.data(POSITION_BYTES);
const SCRATCH: usize = memory.data(POSITION_BYTES);
const CHILD_MOVES: usize = memory.data(MAX_CHILDREN * 4);
/** Per child move: where it goes in the listed position (see `where`). */
const CHILD_WHERE: usize = memory.data(MAX_CHILDREN * 4);
const BEST: usize = memory.data(MAX_PATH * 4);
const CANDIDATE: usize = memory.data(MAX_PATH * 4);
const FINISH: usize = memory.data(64 * 4);
const LEVEL_PARENTS: usize = memory.data(MAX_LEVELS * 4);
const LEVEL_MOVES: usize = memory.data(MAX_LEVELS * 4);
const BIN_HEAD: usize = memory.data(NUM_BINS * 4);
const HEADER_SAVE: usize = memory.data(OFF_CARDS);

let maxWidth: i32 = 0;
let levelsAllocated: i32 = 0;
/** The positions of the level being expanded and of the one being built, NODE_BYTES each (see `storeNode`). */
let curNodes: usize = 0;
let nextNodes: usize = 0;
let curRepeat: usize = 0;
let nextRepeat: usize = 0;
let nextCost: usize = 0;
let nextLink: usize = 0;
let seenCur: usize = 0;
let seenNext: usize = 0;
let seenMask: u32 = 0;
/** Slots allocated for each duplicate set (a beam uses seenMask + 1 of them, sized to its width). */
let seenSlots: u32 = 0;
let seenCurCount: u32 = 0;
let seenNextCount: u32 = 0;

let bestLength: i32 = 0;
/** Packed moves of the best path (counted moves and finishing moves; auto-moves are implied). */
let bestMoves: i32 = 0;
let stopped: bool = false;
let ready: bool = false;
export let beamExpanded: u32 = 0;
/** Children listed by the beams of the session (moves of the expanded positions; a development counter). */
export let beamChildren: u32 = 0;

let wNotHome: i32 = 1;
let wUnsorted: i32 = 1;
let wCells: i32 = 1;
let wEmpty: i32 = 0;
let wBlockers: i32 = 0;

// ---------------------------------------------------------------------------
// Moves on positions


/**
 * Plays packed move `move` on position `p` (any column order), finding the
 * card and the target by identity; with `emit` it is written to the solution
 * buffer with the real column and cell numbers of `p`. Returns false when
 * the move does not fit `p` (the card is not where it could move from, or
 * the target is missing).
 */
function playPacked(p: usize, move: u32, emit: bool): bool {
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

/** Stores packed move `move` (with its source and target `at`) as child move `k`; returns k + 1 (moves past MAX_CHILDREN are dropped). */
// @ts-ignore: decorator
@inline function putMove(k: i32, move: u32, at: u32): i32 {
  if (k >= MAX_CHILDREN) return k;
  store<u32>(CHILD_MOVES + (<usize>k << 2), move);
  store<u32>(CHILD_WHERE + (<usize>k << 2), at);
  return k + 1;
}

/** Source and target of a listed move in its position: kinds as output.ts, indices 0..15. */
// @ts-ignore: decorator
@inline function where(srcKind: i32, srcIndex: i32, dstKind: i32, dstIndex: i32): u32 {
  return <u32>srcKind | (<u32>srcIndex << 4) | (<u32>dstKind << 8) | (<u32>dstIndex << 12);
}

/**
 * Plays child move `m` of the last listMoves on `p` (that position): the
 * source and target are known, so nothing is searched for (playPacked finds
 * them by card identity instead, for replays).
 */
function playListed(p: usize, m: i32): void {
  const move = load<u32>(CHILD_MOVES + (<usize>m << 2));
  const at = load<u32>(CHILD_WHERE + (<usize>m << 2));
  const card = moveCard(move);
  const count = moveCount(move);
  const srcKind = <i32>(at & 15);
  const srcIndex = <i32>((at >> 4) & 15);
  const dstKind = <i32>((at >> 8) & 15);
  const dstIndex = <i32>((at >> 12) & 15);
  moveCards(p, card, count, srcKind, srcIndex, dstKind, dstIndex);
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
function autoMovesAfter(p: usize, at: u32): bool {
  if (((at >> 8) & 15) == <u32>TARGET_FOUNDATION) return applyAutoMoves(p, false);
  if ((at & 15) != <u32>SOURCE_COLUMN) return false;
  const col = <i32>((at >> 4) & 15);
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
 * column to cell. `repeat` is a card not to move (0: none). `fast` lets
 * builds on the rank above find targets through the top-card mask (board.ts
 * `columnTops`; the same moves in another order; false tries every column,
 * the self-check's reference).
 * Returns how many.
 */
function listMoves(p: usize, repeat: i32, fast: bool): i32 {
  let k = 0;
  const freeCells = emptyCellCount(p);
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

// ---------------------------------------------------------------------------
// Cost, goal, finish

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
 * blockersOf(p, true) for the position whose cards `shortenBeam` just
 * placed (board.ts `cardColumn`, `cardIndex`: where each card in play lies)
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
 * columns that do not fall strictly in rank, empty columns, occupied cells.
 */
function measureRuns(p: usize): void {
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

/**
 * childCost for a child of the measured position reached by child move
 * `move` at `at` (a `where` word) with no auto-move after it: the parent's
 * totals with the terms of the one or two columns the move touched replaced
 * (the same value as childCost; sets childSorted).
 */
function childCostQuick(p: usize, move: u32, at: u32): i32 {
  const count = moveCount(move);
  const card = moveCard(move);
  const srcKind = <i32>(at & 15);
  const srcIndex = <i32>((at >> 4) & 15);
  const dstKind = <i32>((at >> 8) & 15);
  const dstIndex = <i32>((at >> 12) & 15);
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

/** Set by childCost: every column of the child falls strictly in rank (the goal: see the file comment). */
let childSorted: bool = false;

/**
 * Cost of the child of the measured position reached by a move that put
 * cards on column `target` (-1: no column gained cards), the same value as
 * the file comment's cost; sets childSorted.
 */
function childCost(p: usize, target: i32): i32 {
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

let finishMoves: i32 = 0;

/**
 * Plays `p` (every column falling strictly in rank, the goal) out: auto-moves, then
 * the lowest card that fits its foundation, until won; the moves that were
 * not auto-moves go to FINISH (finishMoves of them). Returns how many of them
 * count (a foundation move that is a safe auto-move in its position is never
 * listed: applyAutoMoves takes it), or -1 when no card fits (cannot happen
 * for a sorted position; guards the argument).
 */
function finish(p: usize): i32 {
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
// Duplicate sets (board.ts's order-free position hashes; 0 marks an empty slot)

/** Notes where every card of `p` lies (board.ts card places), for `blockersMeasured` and `childCostQuick`. */
function placeCards(p: usize): void {
  for (let c = 0; c < numColumns; c++) placeColumn(p, c, columnLength(p, c));
  placeCells(p);
}

/** The set entry of a position hash `h`: `h`, or 1 for a hash of 0 (0 marks an empty slot). */
// @ts-ignore: decorator
@inline function setEntry(h: u64): u64 {
  return h == 0 ? 1 : h;
}

// A stored position (a node of a level): the header of the position layout
// (column lengths, free cells, foundations: OFF_CARDS bytes), then the cards
// of the columns one after the other, deepest first (at most 52).
const NODE_BYTES: i32 = 96;

// The copies go eight bytes at a time (position.ts copyCards, copyHeader; a
// memory.copy call costs more for so few bytes): storeNode writes up to 7
// bytes past a column's cards, which the next column's copy overwrites or
// which lie past the node's last card (OFF_CARDS + 52 + 7 < NODE_BYTES);
// loadNode reads as far past a node's last card (inside the node) and
// writes past a column's length inside its COLUMN_STRIDE bytes.

/** Writes position `p` as a node at `out` (NODE_BYTES). */
function storeNode(p: usize, out: usize): void {
  copyHeader(out, p);
  let at = out + OFF_CARDS;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    copyCards(at, p + OFF_CARDS + c * COLUMN_STRIDE, n);
    at += <usize>n;
  }
}

/** Rebuilds the position of the node at `node` into `p` (columns in the order they were stored). */
function loadNode(node: usize, p: usize): void {
  copyHeader(p, node);
  let at = node + OFF_CARDS;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    copyCards(p + OFF_CARDS + c * COLUMN_STRIDE, at, n);
    at += <usize>n;
  }
}

/**
 * True when the hash `h` (never 0) is in the open-addressed set of u64
 * hashes at `table`, `mask` + 1 slots, 0 marking an empty slot: the
 * per-level sets (`seenCur`, `seenNext`, `seenMask`) and the guided pass's
 * all-levels set (`globalSeen`, `globalMask`).
 */
function hashSetContains(table: usize, mask: u32, h: u64): bool {
  let i = <u32>h & mask;
  while (true) {
    const v = load<u64>(table + (<usize>i << 3));
    if (v == 0) return false;
    if (v == h) return true;
    i = (i + 1) & mask;
  }
}

/**
 * The guided pass's set of the positions a beam has expanded, over all its
 * levels (beamFindBegin with globalSeenLog2; 0 = none, the per-level sets
 * only): 2^log2 slots of u64 hashes, open addressing. A child already
 * expanded at an earlier level is dropped; a child that was stored and then
 * evicted is not in it and may come back later. In the no-cell games every tableau move can
 * be undone, so without it a beam fills its levels with positions it has
 * already been through (docs/search.md §10).
 */
let globalSeen: usize = 0;
let globalMask: u32 = 0;
let globalCount: u32 = 0;

/** True when `h` is in the all-levels set; otherwise adds it (unless the set is 7/8 full: then duplicates just pass) and returns false. */
function globalSeenOrAdd(h: u64): bool {
  let i = <u32>h & globalMask;
  while (true) {
    const v = load<u64>(globalSeen + (<usize>i << 3));
    if (v == h) return true;
    if (v == 0) break;
    i = (i + 1) & globalMask;
  }
  if (globalCount >= (globalMask >> 3) * 7) return false;
  store<u64>(globalSeen + (<usize>i << 3), h);
  globalCount++;
  return false;
}

/** Adds `h` to the set being built (unless it is too full: then duplicates just pass). */
function seenAdd(h: u64): void {
  if (seenNextCount * 4 > seenMask * 3) return;
  let i = <u32>h & seenMask;
  while (true) {
    const v = load<u64>(seenNext + (<usize>i << 3));
    if (v == h) return;
    if (v == 0) break;
    i = (i + 1) & seenMask;
  }
  store<u64>(seenNext + (<usize>i << 3), h);
  seenNextCount++;
}

// ---------------------------------------------------------------------------
// Self-check (tests): the incremental shortcuts against their from-scratch values

let selfCheck: bool = false;
let selfChecks: u32 = 0;
let selfCheckFailures: u32 = 0;

/**
 * Turns the self-check on (1) or off (0) and clears its counters. While on,
 * every expanded position's moves are listed both ways (listMoves fast and
 * not) and compared as sets, and every child's incremental cost, goal test,
 * hash and auto-moves are compared with values computed from scratch
 * (costFromScratch, positionHash, applyAutoMoves). Slow; for tests.
 */
export function setBeamSelfCheck(on: i32): void {
  selfCheck = on != 0;
  selfChecks = 0;
  selfCheckFailures = 0;
}

/** Comparisons the self-check made since setBeamSelfCheck. */
export function beamSelfChecks(): u32 {
  return selfChecks;
}

/** Comparisons that differed (0 unless an incremental shortcut is wrong). */
export function beamSelfCheckFailures(): u32 {
  return selfCheckFailures;
}

/** Order-free signature of the `k` listed child moves (move word and where word). */
function movesSignature(k: i32): u64 {
  let sum: u64 = 0;
  for (let m = 0; m < k; m++) {
    let x = (<u64>load<u32>(CHILD_MOVES + (<usize>m << 2)) << 32) | <u64>load<u32>(CHILD_WHERE + (<usize>m << 2));
    x = (x ^ (x >> 31)) * 0x94d049bb133111eb;
    sum += x ^ (x >> 29);
  }
  return sum;
}

let scratchSorted: bool = false;

/** The beam's cost of `p` from its cards alone (no parent); sets scratchSorted (every column falls strictly in rank). */
function costFromScratch(p: usize): i32 {
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

/** Compares child `p` (cost `cost`, childSorted, hash `h`, auto-moves done) with its from-scratch values. */
function checkChild(p: usize, cost: i32, h: u64): void {
  selfChecks++;
  if (costFromScratch(p) != cost || scratchSorted != childSorted) selfCheckFailures++;
  if (positionHash(p) != h) selfCheckFailures++;
  copyPosition(SCRATCH, p);
  if (applyAutoMoves(SCRATCH, false)) selfCheckFailures++;
}

// ---------------------------------------------------------------------------
// Session

/** Reads the input block (input.ts) into START, as the real game (the beam shortens a solution of the real game, never of a pooled one), and fills the board tables; false when it does not fit the engine's layout. */
function readStart(): bool {
  if (!readInput(START, false)) return false;
  prepareBoard();
  return true;
}

/** Clears a beam session's state and counters (`shortenBegin`, `beamFindBegin`): not ready, not stopped, no all-levels set, nothing expanded or reached yet. */
function resetSession(): void {
  ready = false;
  stopped = false;
  globalSeen = 0;
  beamExpanded = 0;
  beamChildren = 0;
  beamMostHome = 0;
  beamLevelsReached = 0;
  beamOutOfMemory = false;
}

/**
 * Allocates one beam session's level buffers from the arena for `width`
 * nodes a level: the current and next levels' nodes, repeat counts, costs
 * and links, and the two levels' duplicate sets (8-byte slots, at least 32
 * a node, at most 2^`maxSlotsLog2`). Sets `maxWidth` and clears
 * `levelsAllocated`. Returns false when the arena is short.
 */
function allocateLevels(width: i32, maxSlotsLog2: u32): bool {
  maxWidth = width;
  levelsAllocated = 0;
  const w = <u64>width;
  curNodes = allocate(w * NODE_BYTES);
  nextNodes = allocate(w * NODE_BYTES);
  curRepeat = allocate(w);
  nextRepeat = allocate(w);
  nextCost = allocate(w * 2);
  nextLink = allocate(w * 4);
  let slots: u32 = 1 << 12;
  while (<u64>slots < w * 32 && slots < (<u32>1 << maxSlotsLog2)) slots <<= 1;
  seenSlots = slots;
  seenMask = slots - 1;
  seenCur = allocate(<u64>slots * 8);
  seenNext = allocate(<u64>slots * 8);
  return curNodes != 0 && nextNodes != 0 && curRepeat != 0 && nextRepeat != 0 && nextCost != 0 && nextLink != 0 && seenCur != 0 && seenNext != 0;
}

/**
 * Starts a shortening session for the deal in the input block, whose solution
 * the last `solve` left in the solution buffer: takes that solution as the
 * best path. `width` is the widest beam the session will run (1..65536);
 * `memoryLimitBytes` caps the arena (taken from the start: the state table
 * of the last solve is dropped). Returns the solution's length in counted
 * moves (moves that are not safe auto-moves; a sequence move is one), or -1
 * when the memory is short or the buffer does not replay to a win.
 */
export function shortenBegin(width: i32, memoryLimitBytes: f64): i32 {
  resetSession();
  if (width < 1 || width > 65536 || !readStart()) return -1;
  resetArena(<u64>memoryLimitBytes);
  if (!allocateLevels(width, 22)) return -1;

  // The first solution as packed moves: replay the buffer on the real start.
  copyPosition(WORK, START);
  applyAutoMoves(WORK, false);
  bestMoves = 0;
  bestLength = 0;
  const count = outputCount;
  for (let i = 0; i < count; i++) {
    const o = OUTPUT + <usize>i * OUTPUT_MOVE_BYTES;
    if (load<u8>(o, 6) == 1) continue; // auto-moves follow from the moves
    const srcKind = <i32>load<u8>(o);
    const dstKind = <i32>load<u8>(o, 2);
    const dstIndex = <i32>load<u8>(o, 3);
    const n = <i32>load<u8>(o, 4);
    const card = <i32>load<u8>(o, 5);
    let move: u32 = 0;
    if (dstKind == TARGET_FOUNDATION) move = packMove(card, MOVE_TO_FOUNDATION, 0, 1);
    else if (dstKind == TARGET_CELL) move = packMove(card, MOVE_TO_CELL, 0, 1);
    else {
      if (dstIndex >= numColumns) return -1;
      const m = columnLength(WORK, dstIndex);
      move = m == 0 ? packMove(card, MOVE_TO_EMPTY_COLUMN, 0, n) : packMove(card, MOVE_TO_CARD, cardAt(WORK, dstIndex, m - 1), n);
    }
    if (srcKind != SOURCE_CELL && srcKind != SOURCE_COLUMN) return -1;
    if (bestMoves >= MAX_PATH || !playPacked(WORK, move, false)) return -1;
    store<u32>(BEST + (<usize>bestMoves << 2), move);
    bestMoves++;
    // a foundation move the engine did not flag is still a move, unless it was safe (then it never counted)
    bestLength++;
    applyAutoMoves(WORK, false);
  }
  if (!isWon(WORK)) return -1;
  ready = true;
  return bestLength;
}

/**
 * Starts a beam session for the deal in the input block with no solution
 * known: the guided pass that looks for a solution the complete search has
 * not found (docs/search.md §10). `width` and `memoryLimitBytes` as
 * `shortenBegin` (the arena is taken from the start). The best length is
 * `maxLevels` (2..MAX_LEVELS; anything else means MAX_LEVELS = 512), so a
 * beam from the start (`shortenBeam(width, 0)`) searches up to maxLevels - 1
 * counted moves and keeps the first, then any shorter, goal it reaches; `shortenPathMoves()` stays 0 while none was found.
 * Finding nothing proves nothing. Returns 0, or -1 when the memory is short
 * or the input block does not fit the engine's layout.
 */
export function beamFindBegin(width: i32, memoryLimitBytes: f64, maxLevels: i32, globalSeenLog2: i32): i32 {
  resetSession();
  if (width < 1 || width > 65536 * 32 || !readStart()) return -1;
  resetArena(<u64>memoryLimitBytes);
  if (!allocateLevels(width, 24)) return -1;
  if (globalSeenLog2 >= 10 && globalSeenLog2 <= 28) {
    const bytes = (<u64>1 << <u64>globalSeenLog2) << 3;
    globalSeen = allocate(bytes);
    if (globalSeen == 0) return -1;
    memory.fill(globalSeen, 0, <usize>bytes);
    globalMask = (<u32>1 << <u32>globalSeenLog2) - 1;
    globalCount = 0;
  }
  bestMoves = 0;
  bestLength = maxLevels < 2 || maxLevels > MAX_LEVELS ? MAX_LEVELS : maxLevels;
  ready = true;
  return 0;
}

/** Most cards on the foundations in a position the beams of this session expanded (a measure of how far a beam that found nothing got). */
export let beamMostHome: i32 = 0;
/** Deepest level (counted moves from the beam's start) the beams of this session expanded. */
export let beamLevelsReached: i32 = 0;
/** A beam of this session ended early because the memory cap left no room for its next level's arrays. */
export let beamOutOfMemory: bool = false;

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

/** Length of the best path in counted moves (after shortenBegin). */
export function shortenBestLength(): i32 {
  return bestLength;
}

/** Counted moves in the best path (the prefix lengths `shortenBeam` accepts run 0..this-1). */
export function shortenPathMoves(): i32 {
  return bestMoves;
}

/** True once the host asked to stop (deadline or cancel) during this session. */
export function shortenStopped(): bool {
  return stopped;
}

/** Address of the parent array of level `d` (allocated on first use); 0 when out of memory. */
function levelParents(d: i32): usize {
  while (levelsAllocated <= d) {
    const parents = allocate(<u64>maxWidth * 4);
    const moves = allocate(<u64>maxWidth * 4);
    if (parents == 0 || moves == 0) return 0;
    store<u32>(LEVEL_PARENTS + (<usize>levelsAllocated << 2), <u32>parents);
    store<u32>(LEVEL_MOVES + (<usize>levelsAllocated << 2), <u32>moves);
    levelsAllocated++;
  }
  return <usize>load<u32>(LEVEL_PARENTS + (<usize>d << 2));
}

// @ts-ignore: decorator
@inline function levelMoves(d: i32): usize {
  return <usize>load<u32>(LEVEL_MOVES + (<usize>d << 2));
}

/**
 * Writes into CANDIDATE the path to a goal: the moves to node `node` of
 * level `d`, then `last`, then the finishing moves in FINISH. Returns its
 * number of packed moves.
 */
function buildPath(d: i32, node: u32, last: u32): i32 {
  const total = d + 1 + finishMoves;
  if (total > MAX_PATH) return -1;
  let j = node;
  for (let lev = d; lev >= 1; lev--) {
    store<u32>(CANDIDATE + (<usize>(lev - 1) << 2), load<u32>(levelMoves(lev) + (<usize>j << 2)));
    j = load<u32>(levelParents(lev) + (<usize>j << 2));
  }
  store<u32>(CANDIDATE + (<usize>d << 2), last);
  for (let i = 0; i < finishMoves; i++) store<u32>(CANDIDATE + (<usize>(d + 1 + i) << 2), load<u32>(FINISH + (<usize>i << 2)));
  return total;
}

/**
 * Runs one beam of `width` (at most the session's width) from the position
 * after the first `prefix` counted moves of the best path, bounded by the
 * best length; a shorter suffix replaces the best path's. Returns the best
 * length afterwards (counted moves), or -1 before shortenBegin or on a bad
 * argument. Stops early when the host asks (shortenStopped).
 */
export function shortenBeam(width: i32, prefix: i32): i32 {
  if (!ready || width < 1 || width > maxWidth || prefix < 0 || (prefix > 0 && prefix >= bestMoves)) return -1;
  if (stopped) return bestLength;
  // The start of this beam, and the counted moves spent to reach it.
  copyPosition(WORK, START);
  applyAutoMoves(WORK, false);
  let spent = 0;
  for (let i = 0; i < prefix; i++) {
    const move = load<u32>(BEST + (<usize>i << 2));
    if (!playPacked(WORK, move, false)) return -1;
    spent++;
    applyAutoMoves(WORK, false);
  }
  let bound = bestLength - spent; // a suffix must be shorter than this
  if (bound <= 1) return bestLength;
  let found = false;
  let foundMoves = 0;

  let slots: u32 = 1 << 10;
  while (slots < <u32>width * 8 && slots < seenSlots) slots <<= 1;
  seenMask = slots - 1;

  // level 0: the one start node
  if (levelParents(0) == 0) return bestLength;
  storeNode(WORK, curNodes);
  store<u8>(curRepeat, 0);
  let curCount: u32 = 1;
  memory.fill(seenCur, 0, (<usize>seenMask + 1) << 3);
  seenCurCount = 0;
  memory.fill(seenNext, 0, (<usize>seenMask + 1) << 3);
  seenNextCount = 0;
  seenAdd(setEntry(positionHash(WORK)));

  for (let d = 0; d + 1 < bound && d + 1 < MAX_LEVELS; d++) {
    // the set of level d becomes the current one, level d+1 starts empty
    const t = seenCur;
    seenCur = seenNext;
    seenNext = t;
    seenCurCount = seenNextCount;
    memory.fill(seenNext, 0, (<usize>seenMask + 1) << 3);
    seenNextCount = 0;
    const parents = levelParents(d + 1);
    if (parents == 0) {
      beamOutOfMemory = true;
      break;
    }
    const moves = levelMoves(d + 1);
    for (let b = 0; b < NUM_BINS; b++) store<u32>(BIN_HEAD + (<usize>b << 2), NONE);
    let nextCount: u32 = 0;
    let worst: i32 = -1;
    for (let i: u32 = 0; i < curCount; i++) {
      beamExpanded++;
      if (beamExpanded % POLL_INTERVAL == 0 && pollStop() != 0) {
        stopped = true;
        break;
      }
      loadNode(curNodes + <usize>i * NODE_BYTES, WORK);
      const home = <i32>foundation(WORK, 0) + <i32>foundation(WORK, 1) + <i32>foundation(WORK, 2) + <i32>foundation(WORK, 3);
      if (home > beamMostHome) beamMostHome = home;
      if (d > beamLevelsReached) beamLevelsReached = d;
      const repeat = <i32>load<u8>(curRepeat + i);
      if (selfCheck) {
        const kg = listMoves(WORK, repeat, false);
        const sg = movesSignature(kg);
        const kf = listMoves(WORK, repeat, true);
        selfChecks++;
        if (kf != kg || movesSignature(kf) != sg) selfCheckFailures++;
      }
      const k = listMoves(WORK, repeat, true);
      beamChildren += <u32>k;
      const parentHash = positionHash(WORK);
      placeCards(WORK);
      if (globalSeen != 0) globalSeenOrAdd(setEntry(parentHash));
      measureRuns(WORK);
      copyHeader(HEADER_SAVE, WORK);
      for (let m = 0; m < k; m++) {
        const move = load<u32>(CHILD_MOVES + (<usize>m << 2));
        const at = load<u32>(CHILD_WHERE + (<usize>m << 2));
        playListed(WORK, m);
        const autoMoved = autoMovesAfter(WORK, at);
        const depth = d + 1;
        const c = autoMoved
          ? childCost(WORK, ((at >> 8) & 15) == <u32>TARGET_COLUMN ? <i32>((at >> 12) & 15) : -1)
          : childCostQuick(WORK, move, at);
        if (selfCheck) checkChild(WORK, c, childHash(WORK, HEADER_SAVE, parentHash));
        if (childSorted) {
          copyPosition(SCRATCH, WORK);
          const rest = finish(SCRATCH);
          if (rest >= 0 && depth + rest < bound) {
            const n = buildPath(d, i, move);
            if (n > 0) {
              bound = depth + rest;
              found = true;
              foundMoves = n;
              memory.copy(BEST + (<usize>prefix << 2), CANDIDATE, <usize>n << 2);
            }
          }
        } else if (depth + 1 < bound) {
          // a full level takes only children cheaper than its dearest
          if (nextCount < <u32>width || c < worst) {
            const h = setEntry(childHash(WORK, HEADER_SAVE, parentHash));
            if (!hashSetContains(seenCur, seenMask, h) && !hashSetContains(seenNext, seenMask, h) && (globalSeen == 0 || !hashSetContains(globalSeen, globalMask, h))) {
              let slot: u32 = 0;
              if (nextCount < <u32>width) {
                slot = nextCount++;
              } else {
                slot = load<u32>(BIN_HEAD + (<usize>worst << 2));
                store<u32>(BIN_HEAD + (<usize>worst << 2), load<u32>(nextLink + (<usize>slot << 2)));
              }
              seenAdd(h);
              storeNode(WORK, nextNodes + <usize>slot * NODE_BYTES);
              const single = moveCount(move) == 1 && moveKind(move) != MOVE_TO_FOUNDATION && !autoMoved;
              store<u8>(nextRepeat + slot, single ? moveCard(move) : 0);
              store<u16>(nextCost + (<usize>slot << 1), c);
              store<u32>(nextLink + (<usize>slot << 2), load<u32>(BIN_HEAD + (<usize>c << 2)));
              store<u32>(BIN_HEAD + (<usize>c << 2), slot);
              store<u32>(parents + (<usize>slot << 2), i);
              store<u32>(moves + (<usize>slot << 2), move);
              if (c > worst) worst = c;
              while (worst >= 0 && load<u32>(BIN_HEAD + (<usize>worst << 2)) == NONE) worst--;
            }
          }
        }
        copyHeader(WORK, HEADER_SAVE);
      }
    }
    if (stopped || nextCount == 0) break;
    const tk = curNodes;
    curNodes = nextNodes;
    nextNodes = tk;
    const tr = curRepeat;
    curRepeat = nextRepeat;
    nextRepeat = tr;
    curCount = nextCount;
  }
  if (found) {
    bestMoves = prefix + foundMoves;
    bestLength = spent + bound;
  }
  return bestLength;
}

/**
 * Writes the best path to the solution buffer, each move followed by the
 * auto-moves it triggers (flagged as such), from the real start position.
 * Returns false when it does not replay to a win (an internal inconsistency).
 */
export function shortenWrite(): bool {
  if (!ready) return false;
  resetOutput();
  copyPosition(WORK, START);
  applyAutoMoves(WORK, true);
  for (let i = 0; i < bestMoves; i++) {
    const move = load<u32>(BEST + (<usize>i << 2));
    // a finishing move may have become a safe auto-move of the one before it
    if (moveKind(move) == MOVE_TO_FOUNDATION) {
      const card = moveCard(move);
      if (foundation(WORK, suitOf(card)) >= rankOf(card)) continue;
    }
    if (!playPacked(WORK, move, true)) return false;
    applyAutoMoves(WORK, true);
  }
  return isWon(WORK) && !outputOverflow;
}

/** Counted moves (not flagged auto) in the solution buffer. */
export function outputCountedMoves(): i32 {
  let n = 0;
  for (let i = 0; i < outputCount; i++) if (load<u8>(OUTPUT + <usize>i * OUTPUT_MOVE_BYTES, 6) == 0) n++;
  return n;
}

/** Bytes of linear memory the session holds (the arena's top), as f64. */
export function shortenMemoryBytes(): f64 {
  return <f64>arenaBytesUsed();
}
