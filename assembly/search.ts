/**
 * The search: best-first over canonical positions, complete when it runs to
 * the end.
 *
 * Every position met is stored once in the state table (table.ts) under its
 * canonical key. Two open lists (scans) order the stored positions by two
 * heuristic scores (lower = more promising; bucket queues, LIFO within a
 * bucket) and take turns, so the search dives like a guided depth-first
 * search while never expanding a position twice. The
 * search prunes nothing but duplicates and applies only safe auto-moves
 * (position.ts argues each one), so when the open list runs empty without a
 * budget having cut an insert, every position reachable from the start has
 * been expanded and none is won: the deal is unsolvable. Any cut (state
 * budget, memory, deadline, cancel) ends the search with `unknown`.
 *
 * Moves are stored position-independently (packed move, below): they name
 * the moved card and the target by card identity, which is what lets
 * positions be stored in canonical order while the solution is replayed on
 * the real column and cell numbers (reconstructSolution).
 *
 * Packed move (u32): bits 0-5 the moved card (deepest card of the run),
 * bits 6-7 the target kind (MOVE_TO_*), bits 8-13 the card the run is put on
 * (MOVE_TO_CARD), bits 14-19 the number of cards.
 */
import {
  numColumns, numCells, buildRule, BUILD_ALTERNATE_COLOR, BUILD_RANK, buildsOn, emptyColumnAccepts, sequenceCapacity, rankOf, suitOf, setRules,
} from './rules';
import {
  POSITION_BYTES, KEY_BYTES, MAX_CELLS, MAX_COLUMNS, COLUMN_STRIDE, OFF_CARDS,
  columnLength, setColumnLength, cardAt, setCardAt, topCard, cellCard, setCellCard, foundation, setFoundation,
  copyPosition, isWon, emptyCellCount, emptyColumnCount, fitsFoundation, applyAutoMoves, encodeKey, decodeKey, hashKey,
} from './position';
import { resetArena, arenaBytesUsed } from './arena';
import { resetTable, findOrInsert, recordAt, recordCount, insertFailure, insertStopReason, lastInsertWasNew, FAIL_MEMORY, FAIL_STOPPED } from './table';
import {
  resetOutput, writeMove, outputOverflow, SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION,
} from './output';

import { pollStop } from './host';

export const VERDICT_SOLVED: i32 = 0;
export const VERDICT_UNSOLVABLE: i32 = 1;
export const VERDICT_UNKNOWN: i32 = 2;
export const VERDICT_ERROR: i32 = 3;

export const REASON_NONE: i32 = 0;
export const REASON_MAX_STATES: i32 = 1;
export const REASON_TIMEOUT: i32 = 2;
export const REASON_MEMORY: i32 = 3;
export const REASON_CANCELLED: i32 = 4;

const MOVE_TO_FOUNDATION: u32 = 0;
const MOVE_TO_CELL: u32 = 1;
const MOVE_TO_EMPTY_COLUMN: u32 = 2;
const MOVE_TO_CARD: u32 = 3;

/** Expansions between two polls of the stop flag and the clock. */
const POLL_INTERVAL: u32 = 512;
/** Buckets of the open list; scores are clamped into 0..NUM_BUCKETS-1. */
const NUM_BUCKETS: i32 = 4096;
const SCORE_OFFSET: i32 = 256;
const MAX_PATH: i32 = 8192;

/**
 * Input block written by the glue before `solve` (INPUT_BYTES bytes):
 *   0 columns, 1 free cells, 2 build rule, 3 empty-column rule, 4 sequence rule, 5 wrap (0/1)
 *   8..11 foundations (relative counts, suits C D H S)
 *  16..23 free cells (card bytes, 0 = empty)
 *  32..41 column lengths
 *  64 + c * 64 + i: card i (deepest first) of column c
 */
export const INPUT_BYTES: i32 = 1024;
export const INPUT: usize = memory.data(INPUT_BYTES);

const START: usize = memory.data(POSITION_BYTES);
const PARENT: usize = memory.data(POSITION_BYTES);
const KEY: usize = memory.data(KEY_BYTES);
const BUCKETS: usize = memory.data(2 * NUM_BUCKETS * 4);
const PATH: usize = memory.data(MAX_PATH * 4);

let stopReason: i32 = REASON_NONE;
let goalIndex: u32 = 0;

export let statesExpanded: u32 = 0;

// ---------------------------------------------------------------------------
// Heuristic

// Two open lists ("scans", after fc-solve's soft threads sharing one state
// collection; docs/search.md §1) order the same stored positions by two
// different scores and take turns. A single greedy score has a heavy tail
// (a deal it misjudges can take millions of positions while another score
// solves it in thousands); two scores cut that tail at twice the cost of the
// better one at worst. Every new position is queued in both lists and
// expanded once, by whichever list reaches it first (the expanded flag).

const SCANS: i32 = 2;
/** Weights per scan, in this order (WEIGHT_COUNT i32 each). */
const W_NOT_HOME: i32 = 0;
const W_UNSORTED: i32 = 1;
const W_CELL: i32 = 2;
const W_EMPTY_COLUMN: i32 = 3;
const W_NEXT_DEPTH: i32 = 4;
/** 0: count cards below the top movable run; 1: count cards above the natural sequence on the column's bottom. */
const W_MODE: i32 = 5;
/** Sixteenths of a score point per move of depth: a little breadth against greedy plateaus. */
const W_DEPTH: i32 = 6;
const WEIGHT_COUNT: i32 = 8;
const WEIGHTS: usize = memory.data(SCANS * WEIGHT_COUNT * 4);
const MIN_BUCKET: usize = memory.data(SCANS * 4);
let weightsOverridden: bool = false;
let parentDepth: i32 = 0;

/** Flag in a record's move word: the position has been expanded. */
const EXPANDED: u32 = 0x80000000;
/** Flag in a record's move word: auto-moves followed the move into this position. */
const AUTO_FOLLOWED: u32 = 0x40000000;
const DEPTH_SHIFT: u32 = 20;
const DEPTH_MAX: i32 = 1023;

/**
 * The card the move into PARENT moved, when its moves in PARENT can only
 * repeat positions already generated (0 otherwise). Let G be the position the
 * record was first reached from, and PARENT = G plus one single-card move of
 * card c (not to a foundation) with no auto-move after it. Then a card other
 * than c is exposed in PARENT but not in G only where c left (the card c sat
 * on, or an empty column or free cell), and foundations are as in G. So a
 * move of c in PARENT either puts c back (giving G) or takes it where it could
 * have gone from G, with the same result as that move from G: a sibling,
 * generated when G was expanded (a position is expanded only after its
 * parent). Skipping these moves changes no stored position, only saves
 * lookups; the set of positions explored, and so every verdict and proof
 * certificate, stays the same.
 */
let repeatCard: i32 = 0;

// @ts-ignore: decorator
@inline function weight(scan: i32, w: i32): i32 {
  return load<i32>(WEIGHTS + (<usize>(scan * WEIGHT_COUNT + w) << 2));
}

function setWeights(scan: i32, notHome: i32, unsorted: i32, cell: i32, emptyColumn: i32, nextDepth: i32, mode: i32, depth: i32): void {
  const at = WEIGHTS + (<usize>(scan * WEIGHT_COUNT) << 2);
  store<i32>(at, notHome, 0);
  store<i32>(at, unsorted, 4);
  store<i32>(at, cell, 8);
  store<i32>(at, emptyColumn, 12);
  store<i32>(at, nextDepth, 16);
  store<i32>(at, mode, 20);
  store<i32>(at, depth, 24);
}

/**
 * Sets the default weights for the current build rule (unless a tuning run
 * overrode them). Tuned with the bench on MS FreeCell 1..5000, PySolFC
 * Seahaven Towers and Baker's Game 1..500, Beleaguered Castle and Streets
 * and Alleys 1..100 (docs/search.md §7).
 */
function chooseWeights(): void {
  if (weightsOverridden) return;
  if (buildRule == BUILD_ALTERNATE_COLOR) {
    setWeights(0, 6, 3, 4, 6, 2, 0, 32);
    setWeights(1, 6, 3, 2, 6, 2, 0, 32);
  } else if (buildRule == BUILD_RANK) {
    setWeights(0, 6, 3, 4, 6, 2, 1, 48);
    setWeights(1, 6, 3, 4, 6, 2, 0, 24);
  } else {
    setWeights(0, 6, 3, 4, 6, 2, 1, 24);
    setWeights(1, 6, 3, 2, 6, 2, 0, 32);
  }
}

/** Tuning hook (bench/tune only): fixes the weights of one scan for every later solve. */
export function setHeuristicWeights(scan: i32, notHome: i32, unsorted: i32, cell: i32, emptyColumn: i32, nextDepth: i32, mode: i32, depth: i32): void {
  setWeights(scan, notHome, unsorted, cell, emptyColumn, nextDepth, mode, depth);
  weightsOverridden = true;
}

/** Cards at the top of column `col` that form one movable sequence. */
function topRunLength(p: usize, col: i32): i32 {
  const n = columnLength(p, col);
  if (n == 0) return 0;
  let run = 1;
  while (run < n && buildsOn(cardAt(p, col, n - run), cardAt(p, col, n - run - 1))) run++;
  return run;
}

let featureNotHome: i32 = 0;
let featureUnsortedTop: i32 = 0;
let featureUnsortedBottom: i32 = 0;
let featureCellsUsed: i32 = 0;
let featureEmptyColumns: i32 = 0;
let featureNextDepth: i32 = 0;

/**
 * Measures a position for the scores: cards not home, cards buried under
 * out-of-order cards (two ways), occupied cells, empty columns, and how deep
 * the next foundation cards lie (features from docs/search.md §1 and §6).
 */
function measure(p: usize): void {
  let home = 0;
  for (let s = 0; s < 4; s++) home += foundation(p, s);
  featureNotHome = 52 - home;
  featureUnsortedTop = 0;
  featureUnsortedBottom = 0;
  featureEmptyColumns = 0;
  featureNextDepth = 0;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    if (n == 0) {
      featureEmptyColumns++;
      continue;
    }
    featureUnsortedTop += n - topRunLength(p, c);
    let ok = 1;
    while (ok < n && buildsOn(cardAt(p, c, ok), cardAt(p, c, ok - 1))) ok++;
    featureUnsortedBottom += n - ok;
    for (let i = 0; i < n; i++) {
      const card = cardAt(p, c, i);
      if (foundation(p, suitOf(card)) + 1 == rankOf(card)) featureNextDepth += n - 1 - i;
    }
  }
  featureCellsUsed = numCells - emptyCellCount(p);
}

/** Score of the measured position for one scan, lower is better, clamped to a bucket. */
function score(scan: i32, depth: i32): i32 {
  let s = featureNotHome * weight(scan, W_NOT_HOME)
    + (weight(scan, W_MODE) == 0 ? featureUnsortedTop : featureUnsortedBottom) * weight(scan, W_UNSORTED)
    + featureCellsUsed * weight(scan, W_CELL)
    - featureEmptyColumns * weight(scan, W_EMPTY_COLUMN)
    + featureNextDepth * weight(scan, W_NEXT_DEPTH)
    + ((depth * weight(scan, W_DEPTH)) >> 4)
    + SCORE_OFFSET;
  return s < 0 ? 0 : s >= NUM_BUCKETS ? NUM_BUCKETS - 1 : s;
}

// ---------------------------------------------------------------------------
// Open lists (bucket queues threaded through the records' `next` fields)

/** Queues a measured position in every scan's open list. */
function pushOpen(index: u32, depth: i32): void {
  const rec = recordAt(index);
  for (let scan = 0; scan < SCANS; scan++) {
    const bucket = score(scan, depth);
    const head = BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2);
    store<u32>(rec + 8 + (<usize>scan << 2), load<u32>(head));
    store<u32>(head, index);
    const minAt = MIN_BUCKET + (<usize>scan << 2);
    if (bucket < load<i32>(minAt)) store<i32>(minAt, bucket);
  }
}

/** Takes the best position of one scan's list that no scan has expanded yet; 0 when the list is empty. */
function popOpen(scan: i32): u32 {
  const minAt = MIN_BUCKET + (<usize>scan << 2);
  let bucket = load<i32>(minAt);
  while (bucket < NUM_BUCKETS) {
    const head = BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2);
    const index = load<u32>(head);
    if (index == 0) {
      bucket++;
      continue;
    }
    const rec = recordAt(index);
    store<u32>(head, load<u32>(rec + 8 + (<usize>scan << 2)));
    const move = load<u32>(rec, 4);
    if (move & EXPANDED) continue;
    store<u32>(rec, move | EXPANDED, 4);
    store<i32>(minAt, bucket);
    return index;
  }
  store<i32>(minAt, NUM_BUCKETS);
  return 0;
}

// ---------------------------------------------------------------------------
// Children

// @ts-ignore: decorator
@inline function packMove(card: i32, kind: u32, onto: i32, count: i32): u32 {
  return <u32>card | (kind << 6) | (<u32>onto << 8) | (<u32>count << 14);
}

// Children are made in place: expand() plays a move on PARENT itself, and
// addChild() puts PARENT back by restoring its header (column lengths, free
// cells, foundations: the first HEADER_BYTES bytes). That is enough because a
// move and the auto-moves after it change card bytes only past the end of a
// column (where the moved cards land), and bytes past a column's length are
// not part of the position. Saves copying the whole position per child.
const HEADER_BYTES: i32 = OFF_CARDS;
const SAVED_HEADER: usize = memory.data(HEADER_BYTES);

// @ts-ignore: decorator
@inline function saveHeader(p: usize): void {
  memory.copy(SAVED_HEADER, p, HEADER_BYTES);
}

// @ts-ignore: decorator
@inline function restoreHeader(p: usize): void {
  memory.copy(p, SAVED_HEADER, HEADER_BYTES);
}

/**
 * PARENT holds the child (the move just played on it): applies auto-moves,
 * looks the child up, queues it when new, and puts PARENT back. Returns
 * false when the search must stop (won, or a budget ran out).
 */
function addChild(parent: u32, move: u32): bool {
  const child = PARENT;
  const autoMoved = applyAutoMoves(child, false);
  encodeKey(child, KEY);
  const index = findOrInsert(KEY, hashKey(KEY), parent, move);
  let goOn = true;
  if (index == 0) {
    stopReason = insertFailure == FAIL_MEMORY ? REASON_MEMORY : insertFailure == FAIL_STOPPED ? insertStopReason : REASON_MAX_STATES;
    goOn = false;
  } else if (lastInsertWasNew) {
    if (isWon(child)) {
      goalIndex = index;
      goOn = false;
    } else {
      const depth = parentDepth < DEPTH_MAX ? parentDepth + 1 : DEPTH_MAX;
      store<u32>(recordAt(index), move | (<u32>depth << DEPTH_SHIFT) | (autoMoved ? AUTO_FOLLOWED : 0), 4);
      measure(child);
      pushOpen(index, depth);
    }
  }
  restoreHeader(child);
  return goOn;
}

/** Moves the top `count` cards of column `from` onto column `to` of position `p`. */
// @ts-ignore: decorator
@inline function moveRun(p: usize, from: i32, to: i32, count: i32): void {
  const n = columnLength(p, from);
  const m = columnLength(p, to);
  memory.copy(
    p + OFF_CARDS + to * COLUMN_STRIDE + m,
    p + OFF_CARDS + from * COLUMN_STRIDE + n - count,
    count,
  );
  setColumnLength(p, from, n - count);
  setColumnLength(p, to, m + count);
}

/** First empty free cell of a position, -1 when none. */
function firstEmptyCell(p: usize): i32 {
  for (let i = 0; i < numCells; i++) if (cellCard(p, i) == 0) return i;
  return -1;
}

/**
 * Generates every move of PARENT (record `parent`) and adds the children
 * (made in place, see addChild).
 * Only one empty column and one empty cell are tried as targets: all empty
 * columns (and cells) are alike under the canonical key. Moving a whole
 * column into an empty one gives the same position and is skipped.
 * Returns false when the search must stop.
 */
function expand(parent: u32): bool {
  const p = PARENT;
  saveHeader(p);
  const freeCells = emptyCellCount(p);
  const emptyColumns = emptyColumnCount(p);
  let firstEmptyColumn = -1;
  for (let c = 0; c < numColumns; c++) {
    if (columnLength(p, c) == 0) {
      firstEmptyColumn = c;
      break;
    }
  }

  // Foundation moves the auto-move rule did not take.
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    if (card != 0 && card != repeatCard && fitsFoundation(p, card)) {
      setCellCard(p, i, 0);
      setFoundation(p, suitOf(card), rankOf(card));
      if (!addChild(parent, packMove(card, MOVE_TO_FOUNDATION, 0, 1))) return false;
    }
  }
  for (let c = 0; c < numColumns; c++) {
    const card = topCard(p, c);
    if (card != 0 && card != repeatCard && fitsFoundation(p, card)) {
      setColumnLength(p, c, columnLength(p, c) - 1);
      setFoundation(p, suitOf(card), rankOf(card));
      if (!addChild(parent, packMove(card, MOVE_TO_FOUNDATION, 0, 1))) return false;
    }
  }

  // Column to column, single cards and sequences.
  const capacityOnCard = sequenceCapacity(freeCells, emptyColumns);
  const capacityToEmpty = emptyColumns > 0 ? sequenceCapacity(freeCells, emptyColumns - 1) : 0;
  for (let from = 0; from < numColumns; from++) {
    const n = columnLength(p, from);
    if (n == 0) continue;
    // the top run only matters when more than one card may move at once
    const run = capacityOnCard > 1 || capacityToEmpty > 1 ? topRunLength(p, from) : 1;
    for (let to = 0; to < numColumns; to++) {
      if (to == from) continue;
      const m = columnLength(p, to);
      if (m > 0) {
        const top = cardAt(p, to, m - 1);
        const most = run < capacityOnCard ? run : capacityOnCard;
        for (let k = 1; k <= most; k++) {
          const card = cardAt(p, from, n - k);
          if (card == repeatCard || !buildsOn(card, top)) continue;
          moveRun(p, from, to, k);
          if (!addChild(parent, packMove(card, MOVE_TO_CARD, top, k))) return false;
        }
      } else if (to == firstEmptyColumn) {
        const most = run < capacityToEmpty ? run : capacityToEmpty;
        for (let k = 1; k <= most; k++) {
          if (k == n) break;
          const card = cardAt(p, from, n - k);
          if (card == repeatCard || !emptyColumnAccepts(card)) continue;
          moveRun(p, from, to, k);
          if (!addChild(parent, packMove(card, MOVE_TO_EMPTY_COLUMN, 0, k))) return false;
        }
      }
    }
  }

  // Free cell to column.
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    if (card == 0 || card == repeatCard) continue;
    for (let to = 0; to < numColumns; to++) {
      const m = columnLength(p, to);
      if (m > 0) {
        const top = cardAt(p, to, m - 1);
        if (!buildsOn(card, top)) continue;
        setCellCard(p, i, 0);
        setCardAt(p, to, m, card);
        setColumnLength(p, to, m + 1);
        if (!addChild(parent, packMove(card, MOVE_TO_CARD, top, 1))) return false;
      } else if (to == firstEmptyColumn && emptyColumnAccepts(card)) {
        setCellCard(p, i, 0);
        setCardAt(p, to, 0, card);
        setColumnLength(p, to, 1);
        if (!addChild(parent, packMove(card, MOVE_TO_EMPTY_COLUMN, 0, 1))) return false;
      }
    }
  }

  // Column to free cell.
  const cell = firstEmptyCell(p);
  if (cell >= 0) {
    for (let from = 0; from < numColumns; from++) {
      const n = columnLength(p, from);
      if (n == 0) continue;
      const card = cardAt(p, from, n - 1);
      if (card == repeatCard) continue;
      setColumnLength(p, from, n - 1);
      setCellCard(p, cell, card);
      if (!addChild(parent, packMove(card, MOVE_TO_CELL, 0, 1))) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Solution

/** Plays one packed move on the real position `p` (real column and cell numbers) and writes it out. */
function playMove(p: usize, move: u32): bool {
  const card = <i32>(move & 63);
  const kind = (move >> 6) & 3;
  const onto = <i32>((move >> 8) & 63);
  const count = <i32>((move >> 14) & 63);

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

  // Lift the cards.
  if (srcKind == SOURCE_CELL) {
    setCellCard(p, srcIndex, 0);
  } else {
    setColumnLength(p, srcIndex, columnLength(p, srcIndex) - count);
  }
  const liftedFrom = p + OFF_CARDS + srcIndex * COLUMN_STRIDE + columnLength(p, srcIndex);
  // Drop them.
  if (dstKind == TARGET_FOUNDATION) {
    setFoundation(p, suitOf(card), rankOf(card));
  } else if (dstKind == TARGET_CELL) {
    setCellCard(p, dstIndex, card);
  } else {
    const m = columnLength(p, dstIndex);
    if (srcKind == SOURCE_CELL) setCardAt(p, dstIndex, m, card);
    else memory.copy(p + OFF_CARDS + dstIndex * COLUMN_STRIDE + m, liftedFrom, count);
    setColumnLength(p, dstIndex, m + count);
  }
  writeMove(srcKind, srcIndex, dstKind, dstIndex, count, card, false);
  return true;
}

/**
 * Writes the solution from the real start position to the won position:
 * the path of packed moves from the start record to `goal`, each followed by
 * the auto-moves it triggers. Returns false on an internal inconsistency.
 */
function reconstructSolution(goal: u32): bool {
  let length = 0;
  let index = goal;
  while (index != 1) {
    if (length >= MAX_PATH) return false;
    const rec = recordAt(index);
    store<u32>(PATH + (<usize>length << 2), load<u32>(rec, 4) & 0xfffff);
    length++;
    index = load<u32>(rec);
  }
  resetOutput();
  copyPosition(PARENT, START);
  applyAutoMoves(PARENT, true);
  for (let i = length - 1; i >= 0; i--) {
    if (!playMove(PARENT, load<u32>(PATH + (<usize>i << 2)))) return false;
    applyAutoMoves(PARENT, true);
  }
  return isWon(PARENT) && !outputOverflow;
}

// ---------------------------------------------------------------------------
// Entry

let lastReason: i32 = REASON_NONE;

/** Reason of the last `unknown` verdict (REASON_*). */
export function lastStopReason(): i32 {
  return lastReason;
}

/**
 * Reads the input block into START. The glue validates every position
 * before it writes one; a block beyond the engine's layout (more than
 * MAX_COLUMNS columns or MAX_CELLS cells, a column longer than a deck) traps
 * here (`unreachable`, reported as engine_trap) instead of being searched.
 */
function readInput(): void {
  if (load<u8>(INPUT) > <u8>MAX_COLUMNS || load<u8>(INPUT, 1) > <u8>MAX_CELLS) unreachable();
  for (let c = 0; c < <i32>load<u8>(INPUT); c++) if (load<u8>(INPUT + 32 + c) > 52) unreachable();
  setRules(load<u8>(INPUT), load<u8>(INPUT, 1), load<u8>(INPUT, 2), load<u8>(INPUT, 3), load<u8>(INPUT, 4), load<u8>(INPUT, 5) != 0);
  memory.fill(START, 0, POSITION_BYTES);
  for (let s = 0; s < 4; s++) setFoundation(START, s, load<u8>(INPUT + 8 + s));
  for (let i = 0; i < MAX_CELLS; i++) setCellCard(START, i, i < numCells ? load<u8>(INPUT + 16 + i) : 0);
  for (let c = 0; c < MAX_COLUMNS; c++) {
    const n = c < numColumns ? <i32>load<u8>(INPUT + 32 + c) : 0;
    setColumnLength(START, c, n);
    for (let i = 0; i < n; i++) setCardAt(START, c, i, load<u8>(INPUT + 64 + c * 64 + i));
  }
}

/**
 * Solves the position in the input block. `maxStates` caps the positions
 * stored; `memoryLimitBytes` caps the linear memory (as f64, up to 4 GiB).
 * Returns a VERDICT_*; for unknown, `lastStopReason()` tells which budget ran out.
 * A solved verdict leaves the solution in the output buffer (output.ts).
 */
export function solve(maxStates: u32, memoryLimitBytes: f64): i32 {
  readInput();
  chooseWeights();
  resetArena(<u64>memoryLimitBytes);
  resetOutput();
  memory.fill(BUCKETS, 0, SCANS * NUM_BUCKETS * 4);
  for (let scan = 0; scan < SCANS; scan++) store<i32>(MIN_BUCKET + (<usize>scan << 2), NUM_BUCKETS);
  stopReason = REASON_NONE;
  lastReason = REASON_NONE;
  goalIndex = 0;
  statesExpanded = 0;

  if (!resetTable(maxStates < 1 ? 1 : maxStates)) {
    lastReason = REASON_MEMORY;
    return VERDICT_UNKNOWN;
  }
  copyPosition(PARENT, START);
  applyAutoMoves(PARENT, false);
  encodeKey(PARENT, KEY);
  const root = findOrInsert(KEY, hashKey(KEY), 0, 0);
  if (root == 0) {
    lastReason = REASON_MEMORY;
    return VERDICT_UNKNOWN;
  }
  if (isWon(PARENT)) {
    goalIndex = root;
  } else {
    measure(PARENT);
    pushOpen(root, 0);
  }

  while (goalIndex == 0) {
    // the scans take turns; when one list runs dry the other goes on alone
    const turn = <i32>(statesExpanded & 1);
    let index = popOpen(turn);
    if (index == 0) index = popOpen(1 - turn);
    if (index == 0) break;
    statesExpanded++;
    if (statesExpanded % POLL_INTERVAL == 0) {
      const reason = pollStop();
      if (reason != 0) {
        stopReason = reason;
        break;
      }
    }
    decodeKey(recordAt(index) + 16, PARENT);
    const word = load<u32>(recordAt(index), 4);
    parentDepth = <i32>((word >> DEPTH_SHIFT) & <u32>DEPTH_MAX);
    repeatCard = (word & AUTO_FOLLOWED) == 0 && ((word >> 6) & 3) != MOVE_TO_FOUNDATION && ((word >> 14) & 63) == 1
      ? <i32>(word & 63)
      : 0;
    if (!expand(index)) {
      if (goalIndex != 0) break;
      if (stopReason != REASON_NONE) break;
    }
  }

  if (goalIndex != 0) {
    return reconstructSolution(goalIndex) ? VERDICT_SOLVED : VERDICT_ERROR;
  }
  if (stopReason != REASON_NONE) {
    lastReason = stopReason;
    return VERDICT_UNKNOWN;
  }
  return VERDICT_UNSOLVABLE;
}

/** Positions stored in the state table by the last solve. */
export function statesStored(): u32 {
  return recordCount;
}

/** Bytes of linear memory the last solve used. */
export function memoryBytesUsed(): f64 {
  return <f64>arenaBytesUsed();
}
