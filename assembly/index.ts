/**
 * The engine's exports: the product's functions only (the release build,
 * build/engine.wasm). Only numbers and addresses cross the boundary
 * (docs/architecture.md): the glue writes the rules and the start position into the
 * input block, calls `solve`, and reads the solution from the output buffer.
 * The tuning and self-check hooks are exported by assembly/tuning.ts, a
 * separate build (build/engine.tuning.wasm).
 */
export { solve, lastStopReason, statesStored, memoryBytesUsed } from './search';

// The interface constants, as immutable exported globals: the glue
// (client-sdk/core/engine/abi.ts) reads every code and offset from here when it
// instantiates the module and refuses a module that lacks one, so the two
// sides cannot drift apart silently.
export {
  INPUT_BYTES, IN_COLUMNS, IN_CELLS, IN_BUILD, IN_EMPTY, IN_SEQUENCE, IN_WRAP, IN_POOLED, IN_POOLS, IN_EMPTY_CELL,
  IN_FOUNDATIONS, IN_FREE_CELLS, IN_LENGTHS, IN_CARDS, IN_COLUMN_STRIDE,
} from './input';
export {
  VERDICT_SOLVED, VERDICT_UNSOLVABLE, VERDICT_UNKNOWN, VERDICT_ERROR,
  REASON_NONE, REASON_MAX_STATES, REASON_TIMEOUT, REASON_MEMORY, REASON_CANCELLED,
} from './search-state';
export {
  BUILD_ALTERNATE_COLOR, BUILD_SUIT, BUILD_RANK, BUILD_SUIT_UP_OR_DOWN,
  EMPTY_ANY, EMPTY_KINGS, EMPTY_NONE,
  CELL_ANY, CELL_NONE,
  SEQ_NONE, SEQ_SUPERMOVE, SEQ_CELLS_PLUS_ONE, SEQ_UNLIMITED,
} from './rules';
export {
  OUTPUT_MOVE_BYTES, OUTPUT_MAX_MOVES, SOURCE_COLUMN, SOURCE_CELL, TARGET_COLUMN, TARGET_CELL, TARGET_FOUNDATION,
  OUT_SOURCE_KIND, OUT_SOURCE_INDEX, OUT_TARGET_KIND, OUT_TARGET_INDEX, OUT_COUNT, OUT_CARD, OUT_AUTO,
} from './output';
import { statesStored as statesStoredCount } from './search';
import { statesExpanded } from './search-state';
import { INPUT } from './input';
import { OUTPUT, outputCount } from './output';

/** Address of the input block (input.ts documents its layout). */
export function inputAddress(): usize {
  return INPUT;
}

/** Address of the solution buffer (output.ts documents its layout). */
export function outputAddress(): usize {
  return OUTPUT;
}

/** Moves in the solution buffer. */
export function outputMoveCount(): i32 {
  return outputCount;
}

/** Positions expanded by the last solve. */
export function expandedCount(): u32 {
  return statesExpanded;
}

import { computeFingerprint, fingerprintHigh, copyKeys } from './table';
import { layerKeysBegin, layerKeysNext } from './layered-table';
import { MAX_KEY_BYTES, keyBytes as solveKeyBytes } from './key';

/** Keys copied per `exportKeys` call. */
const EXPORT_BATCH: u32 = 4096;
const EXPORT_BUFFER: usize = memory.data(<i32>EXPORT_BATCH * MAX_KEY_BYTES);

/** Bytes of one canonical key of the last solve (key.ts documents the encoding): 48, or 56 past 11 columns. */
export function keyBytes(): i32 {
  return solveKeyBytes;
}

/** Address of the key export buffer (EXPORT_BATCH keys of `keyBytes()` each). */
export function exportBufferAddress(): usize {
  return EXPORT_BUFFER;
}

/** Copies up to EXPORT_BATCH stored keys, starting at record `first` (1-based), into the export buffer; returns how many. */
export function exportKeys(first: u32): u32 {
  const total = statesStoredCount();
  if (first > total) return 0;
  const count = min(EXPORT_BATCH, total - first + 1);
  copyKeys(first, count, EXPORT_BUFFER);
  return count;
}

/**
 * Starts the export of layer `layer`'s keys (layered-table.ts `layerKeysBegin`, the
 * layered pass only): 1, or 0 when the layer is closed or there is no
 * layered table. Then `exportLayerKeys` until it answers 0.
 */
export function beginLayerKeys(layer: i32): i32 {
  return layerKeysBegin(layer) ? 1 : 0;
}

/** Copies up to EXPORT_BATCH keys of the layer `beginLayerKeys` named into the export buffer (canonical, `keyBytes()` each); returns how many, 0 at its end. */
export function exportLayerKeys(): u32 {
  return layerKeysNext(EXPORT_BUFFER, EXPORT_BATCH);
}

/** Low 32 bits of the stored set's fingerprint (table.ts); call `fingerprintHighBits` after it. */
export function fingerprintLowBits(): u32 {
  return computeFingerprint();
}

/** High 32 bits of the fingerprint computed by the last `fingerprintLowBits`. */
export function fingerprintHighBits(): u32 {
  return fingerprintHigh;
}

export { setBeamWeights } from './beam-cost';
export {
  shortenBegin, shortenBeam, shortenWrite, shortenPathMoves, shortenStopped,
  shortenMemoryBytes, beamFindBegin, beamMostHome, beamLevelsReached, beamOutOfMemory, beamExpanded,
} from './beam';

export { setLayeredSearch, layerCount } from './layers';
export { layeredViolations, layeredInUse } from './search';
import { keysHeldPeak, purges, keysHeld } from './layered-table';
import { INBOX, childrenForwarded, forwardCalls } from './shards';

/** Most positions whose keys the last layered solve held at once (its peak live set; 0 outside the layered pass). */
export function layeredPeakLive(): u32 {
  return keysHeldPeak;
}

/** Positions whose keys the last layered solve still held at its end. */
export function layeredLiveAtEnd(): u32 {
  return keysHeld;
}

/** Purges of closed layers the last layered solve made. */
export function layeredPurges(): u32 {
  return purges;
}
// the sharded layered pass (assembly/shards.ts; client-sdk/core/sharded-layers.ts drives it)
export {
  layeredShardBegin, layeredShardStep, layeredNextOpen, layeredAdvance, acceptChildren, shardGoal, shardStopReason,
  recordParentRef, recordMoveBits, pathAddress, pathCapacity, replaySolution,
  STEP_DRAINED, STEP_MORE, STEP_GOAL, STEP_REMOTE_GOAL, STEP_STOPPED,
} from './shard-pass';
export { FORWARD_OK, FORWARD_GOAL, FORWARD_FAILED, ENTRY_BYTES, MAX_SHARDS } from './shards';

/** Address of this instance's inbox (assembly/shards.ts INBOX). */
export function inboxAddress(): usize {
  return INBOX;
}

/** Children this instance forwarded to other shards, and the host calls that carried them. */
export function shardChildrenForwarded(): f64 {
  return childrenForwarded;
}
export function shardForwardCalls(): f64 {
  return forwardCalls;
}
