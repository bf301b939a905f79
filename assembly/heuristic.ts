/**
 * The search's heuristic: the features of a position and each scan's score
 * of it (lower = more promising), the key of the open lists (open-lists.ts).
 *
 * Features (docs/search.md §1 and §6): cards not home, cards buried under
 * out-of-order cards (counted two ways), cards above a lower card of their
 * suit, occupied free cells, empty columns, how deep the next foundation
 * cards lie, and the depth in moves. Each scan weighs them with its own
 * weights (presets.ts), so the scans order the same positions differently.
 *
 * `measure` computes the features of the position being expanded, keeping
 * per-column terms and the card places (board.ts); `measureChild` computes
 * those of each child that is queued from them and the columns the move
 * changed. `scores` turns the last measure into every scan's bucket at once
 * (SIMD lanes).
 */
import { numColumns, rankOf, suitOf } from './rules';
import {
  MAX_COLUMNS, COLUMN_STRIDE, OFF_CARDS, OFF_LENGTHS, OFF_FOUNDATIONS, OFF_CELLS, columnLength, cardAt, changedColumns, emptyColumns,
} from './position';
import { builds, topRunLength, bottomRunLength, placeColumn, placeCells, cardColumn, cardIndex, IN_CELL } from './board';
import { SCANS, W_NOT_HOME, W_UNSORTED, W_CELL, W_EMPTY_COLUMN, W_NEXT_DEPTH, W_MODE, W_DEPTH, weight } from './presets';
import { SAVED_HEADER } from './search-state';

/** Buckets of an open list (open-lists.ts): scores are clamped into 0..NUM_BUCKETS-1. */
export const NUM_BUCKETS: i32 = 4096;

/** Added to every score, so that the empty-column bonus rarely takes one below 0. */
const SCORE_OFFSET: i32 = 256;

/** The features of the position last measured (`measure`, `measureChild`), which `scores` weighs. */
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

/** The sums of the per-column terms of the position being expanded (its `measure`), from which `measureChild` starts. */
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
 * column c). In a child a column's cards below both its old and its new
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

/** The top run length of column `col` of the position last measured (`measure` or `measureRuns`; 0 for an empty column): what the move generation reads. */
// @ts-ignore: decorator
@inline export function topRunOf(col: i32): i32 {
  return colTerm(COL_RUN, col);
}

/**
 * Measures a position for the scores: cards not home, cards buried under
 * out-of-order cards (two ways), cards above a lower card of their suit
 * (when a scan counts them, `useBlocked`), occupied cells, empty columns, and how deep
 * the next foundation cards lie (features from docs/search.md §1 and §6).
 * Also keeps the per-column terms (COL_*) and the card places (board.ts
 * `placeColumn`) for `measureChild`.
 *
 * `fromParent`: `p` is the child of the position measured last, in the same
 * column order, and SAVED_HEADER still holds that parent's header (see
 * search-state.ts `Search.measuredHeld`). Then a column whose length did not change keeps the
 * parent's terms and card places (its cards did not change), and a changed
 * one gets its terms from
 * `changedColumnTerms`, as in `measureChild`. The result is the same as a
 * full measure.
 */
// @ts-ignore: decorator
@inline export function measure(p: usize, fromParent: bool): void {
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
 * (children.ts `lookupChildren`). Leaves the other terms and the card
 * places as they were (stale).
 */
export function measureRuns(p: usize): void {
  for (let c = 0; c < numColumns; c++) store<i32>(COL_RUN + (<usize>c << 2), topRunLength(p, c));
}

/** Cards on the foundations of `p`: the sum of the four foundation bytes (each at most 13, so one multiply adds them). */
// @ts-ignore: decorator
@inline function homeCount(p: usize): i32 {
  return <i32>((load<u32>(p + OFF_FOUNDATIONS) * 0x01010101) >>> 24);
}

/**
 * Occupied free cells of `p`: the non-zero bytes among the MAX_CELLS cell
 * bytes, counted at once. Cells at or past `numCells` are always 0 (input.ts
 * `readInput` and key.ts `decodeKey` clear them, moves use only the first
 * `numCells`), and a card
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
 * length changed, and the empty ones, are found by SIMD compares of the
 * length bytes (position.ts `changedColumns`, `emptyColumns`; bit c of a
 * mask = column c). The next-card depth
 * comes from where the parent had each suit's next foundation card
 * (`nextDepthOf`), four look-ups instead of a pass over the changed columns
 * (or, when a card went home, over every column).
 */
// @ts-ignore: decorator
@inline export function measureChild(p: usize): void {
  featureNotHome = 52 - homeCount(p);
  const changedMask = changedColumns(p, SAVED_HEADER);
  featureEmptyColumns = <i32>popcnt(emptyColumns(p));
  featureCellsUsed = cellsInUse(p);
  let top = parentUnsortedTop;
  let blocked = parentBlocked;
  let bottom = parentUnsortedBottom;
  let changed = changedMask;
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
  featureNextDepth = nextDepthOf(p, changedMask);
  featureUnsortedTop = top;
  featureBlocked = blocked;
  featureUnsortedBottom = bottom;
}

// ---------------------------------------------------------------------------
// Scores

/**
 * The weights of the four scans lane by lane (lane k = scan k), one i32x4 per
 * feature, so that `scores` computes every scan's score at once: WV_TOP holds
 * W_UNSORTED in the lanes of mode-0 scans and 0 elsewhere, WV_BOTTOM in the
 * lanes of mode-1 and mode-3 scans, WV_BLOCKED in those of mode-2 and mode-3
 * scans, so `top * WV_TOP + bottom * WV_BOTTOM + blocked * WV_BLOCKED` is
 * each scan's unsorted term (W_MODE). Filled by `packWeights` from presets.ts
 * `weight`.
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
export const SCORES: usize = memory.data(16, 16);

/** Lays this solve's weights (presets.ts `weight`) out for `scores` (WV_*) and sets `useBlocked`; called once per solve, after `choosePreset`. */
export function packWeights(): void {
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
@inline export function scores(depth: i32): void {
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
