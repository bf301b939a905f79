/**
 * Shortening a found solution: beam search one level per move, bounded by the
 * best length so far, and re-search of the best solution's suffixes; and the
 * guided pass, beams that look for a solution the complete search has not
 * found (`beamFindBegin`, docs/search.md §10).
 *
 * The method follows the ideas of macroxue/freecell as summarised in
 * docs/search.md §2 (written from that summary, no code taken):
 *
 * - One beam level per move that counts (a move that is not a safe auto-move;
 *   position.ts `isSafeAutoMove` decides, the engine's own rule). Each level
 *   keeps the `width` children of lowest cost (beam-cost.ts) in integer cost
 *   bins; when the level is full, a cheaper child evicts one of the dearest.
 * - Bound: a child at depth d that is not finished needs at least one more
 *   move, so it is dropped when d + 1 >= best (best = the shortest length
 *   known, in counted moves).
 * - Goal: every column strictly decreasing in rank (beam-cost.ts), finished
 *   by playing the lowest playable card home, one at a time.
 * - Prefix re-search: the beam is run again from the position after the
 *   first k counted moves of the best solution, bounded by best - k; a
 *   shorter suffix replaces the old one.
 * - Moves and pruning: beam-moves.ts.
 * - Duplicates: board.ts's order-free position hash, per level (the level
 *   being built and the one being expanded), and in the guided pass over all
 *   levels. A hash collision can only drop a child, never make a solution
 *   wrong: every solution is replayed here move by move and again by the
 *   independent checker in the glue.
 *
 * Nothing here decides a verdict: the beam only runs after the main search
 * (search.ts) solved the deal, or looks for a solution it could not prove
 * absent, and the glue keeps the first solution unless this one is shorter
 * and passes the checker.
 *
 * Memory: the session takes the arena (arena.ts) from the start, so the state
 * table of the last `solve` is gone afterwards (its keys and fingerprint are
 * only read after an unsolvable verdict, when no shortening runs).
 *
 * Paths are lists of packed moves (the move word of move.ts, the same as the
 * search's), which name cards, not column numbers, so a path found on
 * canonical positions replays on the real start position.
 */
import { numColumns, rankOf, suitOf } from './rules';
import {
  POSITION_BYTES, COLUMN_STRIDE, OFF_CARDS, columnLength, cardAt, foundation, copyPosition, copyHeader, copyCards, isWon, applyAutoMoves,
} from './position';
import { resetArena, allocate, arenaBytesUsed } from './arena';
import { OUTPUT, OUTPUT_MOVE_BYTES, outputCount, outputOverflow, resetOutput, SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION } from './output';
import { readInput } from './input';
import { prepareBoard, positionHash, childHash, placeAndHash } from './board';
import { pollStop } from './host';
import { MOVE_TO_FOUNDATION, MOVE_TO_CELL, MOVE_TO_EMPTY_COLUMN, MOVE_TO_CARD, packMove, moveCard, moveKind, moveCount } from './move';
import { CHILD_MOVES, CHILD_WHERE, playPacked, playListed, autoMovesAfter, listMoves, movesSignature, whereDstKind, whereDstIndex } from './beam-moves';
import {
  NUM_BINS, measureParent, childSorted, childCostQuick, childCost, childMoveHash, FINISH, finishMoves, finish, scratchSorted, costFromScratch,
} from './beam-cost';

/** Deepest beam (moves); deeper levels are not searched. */
const MAX_LEVELS: i32 = 512;

/** Longest path kept (counted moves plus finishing moves). */
const MAX_PATH: i32 = 1024;

/** Positions expanded between two polls of the host's stop flag and clock. */
const POLL_INTERVAL: u32 = 256;
const NONE: u32 = 0xffffffff;
const START: usize = memory.data(POSITION_BYTES);
const WORK: usize = memory.data(POSITION_BYTES);
const SCRATCH: usize = memory.data(POSITION_BYTES);
const BEST: usize = memory.data(MAX_PATH * 4);
const CANDIDATE: usize = memory.data(MAX_PATH * 4);
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

// ---------------------------------------------------------------------------
// Level nodes and duplicate sets (board.ts's order-free position hashes; 0 marks an empty slot)

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
 * (beam-cost.ts `costFromScratch`, board.ts `positionHash`,
 * `applyAutoMoves`). Slow; for tests.
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
      const parentHash = placeAndHash(WORK);
      if (globalSeen != 0) globalSeenOrAdd(setEntry(parentHash));
      measureParent(WORK);
      copyHeader(HEADER_SAVE, WORK);
      for (let m = 0; m < k; m++) {
        const move = load<u32>(CHILD_MOVES + (<usize>m << 2));
        const at = load<u32>(CHILD_WHERE + (<usize>m << 2));
        playListed(WORK, m);
        const autoMoved = autoMovesAfter(WORK, at);
        const depth = d + 1;
        const c = autoMoved
          ? childCost(WORK, whereDstKind(at) == TARGET_COLUMN ? whereDstIndex(at) : -1)
          : childCostQuick(WORK, move, at);
        if (selfCheck) checkChild(WORK, c, autoMoved ? childHash(WORK, HEADER_SAVE, parentHash) : childMoveHash(WORK, parentHash, move, at));
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
            const h = setEntry(autoMoved ? childHash(WORK, HEADER_SAVE, parentHash) : childMoveHash(WORK, parentHash, move, at));
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
