/**
 * The children of the position being expanded: the moves of PARENT (made in
 * place: search-state.ts PARENT), each child's auto-moves, and what becomes
 * of the child in each phase: in the lazy phase a pending move, measured
 * and queued (pending.ts); in the eager and layered loops a lookup in the
 * state table (table.ts), the new ones measured and queued (open-lists.ts).
 *
 * The move generation tries every legal move but the ones that can only
 * repeat a position (`Search.repeatCard`), one empty column and one free
 * cell as targets (all empty columns, and cells, are alike under the
 * canonical key; no cell when the cells are a reserve, rules.ts
 * `reserveCells`), and no whole column into an empty one (the same position).
 * Moves are recorded position-independently (move.ts: the moved card and the
 * target by card identity), which lets positions be stored in canonical
 * order while the solution replays on the real column and cell numbers
 * (solution.ts).
 */
import {
  numColumns, numCells, buildRule, wrapRanks, reserveCells, BUILD_SUIT_UP_OR_DOWN, buildsOn, emptyColumnAccepts, sequenceCapacity, rankOf, suitOf,
  pooledMode,
} from './rules';
import {
  columnLength, setColumnLength, cardAt, setCardAt, topCard, cellCard, setCellCard, isWon, emptyCellCount, emptyColumnCount, firstEmptyCell,
  firstEmptyColumn, fitsFoundation, isSafeAutoMove, applyAutoMoves, sendHome,
} from './position';
import { MAX_KEY_BYTES, encodeChildKey } from './key';
import { findOrInsert, findOrInsertPosition, touchSlot, touchRecord } from './table';
import { StateTable, recordAt, setRecordMove, FAIL_MEMORY, FAIL_STOPPED } from './records';
import { layeredTable } from './layered-table';
import { newEntry } from './pending';
import {
  MOVE_TO_FOUNDATION, MOVE_TO_CELL, MOVE_TO_EMPTY_COLUMN, MOVE_TO_CARD, MOVE_BITS, AUTO_FOLLOWED, DEPTH_MAX,
  packMove, moveCard, moveKind, moveOnto, moveCount, withDepth,
} from './move';
import { SOURCE_CELL, SOURCE_COLUMN, TARGET_CELL, TARGET_COLUMN, TARGET_FOUNDATION } from './output';
import {
  buildMask, columnTops, topOwner, moveRun, moveCards, childHash, movedCardHash, BELOW_BOTTOM, BELOW_CELL, BELOW_HOME, IN_CELL, cardColumn, cardIndex,
} from './board';
import { compactLayout, encodeStateKey, encodeCompactChild, hashStateKey } from './castle-key';
import { layerOfKey } from './layers';
import { shardIndex, shardCount, shardOf, parentRef, sendChild } from './shards';
import { lazyFilter } from './presets';
import { measure, measureRuns, measureChild, topRunOf } from './heuristic';
import { pushOpen } from './open-lists';
import {
  Search, PARENT, KEY, SAVED_HEADER, saveHeader, restoreHeader, REASON_NONE, REASON_MEMORY, REASON_MAX_STATES,
} from './search-state';

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
 * Stops for a failed insert: sets `Search.stopReason` from records.ts
 * `StateTable.insertFailure`, or in the lazy phase marks a memory failure for the
 * fallback to the eager search.
 */
export function insertFailed(): void {
  if (Search.lazyPhase && StateTable.insertFailure == FAIL_MEMORY) Search.lazyOutOfMemory = true;
  else Search.stopReason = StateTable.insertFailure == FAIL_MEMORY ? REASON_MEMORY : StateTable.insertFailure == FAIL_STOPPED ? StateTable.insertStopReason : REASON_MAX_STATES;
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
  const kind = moveKind(move);
  const to = kind == MOVE_TO_CELL ? BELOW_CELL : kind == MOVE_TO_EMPTY_COLUMN ? BELOW_BOTTOM : kind == MOVE_TO_CARD ? moveOnto(move) : BELOW_HOME;
  return movedCardHash(Search.expandHash, card, below, to);
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
    const key = BATCH_KEYS + <usize>k * MAX_KEY_BYTES;
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
  } else if (StateTable.lastInsertWasNew) {
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
/** The collected children's keys, MAX_KEY_BYTES apart (whatever the layout's key bytes). */
const BATCH_KEYS: usize = memory.data(BATCH_MAX * MAX_KEY_BYTES, 16);
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
    if (layeredTable && layerOfKey(BATCH_KEYS + <usize>k * MAX_KEY_BYTES) < Search.currentLayer) {
      Search.layerViolations++;
      return false;
    }
    const hash = load<u32>(BATCH_HASH + (<usize>k << 2));
    if (shardCount > 1) {
      // the sharded layered pass: a child of another shard goes to its outbox (shards.ts)
      const target = shardOf(hash);
      if (target != shardIndex) {
        if (!sendChild(target, BATCH_KEYS + <usize>k * MAX_KEY_BYTES, hash, ref, word)) return false;
        continue;
      }
    }
    const index = findOrInsert(BATCH_KEYS + <usize>k * MAX_KEY_BYTES, hash, ref, word & ~BATCH_WON);
    if (index == 0) {
      insertFailed();
      return false;
    }
    if (!StateTable.lastInsertWasNew) continue;
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
  // a reserve's empty cells take no card, so they carry no sequence (rules.ts `reserveCells`)
  const freeCells = reserveCells ? 0 : emptyCellCount(p);
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

  // Column to free cell (never into a reserve).
  const cell = reserveCells ? -1 : firstEmptyCell(p);
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
