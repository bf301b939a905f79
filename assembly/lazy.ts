/**
 * The lazy phase: best-first over pending moves (pending.ts), the first
 * phase of a solve outside the pooled game and the layered pass.
 *
 * Expanding a position measures and scores each child but stores none; a
 * scan takes the best pending move, plays it on its parent, and only then
 * encodes the result and looks it up. A new position is stored and expanded
 * at once; a position met before is dropped. So the table holds only
 * expanded positions (and the won one), and a dive that follows the scores
 * stores one position per step instead of every child of every step. The
 * phase ends at presets.ts `lazyQuota` stored positions, where the search
 * hands its pending moves over to the eager phase (`handOver`), or when its
 * pending moves find no memory (search.ts then starts over eagerly).
 *
 * With presets.ts `lazyFilter`, a pending move whose result's hash is in the
 * filter of stored positions (seen.ts) is dropped without rebuilding its
 * parent, and checked by its key before the search may end complete.
 */
import { pooledMode } from './rules';
import { copyHeader, isWon, applyAutoMoves } from './position';
import { hashKey, encodeChildKey, childKeySpliced } from './key';
import { findOrInsert, findOrInsertPosition } from './table';
import { StateTable, recordAt, setRecordMove, recordKey } from './records';
import { releaseEntries, entryAt, entryParent, entryMove, entryHash, entryCount, isSkipped, markSkipped, clearSkipped } from './pending';
import { resetSeen, seenContains, seenAdd } from './seen';
import { AUTO_FOLLOWED, DONE, moveDepth } from './move';
import { applyMove, positionHash } from './board';
import { compactLayout, decodeStateKey } from './castle-key';
import { ruleScans, lazyQuota, lazyFilter } from './presets';
import { measure } from './heuristic';
import { clearOpenLists, pushOpen, popNext } from './open-lists';
import { expand, applyMeasuredMove, insertFailed, repeatCardOf } from './children';
import {
  Search, PARENT, KEY, SAVED_HEADER, HEADER_BYTES, saveHeader, restoreHeader, countExpansion, mustStop, mustStopAtEntry, REASON_NONE,
} from './search-state';

/** Header of the position PARENT held before a pending move was played on it. */
const POP_HEADER: usize = memory.data(HEADER_BYTES);

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
 * canonical order (key.ts `encodeChildKey`'s precondition), so that the
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
  if (!StateTable.lastInsertWasNew) {
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
  if (StateTable.recordCount >= lazyQuota) {
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
  const recordsBefore = StateTable.recordCount;
  const entries = entryCount;
  for (let item: u32 = 1; item <= entries; item++) {
    if (mustStopAtEntry(item)) return false;
    const ent = entryAt(item);
    if (!isSkipped(ent)) continue;
    clearSkipped(ent);
    skippedCount--;
    if (!takeEntry(ent, entryParent(ent))) return false;
  }
  return StateTable.recordCount != recordsBefore;
}

// ---------------------------------------------------------------------------
// The hand-over

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
    if (StateTable.lastInsertWasNew) {
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
