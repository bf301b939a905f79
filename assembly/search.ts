/**
 * The search: best-first over canonical positions, complete when it runs to
 * the end. `solve` is the engine's main entry (index.ts exports it).
 *
 * Every position met is stored once in the state table (table.ts) under its
 * canonical key. Up to four scans (open-lists.ts; presets.ts sets how many
 * a game kind runs) order the stored positions by their own heuristic
 * scores (heuristic.ts; lower = more promising, LIFO within a bucket) and
 * take turns, so the search dives like a guided depth-first search while
 * never expanding a position twice.
 *
 * The search prunes nothing but duplicates and applies only safe auto-moves
 * (position.ts argues each one), so when the open lists run empty without a
 * budget having cut an insert, every position reachable from the start has
 * been expanded and none is won: the deal is unsolvable, with the stored set
 * (the whole reachable set) as its certificate. Any cut (state budget,
 * memory, deadline, cancel) ends the search with `unknown`.
 *
 * A solve runs in phases: the lazy phase first (lazy.ts: the open lists hold
 * pending moves, a result is stored only when a scan takes it), then, past
 * its quota, the eager phase (every new child stored and queued at once);
 * the pooled game searches eagerly from the start, and the layered pass
 * (layers.ts; the no-cell Castle games on request) expands layer by layer.
 * children.ts makes the children of every expansion; solution.ts replays the
 * won path. shard-pass.ts runs the layered pass as one shard of several.
 */

import { numColumns, numCells, buildRule, wrapRanks, BUILD_SUIT_UP_OR_DOWN, buildsOn, emptyColumnAccepts, sequenceCapacity, rankOf, suitOf, pooledMode } from './rules';
import { KEY_BYTES, columnLength, setColumnLength, cardAt, setCardAt, topCard, cellCard, setCellCard, isWon, emptyCellCount, emptyColumnCount, firstEmptyCell, firstEmptyColumn, fitsFoundation, isSafeAutoMove, applyAutoMoves, sendHome, encodeChildKey, copyPosition, copyHeader, hashKey, childKeySpliced } from './position';
import { findOrInsert, findOrInsertPosition, touchSlot, touchRecord, recordAt, setRecordMove, insertFailure, insertStopReason, lastInsertWasNew, FAIL_MEMORY, FAIL_STOPPED, layeredTable, recordParent, recordMove, recordCount, recordKey, resetTable, setLayeredTable, closeLayersBelow, isRecordIndex } from './table';
import { newEntry, releaseEntries, entryAt, entryParent, entryMove, entryHash, entryCount, isSkipped, markSkipped, clearSkipped, resetEntries } from './pending';
import { MOVE_TO_FOUNDATION, MOVE_TO_CELL, MOVE_TO_EMPTY_COLUMN, MOVE_TO_CARD, MOVE_BITS, AUTO_FOLLOWED, DEPTH_MAX, packMove, moveCard, moveKind, moveOnto, moveCount, withDepth, DONE, moveDepth } from './move';
import { SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION, resetOutput, writeMove, outputOverflow } from './output';
import { buildMask, columnTops, topOwner, moveRun, moveCards, childHash, zobristTerm, BELOW_BOTTOM, BELOW_CELL, IN_CELL, cardColumn, cardIndex, applyMove, playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex, positionHash, prepareBoard } from './board';
import { compactLayout, encodeStateKey, encodeCompactChild, hashStateKey, decodeStateKey, chooseLayout } from './castle-key';
import { layerOfKey, layeredRequested, setupLayers, popLayer, layerHasOpen, MAX_LAYERS } from './layers';
import { shardIndex, shardCount, shardOf, parentRef, sendChild, setShard, OUTBOX_MAX, flushOutboxes, forwardStatus, INBOX, ENTRY_BYTES, ENTRY_HASH, ENTRY_PARENT, ENTRY_WORD, FORWARD_OK, FORWARD_GOAL, FORWARD_FAILED } from './shards';
import { lazyFilter, ruleScans, lazyQuota, SCANS, choosePreset } from './presets';
import { measure, measureRuns, measureChild, topRunOf, packWeights } from './heuristic';
import { pushOpen, clearOpenLists, popNext, resetTurns } from './open-lists';
import { Search, PARENT, KEY, SAVED_HEADER, saveHeader, restoreHeader, REASON_NONE, REASON_MEMORY, REASON_MAX_STATES, START, HEADER_BYTES, countExpansion, mustStop, mustStopAtEntry, resetExpansions, VERDICT_SOLVED, VERDICT_UNSOLVABLE, VERDICT_UNKNOWN, VERDICT_ERROR } from './search-state';
import { resetSeen, seenContains, seenAdd, seenOff } from './seen';
import { resetArena, arenaBytesUsed } from './arena';
import { readInput } from './input';

// ---------------------------------------------------------------------------
// (children)

/**
 * What the move into the child in PARENT may have made ready for an
 * auto-move, set by `expandChildren` before each `addChild`: -1 when a card went
 * home (foundations changed: any card may now be safe), else the card the
 * move uncovered at the top of its source column (0: none, the move came
 * from a free cell or emptied the column). The parent is closed under safe
 * auto-moves (every stored position is taken after them), and with the
 * foundations unchanged a card's safety is unchanged, so that uncovered card
 * is the only one that can start a new auto-move; when it cannot, the
 * closure is skipped. Saves the scan of every cell and column per child.
 */
let exposedCard: i32 = -1;

/**
 * The card a stored position's moves may skip (search-state.ts
 * `Search.repeatCard`), from the move word of its record.
 */
// @ts-ignore: decorator
@inline export function repeatCardOf(word: u32): i32 {
  // Pooled game: none, since another card of the same rank and pool has the same byte (and other moves).
  return !pooledMode && (word & AUTO_FOLLOWED) == 0 && moveKind(word) != MOVE_TO_FOUNDATION && moveCount(word) == 1 ? moveCard(word) : 0;
}

/**
 * Stops for a failed insert: sets `Search.stopReason` from table.ts
 * `insertFailure`, or in the lazy phase marks a memory failure for the
 * fallback to the eager search.
 */
export function insertFailed(): void {
  if (Search.lazyPhase && insertFailure == FAIL_MEMORY) Search.lazyOutOfMemory = true;
  else Search.stopReason = insertFailure == FAIL_MEMORY ? REASON_MEMORY : insertFailure == FAIL_STOPPED ? insertStopReason : REASON_MAX_STATES;
}

/**
 * The lazy filter's hash (board.ts `positionHash`) of a child that no
 * auto-move followed, from the parent's (`Search.expandHash`) and the move
 * alone: only the moved card (the deepest of a moved run) lies on something
 * else now. What it lay on comes from the parent's card places (board.ts
 * `cardColumn`, `cardIndex`: the parent was measured in this column order),
 * the card under it still in place in the child (the source column only
 * lost cards); what it lies on now from the move word.
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
  let z = Search.expandHash ^ zobristTerm(card, below);
  const kind = moveKind(move);
  if (kind == MOVE_TO_CELL) z ^= zobristTerm(card, BELOW_CELL);
  else if (kind == MOVE_TO_EMPTY_COLUMN) z ^= zobristTerm(card, BELOW_BOTTOM);
  else if (kind == MOVE_TO_CARD) z ^= zobristTerm(card, moveOnto(move));
  return z;
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
  const depth = Search.parentDepth < DEPTH_MAX ? Search.parentDepth + 1 : DEPTH_MAX;
  if (Search.lazyPhase) {
    let goOn = true;
    if (isWon(child)) {
      const index = findOrInsertPosition(child, KEY, parent, withDepth(move, depth, autoMoved));
      if (index == 0) insertFailed();
      else Search.goalIndex = index;
      goOn = false;
    } else {
      const hash: u64 = !lazyFilter ? 0 : autoMoved ? childHash(child, SAVED_HEADER, Search.expandHash) : moveHash(child, move);
      const entry = newEntry(parent, withDepth(move, depth, autoMoved), hash);
      if (entry == 0) {
        Search.lazyOutOfMemory = true;
        goOn = false;
      } else {
        measureChild(child);
        pushOpen(entry, depth);
      }
    }
    restoreHeader(child);
    return goOn;
  }
  if (Search.batching) {
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
      Search.goalIndex = index;
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

// ---------------------------------------------------------------------------
// Looking children up together

/*
 * In the eager and layered loops outside the pooled game (`Search.batching`),
 * `addChild` does not look each child up at once but encodes its key into
 * BATCH_KEYS (with its hash and move word); the expansion then looks all its
 * children up in the order they were made (`lookupChildren`). The table's
 * slots and records are the memory the eager phase waits for; reading the
 * slots of all children first, then the records their hashes point at, lets
 * those cache misses overlap instead of coming one after the other. The
 * lookups, inserts and their order are exactly those of one lookup per
 * child, so the search is the same.
 */

/** Children collected before a lookup pass is forced (more than any position has). */
const BATCH_MAX: i32 = 256;
const BATCH_KEYS: usize = memory.data(BATCH_MAX * KEY_BYTES, 16);
const BATCH_HASH: usize = memory.data(BATCH_MAX * 4);

/** Per collected child: the move word to store (BATCH_WON marks a won child, stored with the bare move). */
const BATCH_WORD: usize = memory.data(BATCH_MAX * 4);

/** In BATCH_WORD: the child is won (bit 31, free in a bare move: MOVE_BITS are bits 0-19). */
export const BATCH_WON: u32 = 0x80000000;
let batchCount: i32 = 0;

/**
 * Whether the position being expanded in the eager phase has been measured
 * in full (`measure`: its per-column terms and card places, which the new
 * children's `applyMeasuredMove` and `measureChild` read). `expandChildren`
 * computes only the top runs (`measureRuns`), which the move generation
 * needs; `lookupChildren` measures the rest at the first new child: most
 * eager expansions of a long search find no new child and so need no
 * measure.
 */
let batchParentMeasured: bool = false;

/** Where the hint loads go, so that the optimizer keeps them; never read for anything. */
let touchSink: u64 = 0;

/**
 * Looks up the children `addChild` collected for the expansion of record
 * `parent` (PARENT holds it, measured, its header in SAVED_HEADER), in the
 * order they were made: first a pass that reads each child's first slot
 * (`touchSlot`), one that reads the record that slot points at when the
 * hashes agree (`touchRecord`), then `findOrInsert` for each. A new child
 * is played again on PARENT from its move word
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
  const depth = Search.parentDepth < DEPTH_MAX ? Search.parentDepth + 1 : DEPTH_MAX;
  // the parent as a (shard, index) reference: the index itself unless the layered pass is sharded (shards.ts)
  const ref = parentRef(parent);
  for (let k = 0; k < n; k++) {
    const word = load<u32>(BATCH_WORD + (<usize>k << 2));
    // the layered pass rests on no child being below the layer expanded (layers.ts): checked on every child
    if (layeredTable && layerOfKey(BATCH_KEYS + <usize>k * KEY_BYTES) < Search.currentLayer) {
      Search.layerViolations++;
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
      Search.goalIndex = index;
      return false;
    }
    if (layeredTable) {
      // no scores to measure: the layer orders the pass
      pushOpen(index, depth);
      if (Search.stopReason != REASON_NONE) return false;
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

// ---------------------------------------------------------------------------
// Move generation

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
    if (card == Search.repeatCard || !emptyColumnAccepts(card)) continue;
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
export function expand(parent: u32, fromParent: bool): bool {
  if (!Search.batching) return expandChildren(parent, fromParent);
  batchCount = 0;
  return expandChildren(parent, fromParent) && lookupChildren(parent);
}

/** `expand` but for the eager phase's lookup pass (`lookupChildren`): generates the moves of PARENT and hands each child to `addChild`. */
function expandChildren(parent: u32, fromParent: bool): bool {
  const p = PARENT;
  // The eager phase's lookups measure the parent only when a child is new (`lookupChildren`).
  if (Search.batching) {
    measureRuns(p);
    batchParentMeasured = false;
  } else {
    measure(p, fromParent);
  }
  saveHeader(p);
  Search.measuredHeld = parent;
  const freeCells = emptyCellCount(p);
  const emptyColumns = emptyColumnCount(p);
  const emptyTarget = firstEmptyColumn(p);

  // Foundation moves the auto-move rule did not take.
  for (let i = 0; i < numCells; i++) {
    const card = cellCard(p, i);
    if (card != 0 && card != Search.repeatCard && fitsFoundation(p, card)) {
      setCellCard(p, i, 0);
      sendHome(p, card);
      exposedCard = -1;
      if (!addChild(parent, packMove(card, MOVE_TO_FOUNDATION, 0, 1))) return false;
    }
  }
  for (let c = 0; c < numColumns; c++) {
    const card = topCard(p, c);
    if (card != 0 && card != Search.repeatCard && fitsFoundation(p, card)) {
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
      const run = capacityOnCard > 1 || capacityToEmpty > 1 ? topRunOf(from) : 1;
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
          if (card == Search.repeatCard) continue;
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
      if (card == 0 || card == Search.repeatCard) continue;
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
      const run = capacityOnCard > 1 || capacityToEmpty > 1 ? topRunOf(from) : 1;
      for (let to = 0; to < numColumns; to++) {
        if (to == from) continue;
        const m = columnLength(p, to);
        if (m > 0) {
          const top = cardAt(p, to, m - 1);
          const most = run < capacityOnCard ? run : capacityOnCard;
          for (let k = 1; k <= most; k++) {
            const card = cardAt(p, from, n - k);
            if (card == Search.repeatCard || !buildsOn(card, top)) continue;
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
      if (card == 0 || card == Search.repeatCard) continue;
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
      if (card == Search.repeatCard) continue;
      setColumnLength(p, from, n - 1);
      setCellCard(p, cell, card);
      exposedCard = n > 1 ? cardAt(p, from, n - 2) : 0;
      if (!addChild(parent, packMove(card, MOVE_TO_CELL, 0, 1))) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Replaying a child

/**
 * Plays the packed move `move` of the measured position on it (`p`, the
 * position whose card places `measure` keeps: `Search.measuredHeld`): the
 * source column and the target column are read from the card places instead
 * of searched for, the rest as in `applyMove` (a card in a free cell is found
 * by a scan of the cells). Traps on a move that does not fit (an internal
 * inconsistency).
 */
export function applyMeasuredMove(p: usize, move: u32): void {
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

// ---------------------------------------------------------------------------
// (solution)

/** Most moves of a path. */
export const MAX_PATH: i32 = 8192;
/** A path of packed moves (u32), the last move first. */
export const PATH: usize = memory.data(MAX_PATH * 4);

/** Plays one packed move on the real position `p` (real column and cell numbers) and writes it out. */
function playMove(p: usize, move: u32): bool {
  if (!applyMove(p, move)) return false;
  writeMove(playedSrcKind, playedSrcIndex, playedDstKind, playedDstIndex, moveCount(move), moveCard(move), false);
  return true;
}

/**
 * Writes the solution from the real start position to the won position:
 * the path of packed moves from the start record to `goal`, each followed by
 * the auto-moves it triggers. Returns false on an internal inconsistency.
 */
export function reconstructSolution(goal: u32): bool {
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
export function replayPath(length: i32): bool {
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
// (lazy)

/** Header of the position PARENT held before a pending move was played on it. */
const POP_HEADER: usize = memory.data(HEADER_BYTES);

/** Clears the lazy phase's counters and flags for a new solve. */
export function resetLazy(): void {
  decodes = 0;
  skippedTotal = 0;
  lazyQuotaReached = false;
  queuedTotal = 0;
}

/**
 * Starts the lazy phase at the start position, stored as record `root` and
 * held in PARENT (the deal's column order): expands it at once, its moves
 * becoming pending moves, and sets up the filter. False when the search must
 * stop already.
 */
export function expandLazyRoot(root: u32): bool {
  setRecordMove(recordAt(root), DONE);
  Search.parentDepth = 0;
  Search.repeatCard = 0;
  countExpansion();
  skippedCount = 0;
  if (lazyFilter) {
    Search.expandHash = positionHash(PARENT);
    if (resetSeen()) seenAdd(Search.expandHash);
  }
  lazyHeld = root;
  heldStale = false;
  heldSorted = false; // the deal's column order
  return expand(root, false);
}

/**
 * The lazy phase's search from the start position `expandLazyRoot` expanded.
 * Complete when the open lists run dry: every stored position was expanded
 * when it was stored, every move of it (but the `Search.repeatCard` moves,
 * whose results are results of pending moves of its parent) was queued, and
 * every queued move was looked up, so the table is closed under moves: it is
 * the whole reachable set, the same set the eager phase would store. Ends
 * with `Search.goalIndex`, `Search.stopReason`, `Search.lazyOutOfMemory` or
 * `lazyQuotaReached` set, or none (complete).
 */
export function lazySearch(): void {
  while (true) {
    lazyLoop();
    if (Search.goalIndex != 0 || Search.stopReason != REASON_NONE || Search.lazyOutOfMemory || lazyQuotaReached) return;
    // the open lists ran dry: complete once every move dropped on a filter hit is checked by its key
    if (skippedCount == 0 || !verifySkipped()) return;
  }
}

/**
 * The record whose position PARENT holds, or (`heldStale`) is taken to hold:
 * a pop whose result the filter knew moves `lazyHeld` to its parent without
 * rebuilding it, exactly where the full path would have rebuilt it, so that
 * the scans' turns (`popNext`) and the measures from the parent see the same
 * `lazyHeld` and `Search.measuredHeld` as without the filter; the rebuild
 * happens at the next pop that needs PARENT.
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

/** Parents the last solve's lazy phase rebuilt from their keys (`decodeKey` at a pop: the parent was not the position held). */
let decodes: u32 = 0;

/**
 * The loop of `lazySearch`: takes pending moves until the lists run dry or
 * the search must stop. A pending move whose result's hash (computed when
 * it was queued, children.ts `addChild`) is in the filter of stored positions (seen.ts)
 * is dropped and marked, its parent not rebuilt, its move not played, its
 * key neither encoded nor looked up; every other one goes through `takeEntry`.
 */
function lazyLoop(): void {
  while (Search.goalIndex == 0) {
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
        Search.measuredHeld = 0; // as after a rebuild: canonical column order
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
    Search.measuredHeld = 0; // canonical column order now, not the measured one
    heldSorted = true;
  }
  copyHeader(POP_HEADER, PARENT);
  if (Search.measuredHeld == parent) applyMeasuredMove(PARENT, word);
  else if (!applyMove(PARENT, word)) unreachable();
  // The expansion recorded in AUTO_FOLLOWED whether auto-moves followed the
  // move (children.ts `addChild`); without it the closure is known to move
  // nothing (the parent is closed and the card the move exposed could not
  // start one), so it is skipped.
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
    Search.expandHash = hash;
  }
  lazyHeld = index;
  heldSorted = splice && childKeySpliced;
  countExpansion();
  Search.parentDepth = moveDepth(word);
  Search.repeatCard = repeatCardOf(word);
  if (!expand(index, Search.measuredHeld == parent)) return false;
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

// ---------------------------------------------------------------------------
// The hand-over

/**
 * The lazy phase stored presets.ts `lazyQuota` positions: the search goes on
 * eagerly (`handOver`). The lazy phase is the cheaper one while the scores
 * lead quickly to a win; on a long or complete search every pending move
 * costs more than an eager child (it is measured and queued, then taken,
 * played again and looked up, duplicates included), so the rest of a search
 * that has outgrown the quota is eager.
 */
export let lazyQuotaReached: bool = false;

/** Pending moves the lazy phase queued (kept when the hand-over releases them). */
let queuedTotal: u32 = 0;

/** Notes the pending moves queued when the lazy phase ended without a hand-over. */
export function countQueued(): void {
  queuedTotal = entryCount;
}

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
export function handOver(): bool {
  const entries = entryCount;
  queuedTotal = entries;
  Search.lazyPhase = false;
  Search.measuredHeld = 0;
  Search.activeScans = ruleScans;
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
    if (word & AUTO_FOLLOWED) applyAutoMoves(PARENT, false); // as in takeEntry
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
        Search.goalIndex = index;
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

// ---------------------------------------------------------------------------
// Statistics

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

// ---------------------------------------------------------------------------
// (search)

/** The stop reason of the last `unknown` verdict. */
let lastReason: i32 = REASON_NONE;

/** Reason of the last `unknown` verdict (REASON_*). */
export function lastStopReason(): i32 {
  return lastReason;
}

/** The solve runs the layered pass (layers.ts `setLayeredSearch` and the compact layout): set by `prepareSolve`. */
export let layeredRun: bool = false;

/**
 * Resets the arena, the state table, the open lists and the pending moves
 * for one phase, and stores and queues the start position (in the eager
 * phase as a record; in the lazy phase it is expanded at once, its moves
 * becoming pending moves). Returns false when out of memory, or when the
 * start is already won (`Search.goalIndex` set).
 */
export function startPhase(maxStates: u32, memoryLimitBytes: f64): bool {
  resetArena(<u64>memoryLimitBytes);
  seenOff();
  resetEntries(Search.lazyPhase && lazyFilter);
  clearOpenLists();
  Search.measuredHeld = 0;
  Search.goalIndex = 0;
  Search.lazyOutOfMemory = false;
  chooseLayout(START);
  setLayeredTable(layeredRun && compactLayout);
  if (layeredTable) {
    setupLayers(START, numColumns);
    Search.currentLayer = 0;
  }
  if (!resetTable(maxStates < 1 ? 1 : maxStates)) {
    Search.stopReason = REASON_MEMORY;
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
    Search.stopReason = REASON_MEMORY;
    return false;
  }
  if (isWon(PARENT)) {
    Search.goalIndex = root;
    return false;
  }
  if (Search.lazyPhase) {
    if (!expandLazyRoot(root)) return false;
  } else {
    measure(PARENT, false);
    pushOpen(root, 0);
  }
  return true;
}

/**
 * The eager phase: best-first over stored positions. Expanding a position
 * stores every new child and queues it; the open lists hold records.
 * Complete when the open lists run dry (see the file comment).
 * Ends with `Search.goalIndex` or `Search.stopReason` set, or neither (complete).
 */
function eagerSearch(): void {
  // the pooled game replays no move by card byte (two cards may share one), so it looks children up one by one
  Search.batching = !pooledMode;
  eagerLoop();
  Search.batching = false;
}

/** The loop of `eagerSearch`. */
function eagerLoop(): void {
  while (Search.goalIndex == 0) {
    const index = popNext(0);
    if (index == 0 || Search.stopReason != REASON_NONE) return;
    if (!expandStored(index)) return;
  }
}

/** Children of the last layered solve that were below their parent's layer (0 unless the measure is wrong). */
export function layeredViolations(): u32 {
  return Search.layerViolations;
}

/** True when the last solve ran the layered pass. */
export function layeredInUse(): bool {
  return layeredRun;
}

/**
 * The layered complete pass (layers.ts): expands the open positions of the
 * lowest layer that has any (LIFO within a layer), children going to their
 * own layers (never a lower one: checked in children.ts `lookupChildren`). When a layer
 * has no open position left, every layer up to it is closed
 * (`closeLayersBelow`): table.ts may then drop their keys. Complete when no
 * layer has an open position: every stored position was expanded, as in
 * `eagerLoop`, so the stored set is the whole reachable set.
 */
function layeredLoop(): void {
  while (Search.goalIndex == 0) {
    let index = popLayer(Search.currentLayer);
    while (index == 0) {
      let next = Search.currentLayer + 1;
      while (next < MAX_LAYERS && !layerHasOpen(next)) next++;
      if (next >= MAX_LAYERS) return;
      Search.currentLayer = next;
      closeLayersBelow(next);
      index = popLayer(Search.currentLayer);
    }
    if (Search.stopReason != REASON_NONE) return;
    if (!expandStored(index)) return;
  }
}

/**
 * Expands stored record `index` for the eager and layered loops: counts it
 * (search-state.ts `statesExpanded`), decodes its key into PARENT, takes its depth and
 * repeat card from its move word and expands it. False when the search must
 * end (a budget, a stop, a won child, a failed insert).
 */
export function expandStored(index: u32): bool {
  countExpansion();
  if (mustStop()) return false;
  decodeStateKey(recordKey(recordAt(index)), PARENT);
  const word = recordMove(recordAt(index));
  Search.parentDepth = moveDepth(word);
  Search.repeatCard = repeatCardOf(word);
  return expand(index, false);
}

/**
 * The part of `solve` before its first phase: reads the input, fills the
 * rule tables and weights, resets the counters, and decides the phases
 * (`layeredRun`, `Search.lazyPhase`). Shared by `solve` and shard-pass.ts
 * `layeredShardBegin`.
 */
export function prepareSolve(): void {
  // the glue validates every position before it writes one: a block beyond the engine's layout traps (engine_trap)
  if (!readInput(START, true)) unreachable();
  prepareBoard();
  choosePreset();
  packWeights();
  resetOutput();
  Search.stopReason = REASON_NONE;
  lastReason = REASON_NONE;
  resetExpansions();
  Search.polls = 0;
  resetLazy();
  resetTurns();
  lazyPeakBytes = 0;

  Search.lazyPhase = true;
  Search.layerViolations = 0;
  // the layered pass: eager from the start, compact layout only (chooseLayout is called again by startPhase)
  layeredRun = layeredRequested && !pooledMode && chooseLayout(START);
  setLayeredTable(false);
  Search.activeScans = ruleScans;
  // The pooled game searches eagerly only: the lazy phase replays pending
  // moves by card byte (applyMove), which names no single card when two
  // cards of one rank and pool share it.
  if (pooledMode || layeredRun) Search.lazyPhase = false;
}

/**
 * Solves the position in the input block. `maxStates` caps the positions
 * stored; `memoryLimitBytes` caps the linear memory (as f64, up to 4 GiB).
 * Returns a VERDICT_*; for unknown, `lastStopReason()` tells which budget ran out.
 * A solved verdict leaves the solution in the output buffer (output.ts).
 *
 * Runs the lazy phase first, up to presets.ts `lazyQuota` stored positions;
 * then hands its search over to the eager phase (lazy.ts `handOver`). When
 * the lazy phase's pending moves outgrow the memory it starts over with the
 * eager phase, which needs less memory for the same set (each position once,
 * no pending moves). Both phases are complete, and so either one's empty
 * open list proves the deal unsolvable, with the stored set (the whole
 * reachable set) as its certificate.
 */
export function solve(maxStates: u32, memoryLimitBytes: f64): i32 {
  // one engine: not a shard (shards.ts), so the layered pass is the one-engine pass
  setShard(0, 1, OUTBOX_MAX);
  prepareSolve();
  if (layeredRun) {
    if (startPhase(maxStates, memoryLimitBytes)) {
      Search.batching = true;
      layeredLoop();
      Search.batching = false;
    }
  } else if (pooledMode) {
    if (startPhase(maxStates, memoryLimitBytes)) eagerSearch();
  } else if (startPhase(maxStates, memoryLimitBytes)) lazySearch();
  if (!lazyQuotaReached) countQueued();
  if (lazyQuotaReached && Search.goalIndex == 0 && Search.stopReason == REASON_NONE && !Search.lazyOutOfMemory) {
    if (handOver()) eagerSearch();
  }
  lazyPeakBytes = arenaBytesUsed();
  if (Search.lazyOutOfMemory && Search.goalIndex == 0 && Search.stopReason == REASON_NONE) {
    Search.lazyPhase = false;
    Search.activeScans = ruleScans;
    if (startPhase(maxStates, memoryLimitBytes)) eagerSearch();
  }
  Search.lazyPhase = false;
  Search.activeScans = SCANS;

  if (Search.layerViolations != 0) return VERDICT_ERROR;
  if (Search.goalIndex != 0) {
    // A pooled win proves nothing about the real deal: no solution is written.
    if (pooledMode) return VERDICT_SOLVED;
    return reconstructSolution(Search.goalIndex) ? VERDICT_SOLVED : VERDICT_ERROR;
  }
  if (Search.stopReason != REASON_NONE) {
    lastReason = Search.stopReason;
    return VERDICT_UNKNOWN;
  }
  if (Search.lazyOutOfMemory) {
    lastReason = REASON_MEMORY;
    return VERDICT_UNKNOWN;
  }
  return VERDICT_UNSOLVABLE;
}

// ---------------------------------------------------------------------------
// Statistics

/** Items the last solve took from its open lists (records and pending moves, both phases). */
export function openItemsTaken(): u32 {
  return Search.polls;
}

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
// (shard-pass)

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
  if (Search.goalIndex != 0) return STEP_GOAL;
  if (!started) return STEP_STOPPED;
  return layerHasOpen(Search.currentLayer) ? STEP_MORE : STEP_DRAINED;
}

/**
 * Expands up to `budget` open positions of the current layer of this shard
 * (LIFO, as search.ts `layeredLoop`), sending the children of other shards through the
 * outboxes, and sends every outbox at the end. Returns a STEP_* code.
 */
export function layeredShardStep(budget: u32): i32 {
  if (Search.goalIndex != 0) return STEP_GOAL;
  if (Search.stopReason != REASON_NONE || Search.layerViolations != 0) return STEP_STOPPED;
  Search.batching = true;
  let ended = false;
  let n: u32 = 0;
  while (n < budget) {
    const index = popLayer(Search.currentLayer);
    if (index == 0) break;
    n++;
    if (!expandStored(index)) {
      ended = true;
      break;
    }
  }
  Search.batching = false;
  if (!ended && !flushOutboxes()) ended = true;
  if (Search.goalIndex != 0) return STEP_GOAL;
  if (ended || Search.stopReason != REASON_NONE) {
    if (forwardStatus == FORWARD_GOAL) return STEP_REMOTE_GOAL;
    return STEP_STOPPED;
  }
  return layerHasOpen(Search.currentLayer) ? STEP_MORE : STEP_DRAINED;
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
 * search.ts `layeredLoop` does when a layer runs dry.
 */
export function layeredAdvance(layer: i32): void {
  if (layer <= Search.currentLayer) return;
  Search.currentLayer = layer;
  closeLayersBelow(layer);
}

/** The layer the pass expands in this shard. */
export function layeredCurrentLayer(): i32 {
  return Search.currentLayer;
}

/** Where the hint loads of `acceptChildren` go, so that the optimizer keeps them; never read for anything. */
let acceptSink: u64 = 0;

/**
 * Inserts the `count` children another shard forwarded into INBOX (shards.ts
 * entry layout): each looked up, and when new, queued in its layer; a won
 * one ends the pass. Returns FORWARD_OK, FORWARD_GOAL (`shardGoal` names the
 * won record) or FORWARD_FAILED (this shard ran out of memory or positions,
 * a child is below the current layer, or the shard had stopped already).
 */
export function acceptChildren(count: i32): i32 {
  if (Search.goalIndex != 0) return FORWARD_GOAL;
  if (Search.stopReason != REASON_NONE || Search.layerViolations != 0 || count < 0 || count > OUTBOX_MAX) return FORWARD_FAILED;
  // the hint loads of children.ts `lookupChildren`, over the whole batch, so that the lookups' cache misses overlap
  let sink = acceptSink;
  for (let k = 0; k < count; k++) sink ^= touchSlot(load<u32>(INBOX + <usize>k * ENTRY_BYTES + ENTRY_HASH));
  for (let k = 0; k < count; k++) sink ^= touchRecord(load<u32>(INBOX + <usize>k * ENTRY_BYTES + ENTRY_HASH));
  acceptSink = sink;
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
      Search.goalIndex = index;
      return FORWARD_GOAL;
    }
    pushOpen(index, 0);
    if (Search.stopReason != REASON_NONE) return FORWARD_FAILED;
  }
  return FORWARD_OK;
}

/** The won record of this shard (0: none). */
export function shardGoal(): u32 {
  return Search.goalIndex;
}

/** The budget or stop that ended this shard's pass (REASON_*; REASON_NONE while it runs). */
export function shardStopReason(): i32 {
  return Search.stopReason;
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

