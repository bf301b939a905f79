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
import { numColumns, pooledMode } from './rules';
import { copyPosition, isWon, applyAutoMoves } from './position';
import { resetArena, arenaBytesUsed } from './arena';
import { resetTable, findOrInsertPosition } from './table';
import { StateTable, recordAt, recordMove, recordKey } from './records';
import { layeredTable, setLayeredTable, closeLayersBelow } from './layered-table';
import { resetEntries } from './pending';
import { seenOff } from './seen';
import { moveDepth } from './move';
import { resetOutput } from './output';
import { readInput } from './input';
import { prepareBoard } from './board';
import { chooseLayout, compactLayout, decodeStateKey, encodeStateKey, hashStateKey } from './castle-key';
import { layeredRequested, setupLayers, popLayer, layerHasOpen, MAX_LAYERS } from './layers';
import { shardIndex, shardCount, shardOf, setShard, OUTBOX_MAX } from './shards';
import { SCANS, choosePreset, ruleScans, lazyFilter } from './presets';
import { measure, packWeights } from './heuristic';
import { clearOpenLists, pushOpen, popNext, resetTurns } from './open-lists';
import { expand, repeatCardOf } from './children';
import { lazySearch, expandLazyRoot, handOver, resetLazy, countQueued, lazyQuotaReached } from './lazy';
import { reconstructSolution } from './solution';
import {
  Search, START, PARENT, KEY, countExpansion, resetExpansions, mustStop,
  VERDICT_SOLVED, VERDICT_UNSOLVABLE, VERDICT_UNKNOWN, VERDICT_ERROR, REASON_NONE, REASON_MEMORY,
} from './search-state';

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
 * (`closeLayersBelow`): layered-table.ts may then drop their keys. Complete when no
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
  return StateTable.recordCount;
}

/** Arena bytes the lazy phase of the last solve reached. */
let lazyPeakBytes: u64 = 0;

/** Bytes of linear memory the last solve used (the larger of its two phases). */
export function memoryBytesUsed(): f64 {
  const now = arenaBytesUsed();
  return <f64>(now > lazyPeakBytes ? now : lazyPeakBytes);
}
