/**
 * The state table: every distinct canonical position the search has met,
 * with its parent and the move that reached it (records.ts), found by its
 * key.
 *
 * Algorithm: open addressing with linear probing over u64 slots, each
 * holding a record index (low 32 bits, 0 = empty) and the key's 32-bit hash
 * (high 32 bits), power-of-two capacity, doubled when the load passes
 * MAX_LOAD_N / MAX_LOAD_D (the old slots are released to the arena, where
 * later record chunks reuse them; when memory is too short to double, the
 * slots fill up to TIGHT_LOAD_N / TIGHT_LOAD_D before the search stops for
 * memory). A probe compares the hash in the slot first, so a miss costs no
 * visit to the record, and then the full key, so two positions are never
 * merged on a hash alone (docs/architecture.md: "unsolvable" must not rest
 * on a hash).
 *
 * This file holds the full key's layout and the entry points of both
 * layouts; the compact layout of the no-cell Castle games has its own slots
 * (compact-table.ts), and the layered pass its own record chunks
 * (layered-table.ts).
 */
import { allocate, release, arenaResets } from './arena';
import { pollStop } from './host';
import { MAX_KEY_BYTES, keyBytes, wideKeys, keysEqualOf, hashKey, encodeKey } from './key';
import { compactLayout, hashCompact, canonicalKeyOfCompact, encodeCompact } from './castle-key';
import {
  StateTable, REC_PARENT, REC_KEY, RECORD_BYTES, WIDE_RECORD_BYTES, Key48, Key56, CHUNK_SHIFT, CHUNK_RECORDS, CHUNKS, recordAt, fullRecordAt, recordKey,
  setRecordMove, claimRecord,
  FAIL_NONE, FAIL_MEMORY, FAIL_STOPPED, INITIAL_SLOTS, MAX_LOAD_N, MAX_LOAD_D, TIGHT_LOAD_N, TIGHT_LOAD_D, GROW_POLL_RECORDS,
  COMPACT_INDEX_BITS, COMPACT_INDEX_MASK, compactHome,
} from './records';
import { resetCompactTable, findOrInsertCompact } from './compact-table';
import { layeredTable, chunksUsed } from './layered-table';

let slots: usize = 0;
let slotMask: u32 = 0;

/**
 * Most records the last table may hold for `resetTable` to clear its slots
 * one record at a time (a hash and a short probe each) instead of filling
 * all INITIAL_SLOTS * 8 bytes (512 KiB). Most solves store a few hundred
 * positions, so this saves a 512 KiB fill per solve.
 */
const CLEAR_BY_RECORDS_MAX: u32 = 4096;

/** `arenaResets` right after the last `resetTable` allocated its slots. */
let slotsEpoch: u32 = 0;

/**
 * Zeroes the slots of the last table's records, so that the slot block is
 * all zero again. Each record's slot lies at or after its hash's home slot
 * (linear probing), so the probe from there, skipping slots already zeroed,
 * ends at it. Returns false (the caller then fills the whole block) if a
 * record's slot is not found within one lap, which a consistent table never
 * gives: a guard against a hang, not a path in use.
 */
function clearSlotsByRecords(): bool {
  for (let i: u32 = 1; i <= StateTable.recordCount; i++) {
    let h = hashKey(recordKey(recordAt(i))) & slotMask;
    let steps: u32 = 0;
    while (<u32>load<u64>(slots + (<usize>h << 3)) != i) {
      h = (h + 1) & slotMask;
      if (++steps > slotMask) return false;
    }
    store<u64>(slots + (<usize>h << 3), 0);
  }
  return true;
}

/**
 * Empties the table for a new solve that may store at most `maxRecords`
 * positions. Returns false when out of memory.
 *
 * The fresh slots must be all zero. When the last table used the same
 * INITIAL_SLOTS block (never grown, so never released to other users), with
 * no other arena reset since its own (`arenaResets` one above `slotsEpoch`,
 * so no other user such as the shortening beam took that memory), and held at
 * most CLEAR_BY_RECORDS_MAX records, only its records' slots are zeroed;
 * otherwise the whole block is filled.
 */
export function resetTable(maxRecords: u32): bool {
  const oldSlots = slots;
  if (compactLayout) {
    // the 8-byte slots of an earlier solve are not reused after a compact one
    slots = 0;
    slotMask = INITIAL_SLOTS - 1;
    return resetCompactTable(maxRecords);
  }
  StateTable.recordStride = <usize>(wideKeys ? WIDE_RECORD_BYTES : RECORD_BYTES);
  const reusable = oldSlots != 0 && slotMask == INITIAL_SLOTS - 1 && arenaResets == slotsEpoch + 1 &&
    StateTable.recordCount <= CLEAR_BY_RECORDS_MAX;
  StateTable.recordLimit = maxRecords;
  StateTable.insertFailure = FAIL_NONE;
  StateTable.insertStopReason = 0;
  StateTable.slotsAtMemoryLimit = false;
  slots = allocate(<u64>INITIAL_SLOTS * 8);
  if (slots == 0) {
    StateTable.recordCount = 0;
    slotMask = INITIAL_SLOTS - 1;
    return false;
  }
  slotsEpoch = arenaResets;
  if (!(reusable && slots == oldSlots && clearSlotsByRecords())) {
    memory.fill(slots, 0, INITIAL_SLOTS * 8);
  }
  StateTable.recordCount = 0;
  slotMask = INITIAL_SLOTS - 1;
  // record index 0 is never used: reserve it in chunk 0
  const chunk = allocate(<u64>CHUNK_RECORDS * StateTable.recordStride);
  if (chunk == 0) return false;
  store<u32>(CHUNKS, chunk);
  return true;
}

/**
 * Doubles the slots and moves every record's slot into them. Each slot
 * holds its key's 32-bit hash (high half), so the old slots are walked in
 * order and re-placed from that hash: no record and no key is read (a
 * record-order rehash visited every record and hashed its key again, a
 * random read per record). Moving tens of millions of slots takes a while,
 * so it polls the host's stop flag every GROW_POLL_RECORDS slots: a deadline
 * or cancel is then kept within a fraction of a second. Returns FAIL_NONE,
 * FAIL_MEMORY or FAIL_STOPPED (the old slots stay in use, and the search ends).
 */
function growSlots(): i32 {
  const oldCount = slotMask + 1;
  const newCount = oldCount << 1;
  const fresh = allocate(<u64>newCount * 8);
  if (fresh == 0) return FAIL_MEMORY;
  memory.fill(fresh, 0, <usize>newCount * 8);
  const mask = newCount - 1;
  for (let s: u32 = 0; s < oldCount; s++) {
    if ((s & (GROW_POLL_RECORDS - 1)) == GROW_POLL_RECORDS - 1) {
      const reason = pollStop();
      if (reason != 0) {
        StateTable.insertStopReason = reason;
        return FAIL_STOPPED;
      }
    }
    const slot = load<u64>(slots + (<usize>s << 3));
    if (slot == 0) continue;
    let h = <u32>(slot >> 32) & mask;
    while (load<u64>(fresh + (<usize>h << 3)) != 0) h = (h + 1) & mask;
    store<u64>(fresh + (<usize>h << 3), slot);
  }
  release(slots, (<u64>slotMask + 1) * 8);
  slots = fresh;
  slotMask = mask;
  return FAIL_NONE;
}

/** Slots that hold a record, counted over the whole slot block (for the tests: 0 right after `resetTable`). */
export function usedSlotCount(): u32 {
  let n: u32 = 0;
  if (compactLayout) {
    for (let h: u32 = 0; h < StateTable.compactSlotCount; h++) if (load<u32>(StateTable.compactSlots + (<usize>h << 2)) != 0) n++;
    return n;
  }
  for (let h: u32 = 0; h <= slotMask; h++) if (load<u64>(slots + (<usize>h << 3)) != 0) n++;
  return n;
}

/**
 * The slot a lookup of `hash` starts at, read and returned (the caller folds
 * it into a sink so that the load stays): a hint, so that a `findOrInsert`
 * of that hash soon after finds the slot in the cache. Reading the slots of
 * several keys before looking any of them up lets their cache misses
 * overlap (search.ts `lookupChildren`). Changes nothing.
 */
// @ts-ignore: decorator
@inline export function touchSlot(hash: u32): u64 {
  if (compactLayout) return <u64>load<u32>(StateTable.compactSlots + (<usize>compactHome(hash, StateTable.compactSlotCount) << 2));
  return load<u64>(slots + (<usize>(hash & slotMask) << 3));
}

/**
 * When the slot `hash` starts at holds a record of that hash (a likely
 * duplicate), reads the first word of that record's key and returns it,
 * else returns the slot: the second hint after `touchSlot`, for the full key
 * comparison. Changes nothing.
 */
// @ts-ignore: decorator
@inline export function touchRecord(hash: u32): u64 {
  if (compactLayout) {
    // the compact slots (below): the index under a 4-bit tag of the hash
    const tagged = load<u32>(StateTable.compactSlots + (<usize>compactHome(hash, StateTable.compactSlotCount) << 2));
    if (tagged == 0 || (tagged & ~COMPACT_INDEX_MASK) != hash << COMPACT_INDEX_BITS) return <u64>tagged;
    return load<u64>(recordAt(tagged & COMPACT_INDEX_MASK) + REC_KEY);
  }
  const slot = load<u64>(slots + (<usize>(hash & slotMask) << 3));
  if (slot == 0 || <u32>(slot >> 32) != hash) return slot;
  return load<u64>(recordKey(recordAt(<u32>slot)));
}

/**
 * Finds the record whose key equals the key at `key` (the solve's layout:
 * `keyBytes`, or `compactKeyBytes` in the compact layout); when there is
 * none, stores a new record (parent, move word, key) and returns its index
 * with `StateTable.lastInsertWasNew` set. Returns 0 when the state budget or memory ran
 * out, or the host asked to stop while the slots grew (`StateTable.insertFailure` tells which).
 */
export function findOrInsert(key: usize, hash: u32, parent: u32, move: u32): u32 {
  return compactLayout ? findOrInsertCompact(key, hash, parent, move) : findOrInsertFull(key, hash, parent, move);
}

/**
 * Writes the key of position `p` in the solve's layout at `key` (MAX_KEY_BYTES of
 * room) and finds or inserts it, as `findOrInsert` with the layout's hash:
 * the search's one call per position, with one test of the layout.
 */
// @ts-ignore: decorator
@inline export function findOrInsertPosition(p: usize, key: usize, parent: u32, move: u32): u32 {
  if (compactLayout) {
    encodeCompact(p, key);
    return findOrInsertCompact(key, hashCompact(key), parent, move);
  }
  encodeKey(p, key);
  return findOrInsertFull(key, hashKey(key), parent, move);
}

/** `findOrInsert` of the full key's layout, of this solve's key width. */
// @ts-ignore: decorator
@inline function findOrInsertFull(key: usize, hash: u32, parent: u32, move: u32): u32 {
  return wideKeys ? findOrInsertFullOf<Key56>(key, hash, parent, move) : findOrInsertFullOf<Key48>(key, hash, parent, move);
}

/** `findOrInsert` of the full key's layout with keys of width K (records.ts Key48, Key56). */
function findOrInsertFullOf<K>(key: usize, hash: u32, parent: u32, move: u32): u32 {
  let h = hash & slotMask;
  while (true) {
    const slot = load<u64>(slots + (<usize>h << 3));
    if (slot == 0) break;
    if (<u32>(slot >> 32) == hash) {
      const idx = <u32>slot;
      if (keysEqualOf<K>(fullRecordAt<K>(idx) + REC_KEY, key)) {
        StateTable.lastInsertWasNew = false;
        return idx;
      }
    }
    h = (h + 1) & slotMask;
  }
  const index = claimRecord(<u64>CHUNK_RECORDS * (REC_KEY + offsetof<K>()));
  if (index == 0) return 0;
  const rec = fullRecordAt<K>(index);
  store<u32>(rec + REC_PARENT, parent);
  setRecordMove(rec, move);
  // 16 bytes at a time instead of a memory.copy call (a wide key's last 8 as a u64)
  const dst = rec + REC_KEY;
  for (let at: usize = 0; at < 48; at += 16) v128.store(dst + at, v128.load(key + at));
  if (offsetof<K>() > 48) store<u64>(dst + 48, load<u64>(key + 48));
  store<u64>(slots + (<usize>h << 3), (<u64>hash << 32) | <u64>index);
  StateTable.lastInsertWasNew = true;
  if (!StateTable.slotsAtMemoryLimit && <u64>StateTable.recordCount * MAX_LOAD_D > (<u64>slotMask + 1) * MAX_LOAD_N) {
    const failure = growSlots();
    if (failure == FAIL_MEMORY) {
      StateTable.slotsAtMemoryLimit = true;
    } else if (failure != FAIL_NONE) {
      StateTable.insertFailure = failure;
      return 0;
    }
  }
  if (StateTable.slotsAtMemoryLimit && <u64>StateTable.recordCount * TIGHT_LOAD_D >= (<u64>slotMask + 1) * TIGHT_LOAD_N) {
    StateTable.insertFailure = FAIL_MEMORY;
    return 0;
  }
  return index;
}

// ---------------------------------------------------------------------------
// The stored set

/** Scratch of `computeFingerprint`: a compact record's canonical key. */
const CANONICAL_KEY: usize = memory.data(MAX_KEY_BYTES, 16);

/** High 32 bits of the fingerprint computed by the last `computeFingerprint`. */
export let fingerprintHigh: u32 = 0;

/**
 * Fingerprint of the stored set: the sum, modulo 2^64, of the FNV-1a 64-bit
 * hash of every stored key (its canonical key's `keyBytes` bytes). The sum does not depend on
 * the order the positions were found in, so anyone holding the set can
 * recompute it (docs/proofs.md). Returns the low 32 bits; `fingerprintHigh`
 * holds the high 32 bits afterwards.
 */
export function computeFingerprint(): u32 {
  // (the compact layout hashes the same canonical keys: the sum does not depend on the layout)
  let sum: u64 = 0;
  for (let i: u32 = 1; i <= StateTable.recordCount; i++) {
    let key = recordKey(recordAt(i));
    if (compactLayout) {
      canonicalKeyOfCompact(key, CANONICAL_KEY);
      key = CANONICAL_KEY;
    }
    let h: u64 = 0xcbf29ce484222325;
    for (let b = 0; b < keyBytes; b++) {
      h ^= <u64>load<u8>(key + b);
      h *= 0x100000001b3;
    }
    sum += h;
  }
  fingerprintHigh = <u32>(sum >> 32);
  return <u32>sum;
}

/**
 * Copies the keys of records first..first+count-1 (1-based) to `dst`,
 * `keyBytes` each: always key.ts's canonical keys (a compact record's key
 * is decoded and re-encoded), so certificates do not depend on the layout.
 */
export function copyKeys(first: u32, count: u32, dst: usize): void {
  const size = <usize>keyBytes;
  if (compactLayout) {
    for (let i: u32 = 0; i < count; i++) canonicalKeyOfCompact(recordKey(recordAt(first + i)), dst + <usize>i * size);
    return;
  }
  for (let i: u32 = 0; i < count; i++) memory.copy(dst + <usize>i * size, recordKey(recordAt(first + i)), size);
}

/** Bytes of the current hash slots (8 per slot, 4 in the compact layout), for the statistics. */
export function slotBytes(): f64 {
  return compactLayout ? <f64>StateTable.compactSlotCount * 4 : (<f64>slotMask + 1) * 8;
}

/** True when `index` names a stored record of this solve (in the layered table: an index of a chunk handed out; elsewhere 1..recordCount). */
export function isRecordIndex(index: u32): bool {
  if (index == 0) return false;
  if (layeredTable) return (index >> CHUNK_SHIFT) < chunksUsed;
  return index <= StateTable.recordCount;
}
