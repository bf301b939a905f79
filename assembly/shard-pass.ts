/**
 * The layered pass as one shard of several engine instances (shards.ts; the
 * host's driver is client-sdk/core/sharded-layers.ts): each instance runs
 * these exports on its shard. Positions belong to shards by their key's
 * hash; a child of another shard goes to that shard's outbox, and the host
 * hands it over (`acceptChildren`). The host advances every shard to the
 * lowest layer any of them has open, and replays a won path it assembled
 * from the shards' records (`replaySolution`).
 */
import { findOrInsert, touchSlot, touchRecord, isRecordIndex } from './table';
import { StateTable, recordAt, recordParent, recordMove } from './records';
import { closeLayersBelow } from './layered-table';
import { MOVE_BITS } from './move';
import { popLayer, layerHasOpen, MAX_LAYERS } from './layers';
import { flushOutboxes, setShard, forwardStatus, INBOX, ENTRY_BYTES, ENTRY_HASH, ENTRY_PARENT, ENTRY_WORD, FORWARD_OK, FORWARD_GOAL, FORWARD_FAILED, OUTBOX_MAX } from './shards';
import { pushOpen } from './open-lists';
import { BATCH_WON, insertFailed } from './children';
import { MAX_PATH, PATH, replayPath } from './solution';
import { prepareSolve, startPhase, expandStored, layeredRun } from './search';
import { Search, REASON_NONE } from './search-state';

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
    if (!StateTable.lastInsertWasNew) continue;
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
