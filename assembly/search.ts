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
  numColumns, numCells, buildRule, emptyColumnRule, wrapRanks, BUILD_ALTERNATE_COLOR, BUILD_RANK, BUILD_SUIT, BUILD_SUIT_UP_OR_DOWN, EMPTY_ANY, EMPTY_KINGS, buildsOn, emptyColumnAccepts, sequenceCapacity, rankOf, suitOf, setRules, setPools, pooledMode, poolOf,
} from './rules';
import {
  POSITION_BYTES, KEY_BYTES, MAX_CELLS, MAX_COLUMNS, COLUMN_STRIDE, OFF_CARDS, OFF_LENGTHS, OFF_FOUNDATIONS, OFF_CELLS,
  columnLength, setColumnLength, cardAt, setCardAt, topCard, cellCard, setCellCard, foundation, setFoundation,
  copyPosition, copyHeader, copyCards, isWon, emptyCellCount, emptyColumnCount, firstEmptyCell, firstEmptyColumn, fitsFoundation, isSafeAutoMove, applyAutoMoves, encodeKey, decodeKey, hashKey, sendHome,
  encodeChildKey, childKeySpliced,
} from './position';
import { resetArena, arenaBytesUsed, allocate } from './arena';
import {
  resetTable, findOrInsert, findOrInsertPosition, touchSlot, touchRecord, recordAt, recordCount, recordParent, recordMove, setRecordMove, recordKey,
  insertFailure, insertStopReason, lastInsertWasNew, FAIL_MEMORY, FAIL_STOPPED, FAIL_STATES,
} from './table';
import { resetEntries, releaseEntries, newEntry, entryAt, entryParent, entryMove, entryHash, entryCount, isSkipped, markSkipped, clearSkipped } from './pending';
import { resetSeen, seenContains, seenAdd, seenOff } from './seen';
import {
  MOVE_TO_FOUNDATION, MOVE_TO_CELL, MOVE_TO_EMPTY_COLUMN, MOVE_TO_CARD, MOVE_BITS, AUTO_FOLLOWED, DONE, DEPTH_MAX,
  packMove, moveCard, moveKind, moveOnto, moveCount, moveDepth, withDepth,
} from './move';
import {
  resetOutput, writeMove, outputOverflow, SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION,
} from './output';

import { pollStop } from './host';
import { readInput } from './input';
import {
  SCANS, W_NOT_HOME, W_UNSORTED, W_CELL, W_EMPTY_COLUMN, W_NEXT_DEPTH, W_MODE, W_DEPTH, weight, choosePreset,
  ruleScans, preludeScan, preludeItems, scanStep, scanStick, lazyQuota, lazyFilter,
} from './presets';
import {
  prepareBoard, buildMask, builds, topRunLength, bottomRunLength, columnTops, topOwner, moveRun, moveCards, applyMove, playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex,
  positionHash, childHash, zobristTerm, BELOW_BOTTOM, BELOW_CELL, IN_CELL, placeColumn, placeCells, cardColumn, cardIndex,
} from './board';
import { chooseLayout, compactLayout, decodeStateKey, encodeStateKey, encodeCompactChild, hashStateKey } from './castle-key';
import { resetOpenStacks, stackPush, stackPop } from './open-stack';
import { layeredRequested, setupLayers, layerOfKey, pushLayer, popLayer, layerHasOpen, MAX_LAYERS } from './layers';
import { layeredTable, setLayeredTable, insertLayer, closeLayersBelow, reclaimForOpenStacks, isRecordIndex } from './table';
import { shardIndex, shardCount, shardOf, parentRef, sendChild, flushOutboxes, setShard, forwardStatus, INBOX, ENTRY_BYTES, ENTRY_HASH, ENTRY_PARENT, ENTRY_WORD, FORWARD_OK, FORWARD_GOAL, FORWARD_FAILED, OUTBOX_MAX } from './shards';

export const VERDICT_SOLVED: i32 = 0;
export const VERDICT_UNSOLVABLE: i32 = 1;
export const VERDICT_UNKNOWN: i32 = 2;
export const VERDICT_ERROR: i32 = 3;

export const REASON_NONE: i32 = 0;
export const REASON_MAX_STATES: i32 = 1;
export const REASON_TIMEOUT: i32 = 2;
export const REASON_MEMORY: i32 = 3;
export const REASON_CANCELLED: i32 = 4;


/** Expansions between two polls of the stop flag and the clock. */
const POLL_INTERVAL: u32 = 512;
/** Buckets of the open list; scores are clamped into 0..NUM_BUCKETS-1. */
const NUM_BUCKETS: i32 = 4096;
const SCORE_OFFSET: i32 = 256;
const MAX_PATH: i32 = 8192;

const START: usize = memory.data(POSITION_BYTES);
const PARENT: usize = memory.data(POSITION_BYTES);
const KEY: usize = memory.data(KEY_BYTES);
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

/** Bucket heads of the open lists, NUM_BUCKETS per scan (item index, 0 = empty). */
const BUCKETS: usize = memory.data(SCANS * NUM_BUCKETS * 4);
/** Scans of the current phase. */
let activeScans: i32 = SCANS;
const MIN_BUCKET: usize = memory.data(SCANS * 4);
let parentDepth: i32 = 0;


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

let featureNotHome: i32 = 0;
let featureUnsortedTop: i32 = 0;
let featureUnsortedBottom: i32 = 0;
let featureCellsUsed: i32 = 0;
let featureEmptyColumns: i32 = 0;
let featureNextDepth: i32 = 0;
let featureBlocked: i32 = 0;
/** Some scan of this solve counts blocked cards (W_MODE 2 or 3), so `measure` keeps that feature. */
let useBlocked: bool = false;

/**
 * Per-column terms of the features of the position being expanded (the
 * parent), one i32 per column: cards below the top movable run, cards above
 * the natural sequence on the column's bottom, the top run's length, and
 * (when a scan counts them) the blocked cards. A child differs from its
 * parent only in the columns whose length changed (a move takes cards off
 * the top of one column and puts them on another; auto-moves only take cards
 * off), so `measureChild` recomputes just those.
 */
const COL_TOP: usize = memory.data(MAX_COLUMNS * 4);
const COL_BOTTOM: usize = memory.data(MAX_COLUMNS * 4);
const COL_RUN: usize = memory.data(MAX_COLUMNS * 4);
const COL_BLOCK: usize = memory.data(MAX_COLUMNS * 4);
/** Lowest rank seen per suit (one byte each), scratch of `blockedIn`. */
const LOWEST_RANK: usize = memory.data(4);
let parentBlocked: i32 = 0;
let parentUnsortedTop: i32 = 0;
let parentUnsortedBottom: i32 = 0;

/*
 * The card places (board.ts `cardColumn`, `cardIndex`) are the measured
 * position's: `measure` places every card in play, and the next-card depth
 * asks only for the next foundation card of each suit, which is in play in
 * the measured position and in each of its children (foundations only grow).
 */

/**
 * The next-card depth of `p`: for each suit whose foundation is not full,
 * the cards above its next foundation card when that card is in a column
 * (0 in a free cell), summed; the same as counting, in every column, each
 * card that fits its foundation by its distance from the top. `p` is the
 * position last measured, or one of its children (the move and auto-moves
 * played on it), its columns of changed length in `changed` (bit c =
 * column c). The card places (CARD_COLUMN, CARD_INDEX) are the measured
 * position's. In a child a column's cards below both its old and its new
 * length are the old ones (a move puts cards on one column's top and takes
 * them off another's, auto-moves only take cards off), so a card whose
 * index is below its column's new length is still there; one at or past it
 * was taken off, to a free cell or with the run the move carried to another
 * column, which then is a changed column too, where it is looked for.
 */
// @ts-ignore: decorator
@inline function nextDepthOf(p: usize, changed: u32): i32 {
  let d = 0;
  const foundations = load<u32>(p + OFF_FOUNDATIONS);
  for (let s = 0; s < 4; s++) {
    const f = <i32>((foundations >> (<u32>s << 3)) & 0xff);
    if (f >= 13) continue;
    const card = ((f + 1) << 2) | s;
    const col = cardColumn(card);
    if (col == IN_CELL) continue;
    const i = cardIndex(card);
    const n = columnLength(p, col);
    if (i < n) {
      d += n - 1 - i;
      continue;
    }
    let rest = changed & ~((<u32>1) << <u32>col);
    while (rest != 0) {
      const c = <i32>ctz(rest);
      rest &= rest - 1;
      const m = columnLength(p, c);
      const base = p + OFF_CARDS + c * COLUMN_STRIDE;
      let k = m - 1;
      while (k >= 0 && <i32>load<u8>(base + k) != card) k--;
      if (k >= 0) {
        d += m - 1 - k;
        break;
      }
    }
  }
  return d;
}

/**
 * Cards of column `col` of `p` (length `n`) that lie above a lower card of
 * their own suit: each must leave the column before that card can go home,
 * whatever the build rule (a suit's foundation takes its cards in rank
 * order). The W_MODE 2 feature; in suit building it marks the blockers
 * that a "natural sequence" count (mode 1) misses once the sequence breaks.
 */
function blockedIn(p: usize, col: i32, n: i32): i32 {
  store<u32>(LOWEST_RANK, 0x7f7f7f7f);
  let blocked = 0;
  for (let i = 0; i < n; i++) {
    const card = cardAt(p, col, i);
    const at = LOWEST_RANK + <usize>suitOf(card);
    const rank = rankOf(card);
    if (<i32>load<u8>(at) < rank) blocked++;
    else store<u8>(at, <u8>rank);
  }
  return blocked;
}

// @ts-ignore: decorator
@inline function colTerm(table: usize, col: i32): i32 {
  return load<i32>(table + (<usize>col << 2));
}

/**
 * Measures a position for the scores: cards not home, cards buried under
 * out-of-order cards (two ways), cards above a lower card of their suit
 * (when a scan counts them, `useBlocked`), occupied cells, empty columns, and how deep
 * the next foundation cards lie (features from docs/search.md §1 and §6).
 * Also keeps the per-column terms (COL_*) and the card places (CARD_COLUMN,
 * CARD_INDEX) for `measureChild`.
 *
 * `fromParent`: `p` is the child of the position measured last, in the same
 * column order, and SAVED_HEADER still holds that parent's header (see
 * `measuredHeld`). Then a column whose length did not change keeps the
 * parent's terms and card places (its cards did not change), and a changed
 * one gets its terms from
 * `changedColumnTerms`, as in `measureChild`. The result is the same as a
 * full measure.
 */
// @ts-ignore: decorator
@inline function measure(p: usize, fromParent: bool): void {
  featureNotHome = 52 - homeCount(p);
  featureUnsortedTop = 0;
  featureBlocked = 0;
  featureUnsortedBottom = 0;
  featureEmptyColumns = 0;
  for (let c = 0; c < numColumns; c++) {
    const n = columnLength(p, c);
    const at = <usize>c << 2;
    if (n == 0) {
      featureEmptyColumns++;
      store<i32>(COL_TOP + at, 0);
      store<i32>(COL_BOTTOM + at, 0);
      store<i32>(COL_RUN + at, 0);
      store<i32>(COL_BLOCK + at, 0);
      continue;
    }
    let run: i32;
    let top: i32;
    let bottom: i32;
    let unchanged = false;
    if (!fromParent) {
      run = topRunLength(p, c);
      top = n - run;
      bottom = n - bottomRunLength(p, c, n);
      placeColumn(p, c, n);
    } else if (n == <i32>load<u8>(SAVED_HEADER + OFF_LENGTHS + c)) {
      // the same cards as in the parent (see nextDepthOf), so the same places
      unchanged = true;
      run = colTerm(COL_RUN, c);
      top = colTerm(COL_TOP, c);
      bottom = colTerm(COL_BOTTOM, c);
    } else {
      const terms = changedColumnTerms(p, c, n);
      top = terms >> 16;
      bottom = terms & 0xffff;
      run = n - top;
      placeColumn(p, c, n);
    }
    store<i32>(COL_TOP + at, top);
    store<i32>(COL_BOTTOM + at, bottom);
    store<i32>(COL_RUN + at, run);
    if (useBlocked) {
      // an unchanged column keeps its cards, so its blocked count
      const blocked = unchanged ? colTerm(COL_BLOCK, c) : blockedIn(p, c, n);
      store<i32>(COL_BLOCK + at, blocked);
      featureBlocked += blocked;
    }
    featureUnsortedTop += top;
    featureUnsortedBottom += bottom;
  }
  placeCells(p);
  // every card in play is placed now, so no column needs a search
  featureNextDepth = nextDepthOf(p, 0);
  featureCellsUsed = cellsInUse(p);
  parentUnsortedTop = featureUnsortedTop;
  parentBlocked = featureBlocked;
  parentUnsortedBottom = featureUnsortedBottom;
}

/**
 * The part of `measure` that the move generation reads: the top run length
 * of every column (COL_RUN, 0 for an empty column), for the eager phase's
 * expansions, which measure the rest only when a child is new
 * (`batchParentMeasured`). Leaves the other terms and the card places as
 * they were (stale).
 */
function measureRuns(p: usize): void {
  batchParentMeasured = false;
  for (let c = 0; c < numColumns; c++) store<i32>(COL_RUN + (<usize>c << 2), topRunLength(p, c));
}

/**
 * The record whose position PARENT held, in the same column order, when it
 * was last measured by `expand` (so COL_*, SAVED_HEADER and the parent*
 * sums describe it); 0 after PARENT was rebuilt from a key or the terms were
 * overwritten. The lazy phase then measures a new child of it with
 * `measure(p, true)`.
 */
let measuredHeld: u32 = 0;

/** Cards on the foundations of `p`: the sum of the four foundation bytes (each at most 13, so one multiply adds them). */
// @ts-ignore: decorator
@inline function homeCount(p: usize): i32 {
  return <i32>((load<u32>(p + OFF_FOUNDATIONS) * 0x01010101) >>> 24);
}

/**
 * Occupied free cells of `p`: the non-zero bytes among the MAX_CELLS cell
 * bytes, counted at once. Cells at or past `numCells` are always 0 (readInput
 * and decodeKey clear them, moves use only the first `numCells`), and a card
 * byte is below 0x80, so adding 0x7f to a byte sets its high bit exactly when
 * it is not 0, without a carry into the next byte.
 */
// @ts-ignore: decorator
@inline function cellsInUse(p: usize): i32 {
  const cells = load<u64>(p + OFF_CELLS);
  return <i32>popcnt((cells + 0x7f7f7f7f7f7f7f7f) & 0x8080808080808080);
}

/**
 * The unsorted-card terms (`measure`'s COL_TOP and COL_BOTTOM) of column `c`
 * of the child `p`, whose length changed from the parent's `n0` (in
 * SAVED_HEADER) to `n` > 0, packed as top << 16 | bottom, from the parent's
 * terms where they tell. A move puts cards on top of one column and takes
 * them off the top of another, and auto-moves only take cards off, so the
 * child's column is the parent's with cards taken off, or with cards put on
 * that form a run (they came off a top run, or are one card from a cell):
 * - cards taken off (n < n0): the parent's top run covered cards top0..n0-1,
 *   so while n > top0 the run is n - top0 long and the top term stays top0;
 *   the natural bottom run is min(bottom run, n) long.
 * - cards put on an empty column: the column is one run, both terms 0.
 * - cards put on a card they build on: the top run grows by the cards, the
 *   top term stays; the bottom run grows with them when it was the whole
 *   column. (When the first card put on does not build on the old top, which
 *   no move makes, both terms are recomputed.)
 */
// @ts-ignore: decorator
@inline function changedColumnTerms(p: usize, c: i32, n: i32): i32 {
  const n0 = <i32>load<u8>(SAVED_HEADER + OFF_LENGTHS + c);
  const top0 = colTerm(COL_TOP, c);
  const bottomRun0 = n0 - colTerm(COL_BOTTOM, c);
  if (n < n0) {
    const top = n > top0 ? top0 : n - topRunLength(p, c);
    return (top << 16) | (n - (bottomRun0 < n ? bottomRun0 : n));
  }
  if (n0 == 0) return 0;
  if (builds(cardAt(p, c, n0), cardAt(p, c, n0 - 1))) {
    return (top0 << 16) | (bottomRun0 == n0 ? 0 : n - bottomRun0);
  }
  return ((n - topRunLength(p, c)) << 16) | (n - bottomRunLength(p, c, n));
}

/**
 * Measures the child in PARENT after `measure` of its parent, whose header is
 * in SAVED_HEADER: the same features as `measure` would give, from the
 * parent's per-column terms and the columns that changed. The columns whose
 * length changed, and the empty ones, are found with one SIMD compare of the
 * 16 length bytes each (bit c of a mask = column c). The next-card depth
 * comes from where the parent had each suit's next foundation card
 * (`nextDepthOf`), four look-ups instead of a pass over the changed columns
 * (or, when a card went home, over every column).
 */
// @ts-ignore: decorator
@inline function measureChild(p: usize): void {
  featureNotHome = 52 - homeCount(p);
  const columnMask = (1 << numColumns) - 1;
  const lengths = v128.load(p + OFF_LENGTHS);
  const changedColumns = <u32>(~i8x16.bitmask(i8x16.eq(lengths, v128.load(SAVED_HEADER + OFF_LENGTHS))) & columnMask);
  featureEmptyColumns = <i32>popcnt(i8x16.bitmask(i8x16.eq(lengths, i8x16.splat(0))) & columnMask);
  featureCellsUsed = cellsInUse(p);
  let top = parentUnsortedTop;
  let blocked = parentBlocked;
  let bottom = parentUnsortedBottom;
  let changed = changedColumns;
  while (changed != 0) {
    const c = <i32>ctz(changed);
    changed &= changed - 1;
    top -= colTerm(COL_TOP, c);
    bottom -= colTerm(COL_BOTTOM, c);
    if (useBlocked) blocked -= colTerm(COL_BLOCK, c);
    const n = columnLength(p, c);
    if (n == 0) continue;
    const terms = changedColumnTerms(p, c, n);
    top += terms >> 16;
    bottom += terms & 0xffff;
    if (useBlocked) blocked += blockedIn(p, c, n);
  }
  featureNextDepth = nextDepthOf(p, changedColumns);
  featureUnsortedTop = top;
  featureBlocked = blocked;
  featureUnsortedBottom = bottom;
}

/**
 * The weights of the four scans lane by lane (lane k = scan k), one i32x4 per
 * feature, so that `scores` computes every scan's score at once: WV_TOP holds
 * W_UNSORTED in the lanes of mode-0 scans and 0 elsewhere, WV_BOTTOM in the
 * lanes of mode-1 and mode-3 scans, WV_BLOCKED in those of mode-2 and mode-3
 * scans, so `top * WV_TOP + bottom * WV_BOTTOM + blocked * WV_BLOCKED` is
 * each scan's unsorted term (W_MODE). Filled by `packWeights` from WEIGHTS.
 */
const WV_NOT_HOME: usize = memory.data(16, 16);
const WV_TOP: usize = memory.data(16, 16);
const WV_BOTTOM: usize = memory.data(16, 16);
const WV_BLOCKED: usize = memory.data(16, 16);
const WV_CELL: usize = memory.data(16, 16);
const WV_EMPTY_COLUMN: usize = memory.data(16, 16);
const WV_NEXT_DEPTH: usize = memory.data(16, 16);
const WV_DEPTH: usize = memory.data(16, 16);
/** The last `scores`: bucket of scan k in lane k. */
const SCORES: usize = memory.data(16, 16);

/** Lays this solve's weights (presets.ts `weight`) out for `scores` (WV_*) and sets `useBlocked`; called once per solve, after `choosePreset`. */
function packWeights(): void {
  useBlocked = false;
  for (let scan = 0; scan < SCANS; scan++) if (weight(scan, W_MODE) >= 2) useBlocked = true;
  for (let scan = 0; scan < SCANS; scan++) {
    const at = <usize>scan << 2;
    const mode = weight(scan, W_MODE);
    store<i32>(WV_NOT_HOME + at, weight(scan, W_NOT_HOME));
    store<i32>(WV_TOP + at, mode == 0 ? weight(scan, W_UNSORTED) : 0);
    store<i32>(WV_BOTTOM + at, mode == 1 || mode == 3 ? weight(scan, W_UNSORTED) : 0);
    store<i32>(WV_BLOCKED + at, mode >= 2 ? weight(scan, W_UNSORTED) : 0);
    store<i32>(WV_CELL + at, weight(scan, W_CELL));
    store<i32>(WV_EMPTY_COLUMN + at, weight(scan, W_EMPTY_COLUMN));
    store<i32>(WV_NEXT_DEPTH + at, weight(scan, W_NEXT_DEPTH));
    store<i32>(WV_DEPTH + at, weight(scan, W_DEPTH));
  }
}

/**
 * Scores of the measured position for every scan at once, lower is better,
 * each clamped to a bucket (0..NUM_BUCKETS-1), written to SCORES (lane k =
 * scan k). Per scan the score is
 *   notHome * W_NOT_HOME + unsorted * W_UNSORTED (the cards W_MODE names)
 *   + cellsUsed * W_CELL - emptyColumns * W_EMPTY_COLUMN
 *   + nextDepth * W_NEXT_DEPTH + (depth * W_DEPTH) >> 4 + SCORE_OFFSET,
 * `depth` in moves from the start.
 */
// @ts-ignore: decorator
@inline function scores(depth: i32): void {
  let s = i32x4.mul(i32x4.splat(featureNotHome), v128.load(WV_NOT_HOME));
  s = i32x4.add(s, i32x4.mul(i32x4.splat(featureUnsortedTop), v128.load(WV_TOP)));
  s = i32x4.add(s, i32x4.mul(i32x4.splat(featureUnsortedBottom), v128.load(WV_BOTTOM)));
  if (useBlocked) s = i32x4.add(s, i32x4.mul(i32x4.splat(featureBlocked), v128.load(WV_BLOCKED)));
  s = i32x4.add(s, i32x4.mul(i32x4.splat(featureCellsUsed), v128.load(WV_CELL)));
  s = i32x4.sub(s, i32x4.mul(i32x4.splat(featureEmptyColumns), v128.load(WV_EMPTY_COLUMN)));
  s = i32x4.add(s, i32x4.mul(i32x4.splat(featureNextDepth), v128.load(WV_NEXT_DEPTH)));
  s = i32x4.add(s, i32x4.shr_s(i32x4.mul(i32x4.splat(depth), v128.load(WV_DEPTH)), 4));
  s = i32x4.add(s, i32x4.splat(SCORE_OFFSET));
  s = i32x4.min_s(i32x4.max_s(s, i32x4.splat(0)), i32x4.splat(NUM_BUCKETS - 1));
  v128.store(SCORES, s);
}

// ---------------------------------------------------------------------------
// Open lists (bucket queues threaded through the items' `next` fields)

/**
 * True in the lazy phase: the open lists hold pending moves (pending.ts),
 * linked through their bucket links at 8..20; else stored records
 * (table.ts), as stacks of record indices (open-stack.ts) with the taken
 * bits (`isTaken`). Both keep the move word at offset 4.
 */
let lazyPhase: bool = false;

/** Address of open-list item `index`: a pending move in the lazy phase, else a record. */
// @ts-ignore: decorator
@inline function itemAt(index: u32): usize {
  return lazyPhase ? entryAt(index) : recordAt(index);
}

/**
 * Highest bucket any scan has queued an item in since the open lists were
 * last cleared (`clearOpenLists`); buckets above it are still all zero.
 * Starts at the top, so that the first clear is a full one.
 */
let bucketHigh: i32 = NUM_BUCKETS - 1;

/**
 * Empties every scan's open list: zeroes the bucket heads up to `bucketHigh`
 * (the rest are zero already), a few KiB instead of SCANS * NUM_BUCKETS * 4
 * = 64 KiB per solve.
 */
function clearOpenLists(): void {
  const bytes = <usize>(bucketHigh + 1) << 2;
  for (let scan = 0; scan < SCANS; scan++) {
    memory.fill(BUCKETS + (<usize>(scan * NUM_BUCKETS) << 2), 0, bytes);
    store<i32>(MIN_BUCKET + (<usize>scan << 2), NUM_BUCKETS);
  }
  bucketHigh = 0;
  resetOpenStacks();
  resetTaken();
}

/**
 * The eager phase's taken bits: bit i set when a scan has taken record i
 * (`popOpen`). A record is queued in every scan's list and taken by one; the
 * other scans meet it later and skip it. With the lists as stacks of record
 * indices (open-stack.ts) that skip reads one bit here instead of the record
 * itself, a random read of the state table: on Seahaven Towers 73 and 34
 * (unsolvable, 336,246 and 148,655 positions) `popOpen` was 18 % of the
 * time, nearly all of it in those reads. The bits are kept in chunks of
 * 2^TAKEN_SHIFT records taken from the arena when a record of the chunk is
 * first taken; the record's DONE bit is set as before, and read when no
 * chunk could be had (then a skip reads the record, as before).
 */
const TAKEN_SHIFT: u32 = 18;
const TAKEN_CHUNK_BYTES: u32 = (<u32>1 << TAKEN_SHIFT) >> 3;
const MAX_TAKEN_CHUNKS: u32 = 16384;
const TAKEN_CHUNKS: usize = memory.data(<i32>MAX_TAKEN_CHUNKS * 4);
/** Chunk numbers below this may be set in TAKEN_CHUNKS (the rest are 0). */
let takenChunksUsed: u32 = 0;

/** Forgets every taken bit (after an arena reset, or with the open lists cleared). */
function resetTaken(): void {
  memory.fill(TAKEN_CHUNKS, 0, <usize>takenChunksUsed << 2);
  takenChunksUsed = 0;
}

/** Whether record `index` has its taken bit (`markTaken`); false also when its chunk is missing. */
// @ts-ignore: decorator
@inline function isTaken(index: u32): bool {
  const chunkNo = index >> TAKEN_SHIFT;
  if (chunkNo >= takenChunksUsed) return false;
  const chunk = <usize>load<u32>(TAKEN_CHUNKS + (<usize>chunkNo << 2));
  if (chunk == 0) return false;
  const bit = index & ((<u32>1 << TAKEN_SHIFT) - 1);
  return ((<u32>load<u8>(chunk + <usize>(bit >> 3)) >> (bit & 7)) & 1) != 0;
}

/** Sets the taken bit of record `index`, taking its chunk from the arena (zeroed) when it is the chunk's first; does nothing when the arena has no room. */
function markTaken(index: u32): void {
  const chunkNo = index >> TAKEN_SHIFT;
  if (chunkNo >= MAX_TAKEN_CHUNKS) return;
  const at = TAKEN_CHUNKS + (<usize>chunkNo << 2);
  let chunk = chunkNo < takenChunksUsed ? <usize>load<u32>(at) : 0;
  if (chunk == 0) {
    chunk = allocate(<u64>TAKEN_CHUNK_BYTES);
    if (chunk == 0) return;
    memory.fill(chunk, 0, <usize>TAKEN_CHUNK_BYTES);
    if (chunkNo >= takenChunksUsed) {
      // chunks between the old count and this one are 0 already (resetTaken zeroed them)
      takenChunksUsed = chunkNo + 1;
    }
    store<u32>(at, <u32>chunk);
  }
  const bit = index & ((<u32>1 << TAKEN_SHIFT) - 1);
  const byte = chunk + <usize>(bit >> 3);
  store<u8>(byte, <u8>(<u32>load<u8>(byte) | (<u32>1 << (bit & 7))));
}

/** Links pending move `index` (at `rec`) into bucket `bucket` of scan `scan`'s open list (the lazy phase; the eager phase's buckets are stacks, `pushStacked`). */
// @ts-ignore: decorator
@inline function pushBucket(rec: usize, index: u32, scan: i32, bucket: i32): void {
  const head = BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2);
  store<u32>(rec + 8 + (<usize>scan << 2), load<u32>(head));
  store<u32>(head, index);
}

/**
 * `pushBucket` of the eager phase (both layouts; the compact layout's records
 * have no links): the bucket is a stack of record indices (open-stack.ts),
 * so that a scan can skip a record another scan took by its taken bit
 * (`isTaken`) without reading the record. When the
 * stack finds no memory the search stops for memory (the record is stored
 * but not queued, so the search may not end complete).
 */
function pushStacked(index: u32, scan: i32, bucket: i32): void {
  if (!stackPush(BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2), index)) stopReason = REASON_MEMORY;
}

/** Queues a measured item (a record, or in the lazy phase a pending move) in every scan's open list. */
// @ts-ignore: decorator
@inline function pushOpen(index: u32, depth: i32): void {
  if (layeredTable) {
    // the layered pass: the record's layer (table.ts set `insertLayer` when it stored it)
    if (!pushLayer(index, insertLayer) && !(reclaimForOpenStacks() && pushLayer(index, insertLayer))) stopReason = REASON_MEMORY;
    return;
  }
  const rec = itemAt(index);
  scores(depth);
  const s = v128.load(SCORES);
  const b0 = i32x4.extract_lane(s, 0);
  const b1 = i32x4.extract_lane(s, 1);
  const b2 = i32x4.extract_lane(s, 2);
  const b3 = i32x4.extract_lane(s, 3);
  // the highest of the four lanes (a lane past activeScans is a score too, so this bounds the used ones)
  const top = max(max(b0, b1), max(b2, b3));
  if (top > bucketHigh) bucketHigh = top;
  // every scan's lowest bucket at once (a lane past activeScans is never read: clearOpenLists resets all four)
  v128.store(MIN_BUCKET, i32x4.min_s(v128.load(MIN_BUCKET), s));
  if (!lazyPhase) {
    pushStacked(index, 0, b0);
    if (activeScans > 1) pushStacked(index, 1, b1);
    if (activeScans > 2) pushStacked(index, 2, b2);
    if (activeScans > 3) pushStacked(index, 3, b3);
    return;
  }
  pushBucket(rec, index, 0, b0);
  if (activeScans > 1) pushBucket(rec, index, 1, b1);
  if (activeScans > 2) pushBucket(rec, index, 2, b2);
  if (activeScans > 3) pushBucket(rec, index, 3, b3);
}

/**
 * The parent record of the best pending move of one scan's list that no scan
 * has taken yet, without taking it (0 when the list is empty); lazy phase
 * only. Unlinks the taken items it passes, as `popOpen` would.
 */
function bestParent(scan: i32): u32 {
  const minAt = MIN_BUCKET + (<usize>scan << 2);
  let bucket = load<i32>(minAt);
  while (bucket < NUM_BUCKETS) {
    const head = BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2);
    const index = load<u32>(head);
    if (index == 0) {
      bucket++;
      continue;
    }
    const ent = entryAt(index);
    if (load<u32>(ent, 4) & DONE) {
      store<u32>(head, load<u32>(ent + 8 + (<usize>scan << 2)));
      continue;
    }
    store<i32>(minAt, bucket);
    return entryParent(ent);
  }
  store<i32>(minAt, NUM_BUCKETS);
  return 0;
}

/** Takes the best item of one scan's list that no scan has taken yet (and marks it DONE); 0 when the list is empty. */
function popOpen(scan: i32): u32 {
  const minAt = MIN_BUCKET + (<usize>scan << 2);
  let bucket = load<i32>(minAt);
  while (bucket < NUM_BUCKETS) {
    const head = BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2);
    const stacked = !lazyPhase;
    const index = stacked ? stackPop(head) : load<u32>(head);
    if (index == 0) {
      bucket++;
      continue;
    }
    // a record another scan took: skipped by its bit, without reading the record
    if (stacked && isTaken(index)) continue;
    const rec = itemAt(index);
    if (!stacked) store<u32>(head, load<u32>(rec + 8 + (<usize>scan << 2)));
    const move = load<u32>(rec, 4);
    if (move & DONE) continue;
    store<u32>(rec, move | DONE, 4);
    if (stacked) markTaken(index);
    store<i32>(minAt, bucket);
    return index;
  }
  store<i32>(minAt, NUM_BUCKETS);
  return 0;
}

// ---------------------------------------------------------------------------
// Children

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
  copyHeader(SAVED_HEADER, p);
}

// @ts-ignore: decorator
@inline function restoreHeader(p: usize): void {
  copyHeader(p, SAVED_HEADER);
}

/**
 * What the move into the child in PARENT may have made ready for an
 * auto-move, set by expand() before each addChild(): -1 when a card went
 * home (foundations changed: any card may now be safe), else the card the
 * move uncovered at the top of its source column (0: none, the move came
 * from a free cell or emptied the column). The parent is closed under safe
 * auto-moves (every stored position is taken after them), and with the
 * foundations unchanged a card's safety is unchanged, so that uncovered card
 * is the only one that can start a new auto-move; when it cannot, the
 * closure is skipped. Saves the scan of every cell and column per child.
 */
let exposedCard: i32 = -1;

// ---------------------------------------------------------------------------
// Position hashes for the lazy phase's filter (seen.ts)

/** Hash of the position the lazy phase is expanding (`positionHash` of PARENT before its children are made). */
let expandHash: u64 = 0;

/**
 * `childHash` of a child that no auto-move followed, from the move alone:
 * only the moved card (the deepest of a moved run) lies on something else
 * now. What it lay on comes from the parent's card places (CARD_COLUMN,
 * CARD_INDEX: the parent was measured in this column order), the card under
 * it still in place in the child (the source column only lost cards); what
 * it lies on now from the move word.
 */
// @ts-ignore: decorator
@inline function moveHash(p: usize, move: u32): u64 {
  const card = moveCard(move);
  const col = cardColumn(card);
  let below = BELOW_CELL;
  if (col != IN_CELL) {
    const i = cardIndex(card);
    below = i == 0 ? BELOW_BOTTOM : cardAt(p, col, i - 1);
  }
  let z = expandHash ^ zobristTerm(card, below);
  const kind = moveKind(move);
  if (kind == MOVE_TO_CELL) z ^= zobristTerm(card, BELOW_CELL);
  else if (kind == MOVE_TO_EMPTY_COLUMN) z ^= zobristTerm(card, BELOW_BOTTOM);
  else if (kind == MOVE_TO_CARD) z ^= zobristTerm(card, moveOnto(move));
  return z;
}

/** The lazy phase could not get memory for a pending move: fall back to the eager search. */
let lazyOutOfMemory: bool = false;

/**
 * Stops for a failed insert: sets `stopReason` from `insertFailure`, or in
 * the lazy phase marks a memory failure for the fallback to the eager search.
 */
function insertFailed(): void {
  if (lazyPhase && insertFailure == FAIL_MEMORY) lazyOutOfMemory = true;
  else stopReason = insertFailure == FAIL_MEMORY ? REASON_MEMORY : insertFailure == FAIL_STOPPED ? insertStopReason : REASON_MAX_STATES;
}

/**
 * PARENT holds the child (the move just played on it): applies auto-moves,
 * and puts PARENT back after handling the child. Eager phase: looks the child
 * up and queues it when new. Lazy phase: measures it and queues a pending
 * move (parent, move); only a won child is stored at once. Returns false when
 * the search must stop (won, a budget ran out, or the lazy phase ran out of
 * memory).
 */
function addChild(parent: u32, move: u32): bool {
  const child = PARENT;
  const exposed = exposedCard;
  const autoMoved = exposed < 0 || (exposed > 0 && fitsFoundation(child, exposed) && isSafeAutoMove(child, exposed))
    ? applyAutoMoves(child, false)
    : false;
  const depth = parentDepth < DEPTH_MAX ? parentDepth + 1 : DEPTH_MAX;
  if (lazyPhase) {
    let goOn = true;
    if (isWon(child)) {
      const index = findOrInsertPosition(child, KEY, parent, withDepth(move, depth, autoMoved));
      if (index == 0) insertFailed();
      else goalIndex = index;
      goOn = false;
    } else {
      const hash: u64 = !lazyFilter ? 0 : autoMoved ? childHash(child, SAVED_HEADER, expandHash) : moveHash(child, move);
      const entry = newEntry(parent, withDepth(move, depth, autoMoved), hash);
      if (entry == 0) {
        lazyOutOfMemory = true;
        goOn = false;
      } else {
        measureChild(child);
        pushOpen(entry, depth);
      }
    }
    restoreHeader(child);
    return goOn;
  }
  if (batching) {
    // Eager phase: encode the child now, look it up with its siblings (lookupChildren).
    const k = batchCount;
    const key = BATCH_KEYS + <usize>k * KEY_BYTES;
    // the compact key redoes only the columns the move changed (castle-key.ts)
    if (compactLayout) encodeCompactChild(child, SAVED_HEADER, parent, key);
    else if (pooledMode) encodeStateKey(child, key);
    else encodeChildKey(child, SAVED_HEADER, key); // PARENT was decoded from its key (expandStored): canonical column order
    const hash = hashStateKey(key);
    store<u32>(BATCH_HASH + (<usize>k << 2), hash);
    const won = isWon(child);
    // a won child is stored with the bare move, as below; any other with its depth and AUTO_FOLLOWED
    store<u32>(BATCH_WORD + (<usize>k << 2), won ? move | BATCH_WON : withDepth(move, depth, autoMoved));
    batchCount = k + 1;
    restoreHeader(child);
    return k + 1 < BATCH_MAX || lookupChildren(parent);
  }
  const index = findOrInsertPosition(child, KEY, parent, move);
  let goOn = true;
  if (index == 0) {
    insertFailed();
    goOn = false;
  } else if (lastInsertWasNew) {
    if (isWon(child)) {
      goalIndex = index;
      goOn = false;
    } else {
      setRecordMove(recordAt(index), withDepth(move, depth, autoMoved));
      measureChild(child);
      pushOpen(index, depth);
    }
  }
  restoreHeader(child);
  return goOn;
}

/**
 * Eager phase outside the pooled game: `addChild` does not look each child
 * up at once but encodes its key into BATCH_KEYS (with its hash and move
 * word); the expansion then looks all its children up in the order they
 * were made (`lookupChildren`). The table's slots and records are the memory the eager
 * phase waits for (Seahaven Towers 1..300: `findOrInsert` about 30 % of the
 * time, four lookups an expansion, three of them duplicates); reading the
 * slots of all children first, then the records their hashes point at, lets
 * those cache misses overlap instead of coming one after the other. The
 * lookups, inserts and their order are exactly those of one lookup per
 * child, so the search is the same (docs/engine.md).
 */
let batching: bool = false;
/** Children collected before a lookup pass is forced (more than any position has). */
const BATCH_MAX: i32 = 256;
const BATCH_KEYS: usize = memory.data(BATCH_MAX * KEY_BYTES, 16);
const BATCH_HASH: usize = memory.data(BATCH_MAX * 4);
/** Per collected child: the move word to store (BATCH_WON marks a won child, stored with the bare move). */
const BATCH_WORD: usize = memory.data(BATCH_MAX * 4);
/** In BATCH_WORD: the child is won (bit 31, free in a bare move: MOVE_BITS are bits 0-19). */
const BATCH_WON: u32 = 0x80000000;
let batchCount: i32 = 0;
/**
 * Whether the position being expanded in the eager phase has been measured
 * in full (`measure`: its per-column terms and card places, which the new
 * children's `applyMeasuredMove` and `measureChild` read). `expandChildren`
 * computes only the top runs (`measureRuns`), which the move generation
 * needs; `lookupChildren` measures the rest at the first new child. On
 * Seahaven Towers 1..300, 58 % of the eager expansions (539,534 of 927,064)
 * find no new child and so need no measure.
 */
let batchParentMeasured: bool = false;
/** Where the hint loads go, so that the optimizer keeps them; never read for anything. */
let touchSink: u64 = 0;

/**
 * Looks up the children `addChild` collected for the expansion of record
 * `parent` (PARENT holds it, measured, its header in SAVED_HEADER), in the
 * order they were made: first a pass that reads each child's first slot
 * (`touchSlot`), one that reads the record that slot points at when the
 * hashes agree (`touchRecord`), then `findOrInsert` for each. A new child is played again on PARENT from its move word
 * (`applyMeasuredMove`, then the auto-moves when AUTO_FOLLOWED says there
 * were some: the same position), measured and queued, and PARENT put back.
 * Returns false when the search must stop (a won child, or a failed insert),
 * after the children before it, as `addChild` one by one would.
 */
function lookupChildren(parent: u32): bool {
  const n = batchCount;
  batchCount = 0;
  // two tight passes of independent loads, so that their misses overlap
  let sink = touchSink;
  if (shardCount > 1) {
    // the sharded layered pass: only this shard's children are looked up here
    for (let k = 0; k < n; k++) {
      const hash = load<u32>(BATCH_HASH + (<usize>k << 2));
      if (shardOf(hash) == shardIndex) sink ^= touchSlot(hash);
    }
    for (let k = 0; k < n; k++) {
      const hash = load<u32>(BATCH_HASH + (<usize>k << 2));
      if (shardOf(hash) == shardIndex) sink ^= touchRecord(hash);
    }
  } else {
    for (let k = 0; k < n; k++) sink ^= touchSlot(load<u32>(BATCH_HASH + (<usize>k << 2)));
    for (let k = 0; k < n; k++) sink ^= touchRecord(load<u32>(BATCH_HASH + (<usize>k << 2)));
  }
  touchSink = sink;
  const depth = parentDepth < DEPTH_MAX ? parentDepth + 1 : DEPTH_MAX;
  // the parent as a (shard, index) reference: the index itself unless the layered pass is sharded (shards.ts)
  const ref = parentRef(parent);
  for (let k = 0; k < n; k++) {
    const word = load<u32>(BATCH_WORD + (<usize>k << 2));
    // the layered pass rests on no child being below the layer expanded (layers.ts): checked on every child
    if (layeredTable && layerOfKey(BATCH_KEYS + <usize>k * KEY_BYTES) < currentLayer) {
      layerViolations++;
      return false;
    }
    const hash = load<u32>(BATCH_HASH + (<usize>k << 2));
    if (shardCount > 1) {
      // the sharded layered pass: a child of another shard goes to its outbox (shards.ts)
      const target = shardOf(hash);
      if (target != shardIndex) {
        if (!sendChild(target, BATCH_KEYS + <usize>k * KEY_BYTES, hash, ref, word)) return false;
        continue;
      }
    }
    const index = findOrInsert(BATCH_KEYS + <usize>k * KEY_BYTES, hash, ref, word & ~BATCH_WON);
    if (index == 0) {
      insertFailed();
      return false;
    }
    if (!lastInsertWasNew) continue;
    if (word & BATCH_WON) {
      goalIndex = index;
      return false;
    }
    if (layeredTable) {
      // no scores to measure: the layer orders the pass
      pushOpen(index, depth);
      if (stopReason != REASON_NONE) return false;
      continue;
    }
    if (!batchParentMeasured) {
      measure(PARENT, false);
      batchParentMeasured = true;
    }
    applyMeasuredMove(PARENT, word & MOVE_BITS);
    if (word & AUTO_FOLLOWED) applyAutoMoves(PARENT, false);
    measureChild(PARENT);
    pushOpen(index, depth);
    restoreHeader(PARENT);
  }
  return true;
}

/**
 * The children of `p` that move the top 1..`most` cards of column `from`
 * (`n` cards) into the empty column `to`, never the whole column (that
 * would only swap two columns); each through `addChild`, in that order.
 * False when `addChild` says the search must end.
 */
// @ts-ignore: decorator
@inline function addMovesToEmptyColumn(p: usize, parent: u32, from: i32, to: i32, n: i32, most: i32): bool {
  for (let k = 1; k <= most; k++) {
    if (k == n) break;
    const card = cardAt(p, from, n - k);
    if (card == repeatCard || !emptyColumnAccepts(card)) continue;
    moveRun(p, from, to, k);
    exposedCard = cardAt(p, from, n - k - 1);
    if (!addChild(parent, packMove(card, MOVE_TO_EMPTY_COLUMN, 0, k))) return false;
  }
  return true;
}

/**
 * Generates every move of PARENT (record `parent`) and adds the children
 * (made in place, see addChild).
 * Only one empty column and one empty cell are tried as targets: all empty
 * columns (and cells) are alike under the canonical key. Moving a whole
 * column into an empty one gives the same position and is skipped.
 * Returns false when the search must stop.
 */
function expand(parent: u32, fromParent: bool): bool {
  if (!batching) return expandChildren(parent, fromParent);
  batchCount = 0;
  return expandChildren(parent, fromParent) && lookupChildren(parent);
}

/** `expand` but for the eager phase's lookup pass (`lookupChildren`): generates the moves of PARENT and hands each child to `addChild`. */
function expandChildren(parent: u32, fromParent: bool): bool {
  const p = PARENT;
  // The eager phase's lookups measure the parent only when a child is new (`lookupChildren`).
  if (batching) measureRuns(p);
  else measure(p, fromParent);
  saveHeader(p);
  measuredHeld = parent;
  const freeCells = emptyCellCount(p);
  const emptyColumns = emptyColumnCount(p);
  const emptyTarget = firstEmptyColumn(p);

  // Foundation moves the auto-move rule did not take.
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    if (card != 0 && card != repeatCard && fitsFoundation(p, card)) {
      setCellCard(p, i, 0);
      sendHome(p, card);
      exposedCard = -1;
      if (!addChild(parent, packMove(card, MOVE_TO_FOUNDATION, 0, 1))) return false;
    }
  }
  for (let c = 0; c < numColumns; c++) {
    const card = topCard(p, c);
    if (card != 0 && card != repeatCard && fitsFoundation(p, card)) {
      setColumnLength(p, c, columnLength(p, c) - 1);
      sendHome(p, card);
      exposedCard = -1;
      if (!addChild(parent, packMove(card, MOVE_TO_FOUNDATION, 0, 1))) return false;
    }
  }

  // Column to column, single cards and sequences. Under the rank-down builds
  // without wrapping (alternate colours, suit, any suit) a card builds on
  // `below` only when its rank is one less, so in a column's top run (every
  // card building on the one under it) the card k from the top has the
  // exposed card's rank + k - 1, and each target column takes at most one
  // run length. There the targets come from masks (`rankStep`, below).
  const directRunLength = !wrapRanks && buildRule != BUILD_SUIT_UP_OR_DOWN;
  const capacityOnCard = sequenceCapacity(freeCells, emptyColumns);
  const capacityToEmpty = emptyColumns > 0 ? sequenceCapacity(freeCells, emptyColumns - 1) : 0;
  // Not in the pooled game: two columns may show the same card byte there (two
  // cards of one rank and pool), and a top-card mask names only one of them.
  if (directRunLength && !pooledMode) {
    // The columns' top cards as a mask (bit = card) and their owners
    // (board.ts `columnTops`): the targets of a card are buildMask(card) &
    // tops. The target columns of one source are gathered into a column mask
    // and taken in ascending column order, the empty target among them at its
    // index, so the children come in the same order as from the loop over
    // every target column below (same search, fewer tests).
    const tops = columnTops(p);
    const emptyBit: u32 = emptyTarget >= 0 ? (<u32>1) << <u32>emptyTarget : 0;
    for (let from = 0; from < numColumns; from++) {
      const n = columnLength(p, from);
      if (n == 0) continue;
      // the top run only matters when more than one card may move at once
      const run = capacityOnCard > 1 || capacityToEmpty > 1 ? colTerm(COL_RUN, from) : 1;
      const most = run < capacityOnCard ? run : capacityOnCard;
      let targets: u32 = 0;
      for (let k = 1; k <= most; k++) {
        let on = buildMask(cardAt(p, from, n - k)) & tops;
        while (on != 0) {
          targets |= (<u32>1) << <u32>topOwner(<i32>ctz(on));
          on &= on - 1;
        }
      }
      targets |= emptyBit;
      const exposedRank = rankOf(cardAt(p, from, n - 1));
      while (targets != 0) {
        const to = <i32>ctz(targets);
        targets &= targets - 1;
        const m = columnLength(p, to);
        if (m > 0) {
          const top = cardAt(p, to, m - 1);
          const k = rankOf(top) - exposedRank;
          const card = cardAt(p, from, n - k);
          if (card == repeatCard) continue;
          moveRun(p, from, to, k);
          exposedCard = k < n ? cardAt(p, from, n - k - 1) : 0;
          if (!addChild(parent, packMove(card, MOVE_TO_CARD, top, k))) return false;
        } else if (!addMovesToEmptyColumn(p, parent, from, to, n, run < capacityToEmpty ? run : capacityToEmpty)) {
          return false;
        }
      }
    }

    // Free cell to column.
    for (let i = 0; i < numCells; i++) {
      const card = cellCard(p, i);
      if (card == 0 || card == repeatCard) continue;
      let targets: u32 = 0;
      let on = buildMask(card) & tops;
      while (on != 0) {
        targets |= (<u32>1) << <u32>topOwner(<i32>ctz(on));
        on &= on - 1;
      }
      if (emptyColumnAccepts(card)) targets |= emptyBit;
      while (targets != 0) {
        const to = <i32>ctz(targets);
        targets &= targets - 1;
        const m = columnLength(p, to);
        setCellCard(p, i, 0);
        setCardAt(p, to, m, card);
        setColumnLength(p, to, m + 1);
        exposedCard = 0;
        const move = m > 0 ? packMove(card, MOVE_TO_CARD, cardAt(p, to, m - 1), 1) : packMove(card, MOVE_TO_EMPTY_COLUMN, 0, 1);
        if (!addChild(parent, move)) return false;
      }
    }
  } else {
    for (let from = 0; from < numColumns; from++) {
      const n = columnLength(p, from);
      if (n == 0) continue;
      // the top run only matters when more than one card may move at once
      const run = capacityOnCard > 1 || capacityToEmpty > 1 ? colTerm(COL_RUN, from) : 1;
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
            exposedCard = k < n ? cardAt(p, from, n - k - 1) : 0;
            if (!addChild(parent, packMove(card, MOVE_TO_CARD, top, k))) return false;
          }
        } else if (to == emptyTarget) {
          if (!addMovesToEmptyColumn(p, parent, from, to, n, run < capacityToEmpty ? run : capacityToEmpty)) return false;
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
          exposedCard = 0;
          if (!addChild(parent, packMove(card, MOVE_TO_CARD, top, 1))) return false;
        } else if (to == emptyTarget && emptyColumnAccepts(card)) {
          setCellCard(p, i, 0);
          setCardAt(p, to, 0, card);
          setColumnLength(p, to, 1);
          exposedCard = 0;
          if (!addChild(parent, packMove(card, MOVE_TO_EMPTY_COLUMN, 0, 1))) return false;
        }
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
      exposedCard = n > 1 ? cardAt(p, from, n - 2) : 0;
      if (!addChild(parent, packMove(card, MOVE_TO_CELL, 0, 1))) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Solution

/** Plays one packed move on the real position `p` (real column and cell numbers) and writes it out. */
function playMove(p: usize, move: u32): bool {
  if (!applyMove(p, move)) return false;
  writeMove(playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex, moveCount(move), moveCard(move), false);
  return true;
}

/**
 * Plays the packed move `move` of the measured position on it (`p`, the
 * position whose card places `measure` keeps: measuredHeld): the source
 * column and the target column are read from CARD_COLUMN instead of
 * searched for, the rest as in `applyMove` (a card in a free cell is found
 * by a scan of the cells). Traps on a move that does not fit (an internal
 * inconsistency).
 */
function applyMeasuredMove(p: usize, move: u32): void {
  const card = moveCard(move);
  const kind = moveKind(move);
  const count = moveCount(move);
  let srcKind = SOURCE_COLUMN;
  let srcIndex = cardColumn(card);
  if (srcIndex == IN_CELL) {
    srcKind = SOURCE_CELL;
    srcIndex = -1;
    for (let i = 0; i < numCells; i++) if (cellCard(p, i) == card) srcIndex = i;
    if (srcIndex < 0) unreachable();
  } else if (cardIndex(card) != columnLength(p, srcIndex) - count) {
    unreachable();
  }
  let dstKind = TARGET_COLUMN;
  let dstIndex = -1;
  if (kind == MOVE_TO_FOUNDATION) {
    dstKind = TARGET_FOUNDATION;
    dstIndex = suitOf(card);
  } else if (kind == MOVE_TO_CELL) {
    dstKind = TARGET_CELL;
    dstIndex = firstEmptyCell(p);
  } else if (kind == MOVE_TO_EMPTY_COLUMN) {
    dstIndex = firstEmptyColumn(p);
  } else {
    dstIndex = cardColumn(moveOnto(move));
    if (dstIndex == IN_CELL || topCard(p, dstIndex) != moveOnto(move)) unreachable();
  }
  if (dstIndex < 0) unreachable();
  moveCards(p, card, count, srcKind, srcIndex, dstKind, dstIndex);
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
    store<u32>(PATH + (<usize>length << 2), recordMove(rec) & MOVE_BITS);
    length++;
    index = recordParent(rec);
  }
  return replayPath(length);
}

/**
 * Plays the `length` moves of PATH (the last move first, as
 * `reconstructSolution` leaves them) from START, writing each and its
 * auto-moves to the output buffer; true when they end won (and fit).
 */
function replayPath(length: i32): bool {
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
 * Resets the arena, the state table, the open lists and the pending moves
 * for one phase, and stores and queues the start position (in the eager
 * phase as a record; in the lazy phase it is expanded at once, its moves
 * becoming pending moves). Returns false when out of memory, or when the
 * start is already won (goalIndex set).
 */
function startPhase(maxStates: u32, memoryLimitBytes: f64): bool {
  resetArena(<u64>memoryLimitBytes);
  seenOff();
  resetEntries(lazyPhase && lazyFilter);
  clearOpenLists();
  measuredHeld = 0;
  goalIndex = 0;
  lazyOutOfMemory = false;
  chooseLayout(START);
  setLayeredTable(layeredRun && compactLayout);
  if (layeredTable) {
    setupLayers(START, numColumns);
    currentLayer = 0;
  }
  if (!resetTable(maxStates < 1 ? 1 : maxStates)) {
    stopReason = REASON_MEMORY;
    return false;
  }
  copyPosition(PARENT, START);
  applyAutoMoves(PARENT, false);
  if (shardCount > 1) {
    // the sharded layered pass: the start is stored by its own shard only
    encodeStateKey(PARENT, KEY);
    if (shardOf(hashStateKey(KEY)) != shardIndex) return true;
  }
  const root = findOrInsertPosition(PARENT, KEY, 0, 0);
  if (root == 0) {
    stopReason = REASON_MEMORY;
    return false;
  }
  if (isWon(PARENT)) {
    goalIndex = root;
    return false;
  }
  if (lazyPhase) {
    setRecordMove(recordAt(root), DONE);
    parentDepth = 0;
    repeatCard = 0;
    statesExpanded++;
    skippedCount = 0;
    if (lazyFilter) {
      expandHash = positionHash(PARENT);
      if (resetSeen()) seenAdd(expandHash);
    }
    lazyHeld = root;
    heldStale = false;
    heldSorted = false; // the deal's column order
    if (!expand(root, false)) return false;
  } else {
    measure(PARENT, false);
    pushOpen(root, 0);
  }
  return true;
}

/**
 * The card a stored position's moves may skip (see `repeatCard`), from the
 * move word of its record.
 */
// @ts-ignore: decorator
@inline function repeatCardOf(word: u32): i32 {
  // Pooled game: none, since another card of the same rank and pool has the same byte (and other moves).
  return !pooledMode && (word & AUTO_FOLLOWED) == 0 && moveKind(word) != MOVE_TO_FOUNDATION && moveCount(word) == 1 ? moveCard(word) : 0;
}

/** The scan whose turn it is after the prelude, and the items it took in a row. */
let turnScan: i32 = 0;
let turnItems: u32 = 0;

/**
 * Takes the next item of the scan whose turn it is (the next one when that
 * list is dry); 0 when every list is empty. After the prelude the scans take
 * `scanStep` items a turn, and in the lazy phase a scan keeps its turn for up
 * to `scanStick` items while its best pending move is one of the position
 * `held` (a dive: no parent to rebuild).
 */
// @ts-ignore: decorator
@inline function popNext(held: u32): u32 {
  let turn: i32;
  if (polls < preludeItems) {
    turn = preludeScan;
  } else {
    if (turnItems >= scanStep) {
      const keep = lazyPhase && turnItems < scanStick && bestParent(turnScan) == held;
      if (!keep) {
        turnScan = turnScan + 1 >= activeScans ? 0 : turnScan + 1;
        turnItems = 0;
      }
    }
    turnItems++;
    turn = turnScan;
  }
  for (let k = 0; k < activeScans; k++) {
    let scan = turn + k;
    if (scan >= activeScans) scan -= activeScans;
    const index = popOpen(scan);
    if (index != 0) return index;
  }
  return 0;
}

/** Items taken from the open lists this solve (both phases); paces the polls and the scans' turns. */
let polls: u32 = 0;
/** Parents the last solve's lazy phase rebuilt from their keys (`decodeKey` at a pop: the parent was not the position held). */
let decodes: u32 = 0;

/** Polls the host every POLL_INTERVAL items; true when the search must stop (stopReason set). */
// @ts-ignore: decorator
@inline function mustStop(): bool {
  polls++;
  if (polls % POLL_INTERVAL == 0) {
    const reason = pollStop();
    if (reason != 0) {
      stopReason = reason;
      return true;
    }
  }
  return false;
}

/**
 * The host's stop check of the loops over every pending move (`handOver`,
 * `verifySkipped`): polls every POLL_INTERVAL * 16 entries (`item` is the
 * entry's number, 1-based) and records the host's reason in `stopReason`.
 * True when the search must stop.
 */
// @ts-ignore: decorator
@inline function mustStopAtEntry(item: u32): bool {
  if (item % (POLL_INTERVAL * 16) != 0) return false;
  const reason = pollStop();
  if (reason == 0) return false;
  stopReason = reason;
  return true;
}

/** Header of the position PARENT held before a pending move was played on it. */
const POP_HEADER: usize = memory.data(HEADER_BYTES);

/**
 * The lazy phase: best-first over pending moves. Expanding a position
 * measures and scores each child but stores none; a scan takes the best
 * pending move, plays it on its parent, and only then encodes the result and
 * looks it up. A new position is stored and expanded at once; a position
 * met before is dropped. So the table holds only expanded positions (and the
 * won one), and a dive that follows the scores stores one position per step
 * instead of every child of every step.
 *
 * Complete when the open lists run dry: every stored position was expanded
 * when it was stored, every move of it (but the `repeatCard` moves, whose
 * results are results of pending moves of its parent) was queued, and every
 * queued move was looked up, so the table is closed under moves: it is the
 * whole reachable set, the same set the eager phase would store.
 * Ends with goalIndex, stopReason, or lazyOutOfMemory set, or none (complete).
 */
function lazySearch(): void {
  while (true) {
    lazyLoop();
    if (goalIndex != 0 || stopReason != REASON_NONE || lazyOutOfMemory || lazyQuotaReached) return;
    // the open lists ran dry: complete once every move dropped on a filter hit is checked by its key
    if (skippedCount == 0 || !verifySkipped()) return;
  }
}

/**
 * The record whose position PARENT holds, or (`heldStale`) is taken to hold:
 * a pop whose result the filter knew moves `lazyHeld` to its parent without
 * rebuilding it, exactly where the full path would have rebuilt it, so that
 * the scans' turns (`popNext`) and the measures from the parent see the same
 * `lazyHeld` and `measuredHeld` as without the filter; the rebuild happens
 * at the next pop that needs PARENT.
 */
let lazyHeld: u32 = 0;
let heldStale: bool = false;
/**
 * Whether PARENT, as `lazyHeld`'s position, has its non-empty columns in
 * canonical order (position.ts `encodeChildKey`'s precondition), so that the
 * keys of the moves played on it need no sort of the columns: true after a
 * rebuild from the key (`decodeKey`), and for a position made from such a
 * one by `encodeChildKey` without its fallback (no empty column filled);
 * false for the start position (the deal's column order) and after a full
 * encode.
 */
let heldSorted: bool = false;
/** Pending moves dropped on a filter hit and not yet checked by their keys (pending.ts ENT_SKIPPED). */
let skippedCount: u32 = 0;
/** Pending moves the last solve dropped on a filter hit (a statistic). */
let skippedTotal: u32 = 0;

/**
 * The loop of `lazySearch`: takes pending moves until the lists run dry or
 * the search must stop. A pending move whose result's hash (computed when
 * it was queued, `childHash`) is in the filter of stored positions (seen.ts)
 * is dropped and marked, its parent not rebuilt, its move not played, its
 * key neither encoded nor looked up; every other one goes through `takeEntry`.
 */
function lazyLoop(): void {
  while (goalIndex == 0) {
    const item = popNext(lazyHeld);
    if (item == 0) return;
    if (mustStop()) return;
    const ent = entryAt(item);
    const parent = entryParent(ent);
    if (lazyFilter && seenContains(entryHash(ent))) {
      markSkipped(ent);
      skippedCount++;
      skippedTotal++;
      if (parent != lazyHeld) {
        lazyHeld = parent;
        heldStale = true;
        measuredHeld = 0; // as after a rebuild: canonical column order
      }
      continue;
    }
    if (!takeEntry(ent, parent)) return;
  }
}

/**
 * Plays pending move `ent` (of stored record `parent`) on its parent,
 * rebuilding the parent from its key unless PARENT holds it, and looks the
 * result up by its key: a position met before is dropped (PARENT put back),
 * a new one is stored, added to the filter and expanded at once. Returns
 * false when the search must stop (won, a budget, memory, the lazy quota).
 */
function takeEntry(ent: usize, parent: u32): bool {
  const word = entryMove(ent) & ~DONE;
  if (parent != lazyHeld || heldStale) {
    decodeStateKey(recordKey(recordAt(parent)), PARENT);
    decodes++;
    lazyHeld = parent;
    heldStale = false;
    measuredHeld = 0; // canonical column order now, not the measured one
    heldSorted = true;
  }
  copyHeader(POP_HEADER, PARENT);
  if (measuredHeld == parent) applyMeasuredMove(PARENT, word);
  else if (!applyMove(PARENT, word)) unreachable();
  // The expansion recorded in AUTO_FOLLOWED whether auto-moves followed the
  // move (addChild); without it the closure is known to move nothing (the
  // parent is closed and `exposedCard` could not start one), so it is skipped.
  if (word & AUTO_FOLLOWED) applyAutoMoves(PARENT, false);
  // the result's key without a sort of the columns when PARENT is in canonical order
  const splice = heldSorted && !compactLayout && !pooledMode;
  let index: u32 = 0;
  if (splice) {
    encodeChildKey(PARENT, POP_HEADER, KEY);
    index = findOrInsert(KEY, hashKey(KEY), parent, word | DONE);
  } else {
    index = findOrInsertPosition(PARENT, KEY, parent, word | DONE);
  }
  if (index == 0) {
    insertFailed();
    return false;
  }
  if (!lastInsertWasNew) {
    copyHeader(PARENT, POP_HEADER);
    return true;
  }
  if (lazyFilter) {
    const hash = entryHash(ent);
    seenAdd(hash);
    expandHash = hash;
  }
  lazyHeld = index;
  heldSorted = splice && childKeySpliced;
  statesExpanded++;
  parentDepth = moveDepth(word);
  repeatCard = repeatCardOf(word);
  if (!expand(index, measuredHeld == parent)) return false;
  if (recordCount >= lazyQuota) {
    lazyQuotaReached = true;
    return false;
  }
  return true;
}

/**
 * Checks by their keys the pending moves dropped on filter hits
 * (`lazyLoop`), in entry order, with the open lists dry. Each is played and
 * looked up as any other (`takeEntry`): a true duplicate changes nothing; a
 * hash collision gives a new position, which is stored and expanded (its
 * moves go to the open lists). Returns true when the pass stored a new
 * position (the search goes on), false when every dropped move was a
 * duplicate (the table is closed under moves: complete) or the search must
 * stop.
 */
function verifySkipped(): bool {
  const recordsBefore = recordCount;
  const entries = entryCount;
  for (let item: u32 = 1; item <= entries; item++) {
    if (mustStopAtEntry(item)) return false;
    const ent = entryAt(item);
    if (!isSkipped(ent)) continue;
    clearSkipped(ent);
    skippedCount--;
    if (!takeEntry(ent, entryParent(ent))) return false;
  }
  return recordCount != recordsBefore;
}

/**
 * The lazy phase stores at most presets.ts `lazyQuota` positions before the
 * search goes on eagerly (`handOver`). The lazy phase is the cheaper one
 * while the scores lead quickly to a win; on a long or complete search every
 * pending move costs more than an eager child (it is measured and queued,
 * then taken, played again and looked up, duplicates included), so the rest
 * of a search that has outgrown the quota is eager.
 */
let lazyQuotaReached: bool = false;

/**
 * Hands the lazy phase's search over to the eager phase without losing its
 * work: every stored position has been expanded (its record is marked DONE),
 * so only the pending moves no scan has taken are left. Each is played on its
 * parent and looked up now; a new result is stored, measured and queued in
 * the eager open lists, as an eager expansion would have done. The stored
 * set then is what an eager search has stored after expanding the same
 * positions, so the eager phase goes on from here and stays complete.
 * Returns false when the search must stop (won, or a budget ran out).
 */
function handOver(): bool {
  const entries = entryCount;
  queuedTotal = entries;
  lazyPhase = false;
  measuredHeld = 0;
  activeScans = ruleScans;
  clearOpenLists();
  let held: u32 = 0;
  // the results' keys need no sort of the columns (PARENT decoded from its key: canonical order)
  const splice = !compactLayout && !pooledMode;
  for (let item: u32 = 1; item <= entries; item++) {
    if (mustStopAtEntry(item)) return false;
    const ent = entryAt(item);
    // a move dropped on a filter hit (lazyLoop) was taken but not looked up: it is played like an untaken one
    if (isSkipped(ent)) clearSkipped(ent);
    else if (entryMove(ent) & DONE) continue;
    const word = entryMove(ent) & ~DONE;
    const parent = entryParent(ent);
    if (parent != held) {
      decodeStateKey(recordKey(recordAt(parent)), PARENT);
      held = parent;
    }
    saveHeader(PARENT);
    if (!applyMove(PARENT, word)) unreachable();
    if (word & AUTO_FOLLOWED) applyAutoMoves(PARENT, false); // as in lazySearch
    let index: u32 = 0;
    if (splice) {
      encodeChildKey(PARENT, SAVED_HEADER, KEY);
      index = findOrInsert(KEY, hashKey(KEY), parent, word);
    } else {
      index = findOrInsertPosition(PARENT, KEY, parent, word);
    }
    if (index == 0) {
      insertFailed();
      return false;
    }
    if (lastInsertWasNew) {
      if (isWon(PARENT)) {
        goalIndex = index;
        return false;
      }
      measure(PARENT, false);
      pushOpen(index, moveDepth(word));
    }
    restoreHeader(PARENT);
  }
  skippedCount = 0;
  releaseEntries();
  return true;
}

/**
 * The eager phase: best-first over stored positions. Expanding a position
 * stores every new child and queues it; the open lists hold records.
 * Complete when the open lists run dry (see the file comment).
 * Ends with goalIndex or stopReason set, or neither (complete).
 */
function eagerSearch(): void {
  // the pooled game replays no move by card byte (two cards may share one), so it looks children up one by one
  batching = !pooledMode;
  eagerLoop();
  batching = false;
}

/** The solve runs the layered pass (`setLayeredSearch` and the compact layout): set by `solve`. */
let layeredRun: bool = false;
/** The layer the layered pass expands: every open position is in it or above it. */
let currentLayer: i32 = 0;
/** Children the layered pass made below the layer it expanded (a broken measure: the pass then ends with VERDICT_ERROR). */
let layerViolations: u32 = 0;

/** Children of the last layered solve that were below their parent's layer (0 unless the measure is wrong). */
export function layeredViolations(): u32 {
  return layerViolations;
}

/** True when the last solve ran the layered pass. */
export function layeredInUse(): bool {
  return layeredRun;
}

/**
 * The layered complete pass (layers.ts): expands the open positions of the
 * lowest layer that has any (LIFO within a layer), children going to their
 * own layers (never a lower one: checked in `lookupChildren`). When a layer
 * has no open position left, every layer up to it is closed
 * (`closeLayersBelow`): table.ts may then drop their keys. Complete when no
 * layer has an open position: every stored position was expanded, as in
 * `eagerLoop`, so the stored set is the whole reachable set.
 */
function layeredLoop(): void {
  while (goalIndex == 0) {
    let index = popLayer(currentLayer);
    while (index == 0) {
      let next = currentLayer + 1;
      while (next < MAX_LAYERS && !layerHasOpen(next)) next++;
      if (next >= MAX_LAYERS) return;
      currentLayer = next;
      closeLayersBelow(next);
      index = popLayer(currentLayer);
    }
    if (stopReason != REASON_NONE) return;
    if (!expandStored(index)) return;
  }
}

/**
 * Expands stored record `index` for the eager and layered loops: counts it
 * in `statesExpanded`, decodes its key into PARENT, takes its depth and
 * repeat card from its move word and expands it. False when the search must
 * end (a budget, a stop, a won child, a failed insert).
 */
function expandStored(index: u32): bool {
  statesExpanded++;
  if (mustStop()) return false;
  decodeStateKey(recordKey(recordAt(index)), PARENT);
  const word = recordMove(recordAt(index));
  parentDepth = moveDepth(word);
  repeatCard = repeatCardOf(word);
  return expand(index, false);
}

/** The loop of `eagerSearch`. */
function eagerLoop(): void {
  while (goalIndex == 0) {
    const index = popNext(0);
    if (index == 0 || stopReason != REASON_NONE) return;
    if (!expandStored(index)) return;
  }
}

/**
 * The part of `solve` before its first phase: reads the input, fills the
 * rule tables and weights, resets the counters, and decides the phases
 * (`layeredRun`, `lazyPhase`). Shared by `solve` and `layeredShardBegin`.
 */
function prepareSolve(): void {
  // the glue validates every position before it writes one: a block beyond the engine's layout traps (engine_trap)
  if (!readInput(START, true)) unreachable();
  prepareBoard();
  choosePreset();
  packWeights();
  resetOutput();
  stopReason = REASON_NONE;
  lastReason = REASON_NONE;
  statesExpanded = 0;
  polls = 0;
  decodes = 0;
  skippedTotal = 0;
  turnScan = 0;
  turnItems = 0;
  lazyPeakBytes = 0;

  lazyPhase = true;
  layerViolations = 0;
  // the layered pass: eager from the start, compact layout only (chooseLayout is called again by startPhase)
  layeredRun = layeredRequested && !pooledMode && chooseLayout(START);
  setLayeredTable(false);
  activeScans = ruleScans;
  lazyQuotaReached = false;
  queuedTotal = 0;
  // The pooled game searches eagerly only: the lazy phase replays pending
  // moves by card byte (applyMove), which names no single card when two
  // cards of one rank and pool share it.
  if (pooledMode || layeredRun) lazyPhase = false;
}

/**
 * Solves the position in the input block. `maxStates` caps the positions
 * stored; `memoryLimitBytes` caps the linear memory (as f64, up to 4 GiB).
 * Returns a VERDICT_*; for unknown, `lastStopReason()` tells which budget ran out.
 * A solved verdict leaves the solution in the output buffer (output.ts).
 *
 * Runs the lazy phase first, up to presets.ts `lazyQuota` stored positions; then hands
 * its search over to the eager phase (`handOver`). When the lazy phase's
 * pending moves outgrow the memory it starts over with the eager phase,
 * which needs less memory for the same set (each position once, no pending
 * moves). Both phases are complete, and
 * so either one's empty open list proves the deal unsolvable, with the
 * stored set (the whole reachable set) as its certificate.
 */
export function solve(maxStates: u32, memoryLimitBytes: f64): i32 {
  // one engine: not a shard (shards.ts), so the layered pass is the one-engine pass
  setShard(0, 1, OUTBOX_MAX);
  prepareSolve();
  if (layeredRun) {
    if (startPhase(maxStates, memoryLimitBytes)) {
      batching = true;
      layeredLoop();
      batching = false;
    }
  } else if (pooledMode) {
    if (startPhase(maxStates, memoryLimitBytes)) eagerSearch();
  } else if (startPhase(maxStates, memoryLimitBytes)) lazySearch();
  if (!lazyQuotaReached) queuedTotal = entryCount;
  if (lazyQuotaReached && goalIndex == 0 && stopReason == REASON_NONE && !lazyOutOfMemory) {
    if (handOver()) eagerSearch();
  }
  lazyPeakBytes = arenaBytesUsed();
  if (lazyOutOfMemory && goalIndex == 0 && stopReason == REASON_NONE) {
    lazyPhase = false;
    activeScans = ruleScans;
    if (startPhase(maxStates, memoryLimitBytes)) eagerSearch();
  }
  lazyPhase = false;
  activeScans = SCANS;

  if (layerViolations != 0) return VERDICT_ERROR;
  if (goalIndex != 0) {
    // A pooled win proves nothing about the real deal: no solution is written.
    if (pooledMode) return VERDICT_SOLVED;
    return reconstructSolution(goalIndex) ? VERDICT_SOLVED : VERDICT_ERROR;
  }
  if (stopReason != REASON_NONE) {
    lastReason = stopReason;
    return VERDICT_UNKNOWN;
  }
  if (lazyOutOfMemory) {
    lastReason = REASON_MEMORY;
    return VERDICT_UNKNOWN;
  }
  return VERDICT_UNSOLVABLE;
}

/** Items the last solve took from its open lists (records and pending moves, both phases). */
export function openItemsTaken(): u32 {
  return polls;
}

/** Parents the last solve's lazy phase rebuilt from their keys at a pop (the rest were the position held); a tuning statistic. */
export function parentsDecoded(): u32 {
  return decodes;
}

/** Pending moves the last solve's lazy phase dropped on a filter hit without rebuilding their parents (each checked by its key before a complete search ends); a tuning statistic. */
export function pendingMovesSkipped(): u32 {
  return skippedTotal;
}

/** Pending moves queued by the last solve's lazy phase. */
export function pendingMovesQueued(): u32 {
  return queuedTotal;
}

/** Pending moves the lazy phase queued (kept when the hand-over releases them). */
let queuedTotal: u32 = 0;

/** Positions stored in the state table by the last solve. */
export function statesStored(): u32 {
  return recordCount;
}

/** Arena bytes the lazy phase of the last solve reached. */
let lazyPeakBytes: u64 = 0;

/** Bytes of linear memory the last solve used (the larger of its two phases). */
export function memoryBytesUsed(): f64 {
  const now = arenaBytesUsed();
  return <f64>(now > lazyPeakBytes ? now : lazyPeakBytes);
}

// ---------------------------------------------------------------------------
// The sharded layered pass (shards.ts; the host's driver is
// client-sdk/core/sharded-layers.ts): each instance runs these on its shard.

/** `layeredShardStep`: the current layer has no open position in this shard (its outboxes are sent). */
export const STEP_DRAINED: i32 = 0;
/** `layeredShardStep`: the step used its budget; the layer may still have open positions here. */
export const STEP_MORE: i32 = 1;
/** A won child was stored in this shard (`shardGoal` names it). */
export const STEP_GOAL: i32 = 2;
/** A won child was stored in the shard this one forwarded it to. */
export const STEP_REMOTE_GOAL: i32 = 3;
/** The pass must end: a budget or stop here (`shardStopReason`), a failed forward, or a child below its layer (`layeredViolations`). */
export const STEP_STOPPED: i32 = 4;

/**
 * Starts this instance as shard `shard` of `count` of one layered pass over
 * the position in the input block (the host set `setLayeredSearch(true)`
 * and wrote the same input to every shard): `solve`'s preparation, then the
 * table, the layers and, when the start position's hash says this shard,
 * the start position stored and queued. `batch`: entries an outbox holds
 * (shards.ts). Returns STEP_DRAINED (or STEP_MORE when the start is queued
 * here), STEP_GOAL (the start is won), or STEP_STOPPED (no memory for the
 * table; or the layered pass does not apply to these rules, `layeredInUse`
 * false).
 */
export function layeredShardBegin(maxStates: u32, memoryLimitBytes: f64, shard: i32, count: i32, batch: i32): i32 {
  setShard(shard, count, batch);
  prepareSolve();
  if (!layeredRun) return STEP_STOPPED;
  const started = startPhase(maxStates, memoryLimitBytes);
  if (goalIndex != 0) return STEP_GOAL;
  if (!started) return STEP_STOPPED;
  return layerHasOpen(currentLayer) ? STEP_MORE : STEP_DRAINED;
}

/**
 * Expands up to `budget` open positions of the current layer of this shard
 * (LIFO, as `layeredLoop`), sending the children of other shards through the
 * outboxes, and sends every outbox at the end. Returns a STEP_* code.
 */
export function layeredShardStep(budget: u32): i32 {
  if (goalIndex != 0) return STEP_GOAL;
  if (stopReason != REASON_NONE || layerViolations != 0) return STEP_STOPPED;
  batching = true;
  let ended = false;
  let n: u32 = 0;
  while (n < budget) {
    const index = popLayer(currentLayer);
    if (index == 0) break;
    n++;
    if (!expandStored(index)) {
      ended = true;
      break;
    }
  }
  batching = false;
  if (!ended && !flushOutboxes()) ended = true;
  if (goalIndex != 0) return STEP_GOAL;
  if (ended || stopReason != REASON_NONE) {
    if (forwardStatus == FORWARD_GOAL) return STEP_REMOTE_GOAL;
    return STEP_STOPPED;
  }
  return layerHasOpen(currentLayer) ? STEP_MORE : STEP_DRAINED;
}

/** The lowest layer at or above `from` with an open position in this shard; MAX_LAYERS when there is none. */
export function layeredNextOpen(from: i32): i32 {
  let layer = from < 0 ? 0 : from;
  while (layer < MAX_LAYERS && !layerHasOpen(layer)) layer++;
  return layer;
}

/**
 * Moves this shard's pass to layer `layer` (the lowest open layer over all
 * shards) and closes every layer below it (`closeLayersBelow`), as
 * `layeredLoop` does when a layer runs dry.
 */
export function layeredAdvance(layer: i32): void {
  if (layer <= currentLayer) return;
  currentLayer = layer;
  closeLayersBelow(layer);
}

/** The layer the pass expands in this shard. */
export function layeredCurrentLayer(): i32 {
  return currentLayer;
}

/**
 * Inserts the `count` children another shard forwarded into INBOX (shards.ts
 * entry layout): each looked up, and when new, queued in its layer; a won
 * one ends the pass. Returns FORWARD_OK, FORWARD_GOAL (`shardGoal` names the
 * won record) or FORWARD_FAILED (this shard ran out of memory or positions,
 * a child is below the current layer, or the shard had stopped already).
 */
export function acceptChildren(count: i32): i32 {
  if (goalIndex != 0) return FORWARD_GOAL;
  if (stopReason != REASON_NONE || layerViolations != 0 || count < 0 || count > OUTBOX_MAX) return FORWARD_FAILED;
  // the hint loads of `lookupChildren`, over the whole batch, so that the lookups' cache misses overlap
  let sink = touchSink;
  for (let k = 0; k < count; k++) sink ^= touchSlot(load<u32>(INBOX + <usize>k * ENTRY_BYTES + ENTRY_HASH));
  for (let k = 0; k < count; k++) sink ^= touchRecord(load<u32>(INBOX + <usize>k * ENTRY_BYTES + ENTRY_HASH));
  touchSink = sink;
  for (let k = 0; k < count; k++) {
    // (the sending shard checked the child's layer against the layer expanded, which is this shard's too)
    const e = INBOX + <usize>k * ENTRY_BYTES;
    const word = load<u32>(e + ENTRY_WORD);
    const index = findOrInsert(e, load<u32>(e + ENTRY_HASH), load<u32>(e + ENTRY_PARENT), word & ~BATCH_WON);
    if (index == 0) {
      insertFailed();
      return FORWARD_FAILED;
    }
    if (!lastInsertWasNew) continue;
    if (word & BATCH_WON) {
      goalIndex = index;
      return FORWARD_GOAL;
    }
    pushOpen(index, 0);
    if (stopReason != REASON_NONE) return FORWARD_FAILED;
  }
  return FORWARD_OK;
}

/** The won record of this shard (0: none). */
export function shardGoal(): u32 {
  return goalIndex;
}

/** The budget or stop that ended this shard's pass (REASON_*; REASON_NONE while it runs). */
export function shardStopReason(): i32 {
  return stopReason;
}

/** Parent reference of record `index` of this shard (shards.ts: shard << 28 | index; 0 for the start); 0xffffffff when there is no such record. */
export function recordParentRef(index: u32): u32 {
  if (!isRecordIndex(index)) return 0xffffffff;
  return recordParent(recordAt(index));
}

/** Move (move.ts MOVE_BITS) of record `index` of this shard; 0 when there is no such record. */
export function recordMoveBits(index: u32): u32 {
  if (!isRecordIndex(index)) return 0;
  return recordMove(recordAt(index)) & MOVE_BITS;
}

/** Address of the path buffer the host fills for `replaySolution` (u32 moves, the last move first). */
export function pathAddress(): usize {
  return PATH;
}

/** Most moves `replaySolution` takes. */
export function pathCapacity(): i32 {
  return MAX_PATH;
}

/**
 * Writes the solution of the `length` moves the host put in the path buffer
 * (the last move first) to the output buffer, replayed from the start with
 * their auto-moves. Returns 1 when they end won, else 0 (the host reports an
 * engine error).
 */
export function replaySolution(length: i32): i32 {
  if (length < 0 || length > MAX_PATH) return 0;
  return replayPath(length) ? 1 : 0;
}
