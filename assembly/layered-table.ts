/**
 * The layered pass's table (layers.ts, search.ts `layeredLoop`): the compact
 * table (compact-table.ts) with the records of each layer in chunks of its
 * own, so that the keys of closed layers can be dropped.
 *
 * Each record index belongs to one layer: a layer takes its indices from
 * chunks of its own (`claimLayered`), so the indices of one layer increase
 * (its open stack's delta coding needs that) and a chunk holds one layer's
 * records. Once the pass has moved past a layer (`closeLayersBelow`), no
 * lookup can meet its positions again, and a purge (`purgeClosedLayers`)
 * drops their slots and turns each of their chunks into an 8-byte-a-record
 * block of parents and moves (bit 0 of the chunk's word, records.ts
 * `recordAt`), whose key bytes go to a free list of chunk blocks that later
 * chunks reuse. The positions count (`StateTable.recordCount`) is every
 * position ever stored.
 *
 * The keys of one layer can be read for the streamed layered certificate
 * (`layerKeysBegin`, `layerKeysNext`).
 */
import { allocate, release, arenaLargestBlock } from './arena';
import { pollStop } from './host';
import { keyBytes } from './key';
import { MAX_LAYERS, layerOfKey, countInLayer } from './layers';
import { addOpenSlab } from './open-stack';
import { hashCompact, canonicalKeyOfCompact } from './castle-key';
import {
  StateTable, CHUNK_SHIFT, CHUNK_RECORDS, MAX_CHUNKS, CHUNKS, recordAt, recordKey,
  FAIL_NONE, FAIL_STATES, FAIL_MEMORY, FAIL_STOPPED, MAX_LOAD_N, MAX_LOAD_D, GROW_POLL_RECORDS,
  COMPACT_TIGHT_N, COMPACT_TIGHT_D, COMPACT_INDEX_BITS, COMPACT_INDEX_MASK, compactHome,
} from './records';

/** The current solve runs the layered pass (set by search.ts before table.ts `resetTable`). */
export let layeredTable: bool = false;

/** Layers below this one are closed (their positions can never be met again). */
export let openLayerLow: i32 = 0;

/** The layer of the record the last new insert stored. */
export let insertLayer: i32 = 0;

/** A `claimLayered` purged the slots, so the free slot its caller found has moved. */
export let purgedInClaim: bool = false;

/** Records whose slots (and keys) are held: the live set, and its most since the reset. */
export let keysHeld: u32 = 0;
export let keysHeldPeak: u32 = 0;

/** Of `keysHeld`, those of closed layers (a purge drops them). */
let keysClosed: u32 = 0;

/** Purges made since the reset. */
export let purges: u32 = 0;

/** The layer of each chunk. */
const CHUNK_LAYER: usize = memory.data(MAX_CHUNKS * 2);

/** Per layer: its current chunk (chunk number) and the next free offset in it (CHUNK_RECORDS: none). */
const LAYER_CHUNK: usize = memory.data(MAX_LAYERS * 4);
const LAYER_FILL: usize = memory.data(MAX_LAYERS * 4);

/** Per layer: its records whose keys are held. */
const LAYER_HELD: usize = memory.data(MAX_LAYERS * 4);

/** Chunk numbers handed out so far. */
export let chunksUsed: u32 = 0;

/** Freed chunk blocks (CHUNK_RECORDS * recordStride bytes), linked through their first word. */
let freeChunks: usize = 0;

/** Parent-and-move blocks carved and not yet used: the next one's address, and how many are left. */
let pmNext: usize = 0;
let pmLeft: u32 = 0;

/** Bytes of a parents-and-moves region taken from the arena (at least one chunk's 8-byte records). */
const PM_REGION_BYTES: u64 = <u64>CHUNK_RECORDS * 8;

/** Host hook of search.ts: the next `resetTable` of the compact layout sets up a layered table (true) or a plain one. */
export function setLayeredTable(on: bool): void {
  layeredTable = on;
}

/** Empties the layered state (from compact-table.ts `resetCompactTable`). */
export function resetLayeredTable(): void {
  openLayerLow = 0;
  insertLayer = 0;
  keysHeld = 0;
  keysHeldPeak = 0;
  keysClosed = 0;
  purges = 0;
  chunksUsed = 0;
  freeChunks = 0;
  pmNext = 0;
  pmLeft = 0;
  purgedInClaim = false;
  for (let k = 0; k < MAX_LAYERS; k++) {
    store<u32>(LAYER_CHUNK + (<usize>k << 2), 0);
    store<u32>(LAYER_FILL + (<usize>k << 2), CHUNK_RECORDS);
    store<u32>(LAYER_HELD + (<usize>k << 2), 0);
  }
}

/**
 * Room for the open stacks when the arena has none (layered pass): purges
 * the closed layers if any keys of theirs are held, then hands a freed chunk
 * block to open-stack.ts. False when there is none.
 */
export function reclaimForOpenStacks(): bool {
  if (!layeredTable) return false;
  if (freeChunks == 0 && keysClosed > 0) purgeClosedLayers();
  const block = freeChunks;
  if (block == 0) return false;
  freeChunks = <usize>load<u32>(block);
  addOpenSlab(block, <u32>(<u64>CHUNK_RECORDS * StateTable.recordStride));
  return true;
}

/** A chunk block: a freed one, else from the arena; 0 when the memory ran out. */
function takeChunkBlock(): usize {
  const free = freeChunks;
  if (free != 0) {
    freeChunks = <usize>load<u32>(free);
    return free;
  }
  return allocate(<u64>CHUNK_RECORDS * StateTable.recordStride);
}

/**
 * Claims a record index for the new key at `key` in its layer (`insertLayer`
 * is set to it): the next offset of the layer's chunk, or a fresh chunk.
 * When no chunk can be had, purges the closed layers (if any are held) and
 * tries once more. Returns 0 with `StateTable.insertFailure` set as records.ts `claimRecord` does.
 */
export function claimLayered(key: usize): u32 {
  purgedInClaim = false;
  const layer = layerOfKey(key);
  insertLayer = layer;
  if (StateTable.recordCount + 1 > StateTable.recordLimit) {
    StateTable.insertFailure = FAIL_STATES;
    return 0;
  }
  const at = <usize>layer << 2;
  let fill = load<u32>(LAYER_FILL + at);
  let chunkNo = load<u32>(LAYER_CHUNK + at);
  if (fill >= CHUNK_RECORDS) {
    if (chunksUsed >= <u32>MAX_CHUNKS) {
      StateTable.insertFailure = FAIL_STATES;
      return 0;
    }
    if (chunksUsed == 0) {
      // chunk 0 (from resetCompactTable) goes to the start position's layer; index 0 stays unused
      fill = 1;
    } else {
      let block = takeChunkBlock();
      if (block == 0 && keysClosed > 0) {
        purgeClosedLayers();
        purgedInClaim = true;
        block = takeChunkBlock();
      }
      if (block == 0) {
        StateTable.insertFailure = FAIL_MEMORY;
        return 0;
      }
      store<u32>(CHUNKS + (<usize>chunksUsed << 2), <u32>block);
      fill = 0;
    }
    chunkNo = chunksUsed++;
    store<u16>(CHUNK_LAYER + (<usize>chunkNo << 1), layer);
    store<u32>(LAYER_CHUNK + at, chunkNo);
  }
  store<u32>(LAYER_FILL + at, fill + 1);
  StateTable.recordCount++;
  countInLayer(layer);
  return (chunkNo << CHUNK_SHIFT) | fill;
}

/** True when record `index`'s layer is closed. */
// @ts-ignore: decorator
@inline function recordClosed(index: u32): bool {
  return <i32>load<u16>(CHUNK_LAYER + ((<usize>index >> CHUNK_SHIFT) << 1)) < openLayerLow;
}

/**
 * The layered half of compact-table.ts `findOrInsertCompact` after a new record `index` took
 * its slot: counts it, grows the slots past 5/8 of live records (after a
 * purge when closed records are a quarter of them), and under the memory
 * cap fills them to 15/16. Returns `index`, or 0 with `StateTable.insertFailure` set.
 */
export function layeredAfterInsert(index: u32): u32 {
  keysHeld++;
  if (keysHeld > keysHeldPeak) keysHeldPeak = keysHeld;
  const at = LAYER_HELD + (<usize>insertLayer << 2);
  store<u32>(at, load<u32>(at) + 1);
  if (<u64>keysHeld * MAX_LOAD_D > <u64>StateTable.compactSlotCount * MAX_LOAD_N) {
    if (keysClosed * 4 >= keysHeld) purgeClosedLayers();
    if (!StateTable.slotsAtMemoryLimit && <u64>keysHeld * MAX_LOAD_D > <u64>StateTable.compactSlotCount * MAX_LOAD_N) {
      const count = StateTable.compactSlotCount;
      let target = <f64>count * 2;
      const most = <f64>(arenaLargestBlock() >> 2);
      if (target > most) target = most;
      if (target > 4294967295) target = 4294967295;
      const failure = target < <f64>count * 1.0625 ? FAIL_MEMORY : growLayeredSlots(<u32>target);
      if (failure == FAIL_MEMORY) {
        StateTable.slotsAtMemoryLimit = true;
      } else if (failure != FAIL_NONE) {
        StateTable.insertFailure = failure;
        return 0;
      }
    }
  }
  if (StateTable.slotsAtMemoryLimit && <u64>keysHeld * COMPACT_TIGHT_D >= <u64>StateTable.compactSlotCount * COMPACT_TIGHT_N) {
    if (keysClosed > 0) purgeClosedLayers();
    if (<u64>keysHeld * COMPACT_TIGHT_D >= <u64>StateTable.compactSlotCount * COMPACT_TIGHT_N) {
      StateTable.insertFailure = FAIL_MEMORY;
      return 0;
    }
  }
  return index;
}

/**
 * compact-table.ts `growCompactSlots` of the layered table: the records to rehash are those
 * in the old slots (not 1..recordCount, whose closed ones have no key any
 * more). Returns FAIL_NONE, FAIL_MEMORY (nothing changed) or FAIL_STOPPED.
 */
function growLayeredSlots(newCount: u32): i32 {
  const fresh = allocate(<u64>newCount * 4);
  if (fresh == 0) return FAIL_MEMORY;
  memory.fill(fresh, 0, <usize>newCount * 4);
  const oldCount = StateTable.compactSlotCount;
  for (let s: u32 = 0; s < oldCount; s++) {
    if ((s & (GROW_POLL_RECORDS - 1)) == GROW_POLL_RECORDS - 1) {
      const reason = pollStop();
      if (reason != 0) {
        StateTable.insertStopReason = reason;
        release(fresh, <u64>newCount * 4);
        return FAIL_STOPPED;
      }
    }
    const slot = load<u32>(StateTable.compactSlots + (<usize>s << 2));
    if (slot == 0) continue;
    const i = slot & COMPACT_INDEX_MASK;
    const hash = hashCompact(recordKey(recordAt(i)));
    let h = compactHome(hash, newCount);
    while (load<u32>(fresh + (<usize>h << 2)) != 0) {
      h++;
      if (h == newCount) h = 0;
    }
    store<u32>(fresh + (<usize>h << 2), (hash << COMPACT_INDEX_BITS) | i);
  }
  release(StateTable.compactSlots, <u64>oldCount * 4);
  StateTable.compactSlots = fresh;
  StateTable.compactSlotCount = newCount;
  return FAIL_NONE;
}

/**
 * Closes every layer below `layer` (the pass has no open position below
 * it, and no move lowers the layer: layers.ts): their held records become
 * purgeable. Purges when the closed records are at least half the live ones.
 */
export function closeLayersBelow(layer: i32): void {
  for (let k = openLayerLow; k < layer && k < MAX_LAYERS; k++) keysClosed += load<u32>(LAYER_HELD + (<usize>k << 2));
  if (layer > openLayerLow) openLayerLow = layer;
  if (keysClosed > 0 && <u64>keysClosed * 2 >= <u64>(keysHeld - keysClosed)) purgeClosedLayers();
}

/**
 * `bytes` bytes (a multiple of 16) for the parents and moves of one closed
 * chunk's used records, carved one after the other from a region: a freed
 * chunk block, else PM_REGION_BYTES from the arena; 0 when neither can be had.
 */
function takePmBlock(bytes: u32): usize {
  if (pmLeft < bytes) {
    const free = freeChunks;
    if (free != 0) {
      freeChunks = <usize>load<u32>(free);
      pmNext = free;
      pmLeft = <u32>(<u64>CHUNK_RECORDS * StateTable.recordStride) & ~15;
    } else {
      const region = allocate(PM_REGION_BYTES);
      if (region == 0) return 0;
      pmNext = region;
      pmLeft = <u32>PM_REGION_BYTES;
    }
  }
  const block = pmNext;
  pmNext += <usize>bytes;
  pmLeft -= bytes;
  return block;
}

/**
 * Drops the slots of every record of a closed layer and keeps only the
 * parents and moves of their chunks. The slots are swept in place: from an
 * empty slot, cyclically, a closed record's slot is emptied, and a live
 * record after an emptied slot in the same run of full slots is taken out
 * and put back from its home slot (it lands at or before where it was, so
 * no run that a lookup of a record already passed is broken: linear
 * probing's deletion, for many slots at once). Then each closed chunk's
 * parents and moves go to an 8-byte-a-record block of its used records
 * (bit 0 of its word) and its block goes to the free list; a chunk for which
 * no such block can be had is compacted in place (its key bytes stay unused).
 */
function purgeClosedLayers(): void {
  purges++;
  const count = StateTable.compactSlotCount;
  let start: u32 = 0;
  while (start < count && load<u32>(StateTable.compactSlots + (<usize>start << 2)) != 0) start++;
  if (start == count) unreachable();
  let hole = false;
  let s = start;
  for (let n: u32 = 0; n < count; n++) {
    s++;
    if (s == count) s = 0;
    const at = StateTable.compactSlots + (<usize>s << 2);
    const slot = load<u32>(at);
    if (slot == 0) {
      hole = false;
      continue;
    }
    const i = slot & COMPACT_INDEX_MASK;
    if (recordClosed(i)) {
      store<u32>(at, 0);
      hole = true;
      continue;
    }
    if (!hole) continue;
    store<u32>(at, 0);
    const hash = hashCompact(recordKey(recordAt(i)));
    let h = compactHome(hash, count);
    while (load<u32>(StateTable.compactSlots + (<usize>h << 2)) != 0) {
      h++;
      if (h == count) h = 0;
    }
    store<u32>(StateTable.compactSlots + (<usize>h << 2), slot);
  }
  keysHeld -= keysClosed;
  keysClosed = 0;
  for (let k = 0; k < openLayerLow && k < MAX_LAYERS; k++) store<u32>(LAYER_HELD + (<usize>k << 2), 0);
  for (let c: u32 = 0; c < chunksUsed; c++) {
    const wordAt = CHUNKS + (<usize>c << 2);
    const word = <usize>load<u32>(wordAt);
    if ((word & 1) != 0 || <i32>load<u16>(CHUNK_LAYER + (<usize>c << 1)) >= openLayerLow) continue;
    // the layer's current chunk is closed too: its unused offsets stay unused
    const layer = <i32>load<u16>(CHUNK_LAYER + (<usize>c << 1));
    // a layer's current chunk is used up to its fill, every other one in full
    let used = CHUNK_RECORDS;
    if (load<u32>(LAYER_CHUNK + (<usize>layer << 2)) == c) {
      used = load<u32>(LAYER_FILL + (<usize>layer << 2));
      if (used > CHUNK_RECORDS) used = CHUNK_RECORDS;
      store<u32>(LAYER_FILL + (<usize>layer << 2), CHUNK_RECORDS);
    }
    const pm = takePmBlock((used * 8 + 15) & ~15);
    const dst = pm != 0 ? pm : word;
    for (let r: u32 = 0; r < used; r++) store<u64>(dst + (<usize>r << 3), load<u64>(word + <usize>r * StateTable.recordStride));
    store<u32>(wordAt, <u32>(dst | 1));
    if (pm != 0) {
      store<u32>(word, <u32>freeChunks);
      freeChunks = word;
    }
  }
}

// ---------------------------------------------------------------------------
// The keys of one layer

// (client-sdk/core/proof/layered-writer.ts, docs/proofs.md "Layered
// certificates"): the host reads a layer's keys after the pass has moved past
// it and before `closeLayersBelow` lets a purge drop them.

/** Cursor of `layerKeysBegin` / `layerKeysNext`: the layer, the chunk and the offset in it. */
let exportLayer: i32 = -1;
let exportChunk: u32 = 0;
let exportOffset: u32 = 0;

/**
 * Starts reading the keys of layer `layer` of the layered table (its records
 * in chunk order). False when there is no layered table, the layer is out of
 * 0..MAX_LAYERS-1 or it is closed (`openLayerLow`: a purge may have dropped
 * its keys, so they can no longer all be read).
 */
export function layerKeysBegin(layer: i32): bool {
  exportLayer = -1;
  if (!layeredTable || layer < openLayerLow || layer < 0 || layer >= MAX_LAYERS) return false;
  exportLayer = layer;
  exportChunk = 0;
  exportOffset = 0;
  return true;
}

/**
 * Copies up to `max` keys of the layer `layerKeysBegin` named to `dst`, as
 * canonical keys (key.ts's encoding, `keyBytes` each, a compact key
 * decoded and re-encoded as `copyKeys` does), and returns how many; 0
 * when the layer is read to its end. A layer's records are the used offsets
 * of its chunks: every offset of a chunk but its current one, which is used
 * up to the layer's fill (chunk 0 from offset 1: index 0 is no record).
 */
export function layerKeysNext(dst: usize, max: u32): u32 {
  if (exportLayer < 0) return 0;
  let n: u32 = 0;
  while (n < max && exportChunk < chunksUsed) {
    const c = exportChunk;
    if (<i32>load<u16>(CHUNK_LAYER + (<usize>c << 1)) != exportLayer || (load<u32>(CHUNKS + (<usize>c << 2)) & 1) != 0) {
      exportChunk++;
      exportOffset = 0;
      continue;
    }
    let used = CHUNK_RECORDS;
    if (load<u32>(LAYER_CHUNK + (<usize>exportLayer << 2)) == c) {
      used = load<u32>(LAYER_FILL + (<usize>exportLayer << 2));
      if (used > CHUNK_RECORDS) used = CHUNK_RECORDS;
    }
    if (c == 0 && exportOffset == 0) exportOffset = 1;
    while (n < max && exportOffset < used) {
      canonicalKeyOfCompact(recordKey(recordAt((c << CHUNK_SHIFT) | exportOffset)), dst + <usize>n * <usize>keyBytes);
      exportOffset++;
      n++;
    }
    if (exportOffset >= used) {
      exportChunk++;
      exportOffset = 0;
    }
  }
  return n;
}
