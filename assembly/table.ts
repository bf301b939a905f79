/**
 * The state table: every distinct canonical position the search has met,
 * with its parent and the move that reached it.
 *
 * Algorithm: open addressing with linear probing over u64 slots, each
 * holding a record index (low 32 bits, 0 = empty) and the key's 32-bit hash
 * (high 32 bits), power-of-two capacity, doubled when the load passes
 * MAX_LOAD_N / MAX_LOAD_D (the old slots are released to the arena, where
 * later record chunks reuse them; when memory is too short to double, the
 * slots fill up to TIGHT_LOAD_N / TIGHT_LOAD_D before the search stops for
 * memory). A probe compares the hash in the slot first, so
 * a miss costs no visit to the record, and then the full key, so two
 * positions are never merged on a hash alone (docs/architecture.md: "unsolvable" must
 * not rest on a hash).
 *
 * Records live in chunks of CHUNK_RECORDS, so the record store grows
 * without moving (record indices stay valid). The record layout and its
 * accessors are below ("Records").
 */
import { allocate, release, arenaResets, arenaBytesFree, arenaLargestBlock } from './arena';
import { pollStop } from './host';
import { KEY_BYTES, keysEqual, hashKey, encodeKey } from './position';
import { MAX_LAYERS, layerOfKey, countInLayer } from './layers';
import { addOpenSlab } from './open-stack';
import { compactLayout, compactKeyBytes, compactTail, compactKeysEqual, hashCompact, canonicalKeyOfCompact, encodeCompact, forgetCompactBase } from './castle-key';

// ---------------------------------------------------------------------------
// Records
//
// One record per stored position, in both layouts (the compact layout of the
// no-cell Castle games only has a shorter key, castle-key.ts):
//
//   0         4         8                                           8 + key
//   ┌─────────┬─────────┬───────────────────────────────────────────┐
//   │ parent  │  move   │ key                                       │
//   │  u32    │  u32    │ KEY_BYTES (48): position.ts's canonical   │
//   │         │         │ key; compactKeyBytes (17 or 18) in the    │
//   │         │         │ compact layout                            │
//   └─────────┴─────────┴───────────────────────────────────────────┘
//   REC_PARENT REC_MOVE  REC_KEY
//
// parent: the index of the record it was first reached from (0 for the
// start position); move: the move word from that parent (move.ts: packed
// move, depth, AUTO_FOLLOWED, DONE). RECORD_BYTES = 56 in the 48-byte
// layout, 25 or 26 in the compact one (`recordStride`). Every key starts 8
// bytes into its record, so at a stride of 56 it is 8-byte aligned for the
// u64 loads of `keysEqual` (Wasm's v128 loads and stores of the key take any
// address). The open lists keep no links in a record: they are stacks of
// record indices (open-stack.ts).

export const REC_PARENT: usize = 0;
export const REC_MOVE: usize = 4;
export const REC_KEY: usize = 8;
export const RECORD_BYTES: i32 = <i32>REC_KEY + KEY_BYTES;
/** Bytes of a record in this solve's layout (set by `resetTable`). */
let recordStride: usize = <usize>RECORD_BYTES;

/** Parent record index of the record at `rec`. */
// @ts-ignore: decorator
@inline export function recordParent(rec: usize): u32 {
  return load<u32>(rec + REC_PARENT);
}
/** Move word (move.ts) of the record at `rec`. */
// @ts-ignore: decorator
@inline export function recordMove(rec: usize): u32 {
  return load<u32>(rec + REC_MOVE);
}
// @ts-ignore: decorator
@inline export function setRecordMove(rec: usize, word: u32): void {
  store<u32>(rec + REC_MOVE, word);
}
/** Address of the key of the record at `rec` (the layout's: canonical, or compact in the compact layout). */
// @ts-ignore: decorator
@inline export function recordKey(rec: usize): usize {
  return rec + REC_KEY;
}
/**
 * Records per chunk: 2^12 (224 KiB with 56-byte records, 100 KiB with 25),
 * small enough that a chunk fits in the regions the arena gets back (old
 * hash slots, the lazy phase's pending moves), so those bytes hold records
 * under a memory cap; and the layered pass holds a partly used chunk per
 * open layer (2^14 records a chunk made S&A 68's layered pass take 27 MiB
 * for a search the full search does in 17).
 */
const CHUNK_SHIFT: i32 = 12;
const CHUNK_RECORDS: u32 = 1 << CHUNK_SHIFT;
/** Chunks of one table: 2^28 records, the compact slots' 28-bit index. */
const MAX_CHUNKS: i32 = 65536;
const INITIAL_SLOTS: u32 = 1 << 16;
const MAX_LOAD_N: u32 = 5;
const MAX_LOAD_D: u32 = 8;
/**
 * When doubling the slots finds no memory, the table goes on in the slots it
 * has up to this fuller load (slower probes, but the records the memory can
 * still hold are used) before the search stops for memory.
 */
const TIGHT_LOAD_N: u32 = 7;
const TIGHT_LOAD_D: u32 = 8;

const CHUNKS: usize = memory.data(MAX_CHUNKS * 4);

let slots: usize = 0;
let slotMask: u32 = 0;
/** Doubling the slots failed for memory: fill them up to TIGHT_LOAD instead. */
let slotsAtMemoryLimit: bool = false;
/** Number of records; record indices run 1..recordCount. */
export let recordCount: u32 = 0;
let recordLimit: u32 = 0;

/** Outcome of the last insert: 0 ok, 1 state budget reached, 2 out of memory. */
export let insertFailure: i32 = 0;
export const FAIL_NONE: i32 = 0;
export const FAIL_STATES: i32 = 1;
export const FAIL_MEMORY: i32 = 2;
/** The host asked to stop while the slots were being rehashed; `insertStopReason` holds its reason. */
export const FAIL_STOPPED: i32 = 3;
export let insertStopReason: i32 = 0;
/** Slots moved between two polls of the host's stop flag while the slots grow (a power of two). */
const GROW_POLL_RECORDS: u32 = 1 << 20;

/** Address of record `index` (1-based). */
// @ts-ignore: decorator
@inline export function recordAt(index: u32): usize {
  // bit 0 of a chunk's word: the layered pass kept only its parents and moves (8 bytes a record, `compactClosedChunk`)
  const word = <usize>load<u32>(CHUNKS + ((<usize>index >> CHUNK_SHIFT) << 2));
  return (word & ~1) + ((<usize>(index & (CHUNK_RECORDS - 1))) * select<usize>(8, recordStride, word & 1));
}

/** `recordAt` of the 48-byte key's layout, with its constant stride (the FreeCell family's hot path). */
// @ts-ignore: decorator
@inline function wideRecordAt(index: u32): usize {
  return <usize>load<u32>(CHUNKS + ((<usize>index >> CHUNK_SHIFT) << 2)) + ((<usize>(index & (CHUNK_RECORDS - 1))) * RECORD_BYTES);
}

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
  for (let i: u32 = 1; i <= recordCount; i++) {
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
  if (compactLayout) return resetCompactTable(maxRecords);
  recordStride = <usize>RECORD_BYTES;
  const reusable = oldSlots != 0 && slotMask == INITIAL_SLOTS - 1 && arenaResets == slotsEpoch + 1 &&
    recordCount <= CLEAR_BY_RECORDS_MAX;
  recordLimit = maxRecords;
  insertFailure = FAIL_NONE;
  insertStopReason = 0;
  slotsAtMemoryLimit = false;
  slots = allocate(<u64>INITIAL_SLOTS * 8);
  if (slots == 0) {
    recordCount = 0;
    slotMask = INITIAL_SLOTS - 1;
    return false;
  }
  slotsEpoch = arenaResets;
  if (!(reusable && slots == oldSlots && clearSlotsByRecords())) {
    memory.fill(slots, 0, INITIAL_SLOTS * 8);
  }
  recordCount = 0;
  slotMask = INITIAL_SLOTS - 1;
  // record index 0 is never used: reserve it in chunk 0
  const chunk = allocate(<u64>CHUNK_RECORDS * RECORD_BYTES);
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
        insertStopReason = reason;
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
    for (let h: u32 = 0; h < compactSlotCount; h++) if (load<u32>(compactSlots + (<usize>h << 2)) != 0) n++;
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
  if (compactLayout) return <u64>load<u32>(compactSlots + (<usize>compactHome(hash, compactSlotCount) << 2));
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
    const tagged = load<u32>(compactSlots + (<usize>compactHome(hash, compactSlotCount) << 2));
    if (tagged == 0 || (tagged & ~COMPACT_INDEX_MASK) != hash << COMPACT_INDEX_BITS) return <u64>tagged;
    return load<u64>(recordAt(tagged & COMPACT_INDEX_MASK) + REC_KEY);
  }
  const slot = load<u64>(slots + (<usize>(hash & slotMask) << 3));
  if (slot == 0 || <u32>(slot >> 32) != hash) return slot;
  return load<u64>(recordKey(recordAt(<u32>slot)));
}

/** True when the last `findOrInsert` stored a new record (false: the key was there already). */
export let lastInsertWasNew: bool = false;

/**
 * Finds the record whose key equals the key at `key` (the solve's layout:
 * KEY_BYTES, or `compactKeyBytes` in the compact layout); when there is
 * none, stores a new record (parent, move, next = 0) and returns its index
 * with `lastInsertWasNew` set. Returns 0 when the state budget or memory ran
 * out, or the host asked to stop while the slots grew (`insertFailure` tells which).
 */
export function findOrInsert(key: usize, hash: u32, parent: u32, move: u32): u32 {
  return compactLayout ? findOrInsertCompact(key, hash, parent, move) : findOrInsertWide(key, hash, parent, move);
}

/**
 * Writes the key of position `p` in the solve's layout at `key` (48 bytes of
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
  return findOrInsertWide(key, hashKey(key), parent, move);
}

/**
 * Claims the next record index for an insert: checks the record limit and,
 * at a chunk boundary, allocates the next chunk of `chunkBytes` (the
 * layout's records times its stride). Returns the new index (recordCount
 * is advanced), or 0 with `insertFailure` set to FAIL_STATES (limit or
 * MAX_CHUNKS reached) or FAIL_MEMORY (no chunk could be allocated).
 */
// @ts-ignore: decorator
@inline function claimRecord(chunkBytes: u64): u32 {
  if (recordCount + 1 > recordLimit) {
    insertFailure = FAIL_STATES;
    return 0;
  }
  const index = recordCount + 1;
  if ((index & (CHUNK_RECORDS - 1)) == 0) {
    const chunkNo = index >> CHUNK_SHIFT;
    if (chunkNo >= <u32>MAX_CHUNKS) {
      insertFailure = FAIL_STATES;
      return 0;
    }
    const chunk = allocate(chunkBytes);
    if (chunk == 0) {
      insertFailure = FAIL_MEMORY;
      return 0;
    }
    store<u32>(CHUNKS + (<usize>chunkNo << 2), chunk);
  }
  recordCount = index;
  return index;
}

/** `findOrInsert` of the 48-byte key's layout. */
function findOrInsertWide(key: usize, hash: u32, parent: u32, move: u32): u32 {
  let h = hash & slotMask;
  while (true) {
    const slot = load<u64>(slots + (<usize>h << 3));
    if (slot == 0) break;
    if (<u32>(slot >> 32) == hash) {
      const idx = <u32>slot;
      if (keysEqual(wideRecordAt(idx) + REC_KEY, key)) {
        lastInsertWasNew = false;
        return idx;
      }
    }
    h = (h + 1) & slotMask;
  }
  const index = claimRecord(<u64>CHUNK_RECORDS * RECORD_BYTES);
  if (index == 0) return 0;
  const rec = wideRecordAt(index);
  store<u32>(rec + REC_PARENT, parent);
  setRecordMove(rec, move);
  // 16 bytes at a time (KEY_BYTES is 48) instead of a memory.copy call
  const dst = rec + REC_KEY;
  for (let at = 0; at < KEY_BYTES; at += 16) v128.store(dst + at, v128.load(key + at));
  store<u64>(slots + (<usize>h << 3), (<u64>hash << 32) | <u64>index);
  lastInsertWasNew = true;
  if (!slotsAtMemoryLimit && <u64>recordCount * MAX_LOAD_D > (<u64>slotMask + 1) * MAX_LOAD_N) {
    const failure = growSlots();
    if (failure == FAIL_MEMORY) {
      slotsAtMemoryLimit = true;
    } else if (failure != FAIL_NONE) {
      insertFailure = failure;
      return 0;
    }
  }
  if (slotsAtMemoryLimit && <u64>recordCount * TIGHT_LOAD_D >= (<u64>slotMask + 1) * TIGHT_LOAD_N) {
    insertFailure = FAIL_MEMORY;
    return 0;
  }
  return index;
}

/** Scratch of `computeFingerprint`: a compact record's canonical 48-byte key. */
const CANONICAL_KEY: usize = memory.data(KEY_BYTES, 16);

/** High 32 bits of the fingerprint computed by the last `computeFingerprint`. */
export let fingerprintHigh: u32 = 0;

/**
 * Fingerprint of the stored set: the sum, modulo 2^64, of the FNV-1a 64-bit
 * hash of every stored key (KEY_BYTES bytes each). The sum does not depend on
 * the order the positions were found in, so anyone holding the set can
 * recompute it (docs/proofs.md). Returns the low 32 bits; `fingerprintHigh`
 * holds the high 32 bits afterwards.
 */
export function computeFingerprint(): u32 {
  // (the compact layout hashes the same canonical keys: the sum does not depend on the layout)
  let sum: u64 = 0;
  for (let i: u32 = 1; i <= recordCount; i++) {
    let key = recordKey(recordAt(i));
    if (compactLayout) {
      canonicalKeyOfCompact(key, CANONICAL_KEY);
      key = CANONICAL_KEY;
    }
    let h: u64 = 0xcbf29ce484222325;
    for (let b = 0; b < KEY_BYTES; b++) {
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
 * KEY_BYTES each: always position.ts's canonical 48-byte keys (a compact
 * record's key is decoded and re-encoded), so certificates do not depend on
 * the layout.
 */
export function copyKeys(first: u32, count: u32, dst: usize): void {
  if (compactLayout) {
    for (let i: u32 = 0; i < count; i++) canonicalKeyOfCompact(recordKey(recordAt(first + i)), dst + <usize>i * KEY_BYTES);
    return;
  }
  for (let i: u32 = 0; i < count; i++) memory.copy(dst + <usize>i * KEY_BYTES, recordKey(recordAt(first + i)), KEY_BYTES);
}

// ---------------------------------------------------------------------------
// The compact layout's slots (castle-key.ts)
//
// u32 slots: the record index in the low COMPACT_INDEX_BITS bits and the low
// 4 bits of the key's hash above them (a probe visits a record only when
// those agree, so 15 of 16 foreign slots cost no visit; the full key is
// compared then, never the hash alone). The home slot is the hash scaled to
// the slot count (`(hash * count) >> 32`), so the count need not be a power
// of two: when doubling finds no memory, the slots grow by 1/2, 1/4 or 1/8
// instead, and the slot block ends close to the size the records that fit
// need.

/**
 * The compact table's fuller load once the slots can grow no more: 15/16
 * (the 72-byte table's 7/8 left S&A 523 at 117,440,512 positions, 7/8 of
 * 2^27 slots, with 178 MiB of the 4095 unused). Linear probing then costs
 * some 80 slots (320 bytes, 5 cache lines) per new position, for the last
 * few million only; the 4-bit tags keep most of them off the records.
 */
const COMPACT_TIGHT_N: u32 = 15;
const COMPACT_TIGHT_D: u32 = 16;
const COMPACT_INDEX_BITS: u32 = 28;
const COMPACT_INDEX_MASK: u32 = (1 << COMPACT_INDEX_BITS) - 1;
let compactSlots: usize = 0;
let compactSlotCount: u32 = 0;

/** First slot count of a compact table that may outgrow INITIAL_SLOTS (4 of its growths' worth: 2^18 slots, 1 MiB). */
const COMPACT_INITIAL_SLOTS: u32 = 1 << 18;
/** Records `growCompactSlots` hashes before it places them (a divisor of GROW_POLL_RECORDS). */
const GROW_BATCH: u32 = 16;
const GROW_HASHES: usize = memory.data(GROW_BATCH * 4);
/** Where the hint loads of `growCompactSlots` go, so that the optimizer keeps them; never read for anything. */
let growSink: u32 = 0;

/** Home slot of `hash` among `count` slots. */
// @ts-ignore: decorator
@inline function compactHome(hash: u32, count: u32): u32 {
  return <u32>((<u64>hash * <u64>count) >> 32);
}

/** `resetTable` of the compact layout. */
function resetCompactTable(maxRecords: u32): bool {
  forgetCompactBase();
  recordStride = REC_KEY + <usize>compactKeyBytes;
  // the 8-byte slots of an earlier solve are not reused after a compact one
  slots = 0;
  slotMask = INITIAL_SLOTS - 1;
  recordLimit = maxRecords < COMPACT_INDEX_MASK ? maxRecords : COMPACT_INDEX_MASK;
  insertFailure = FAIL_NONE;
  insertStopReason = 0;
  slotsAtMemoryLimit = false;
  recordCount = 0;
  // a Castle solve that may store more than INITIAL_SLOTS' 5/8 starts at
  // COMPACT_INITIAL_SLOTS (1 MiB), saving the rehashes of the first two growths
  const first = <u64>recordLimit * MAX_LOAD_D > <u64>INITIAL_SLOTS * MAX_LOAD_N ? COMPACT_INITIAL_SLOTS : INITIAL_SLOTS;
  compactSlotCount = first;
  compactSlots = allocate(<u64>first * 4);
  if (compactSlots == 0) return false;
  memory.fill(compactSlots, 0, <usize>first * 4);
  const chunk = allocate(<u64>CHUNK_RECORDS * recordStride);
  if (chunk == 0) return false;
  store<u32>(CHUNKS, chunk);
  resetLayeredTable();
  return true;
}

/**
 * Grows the compact slots to `newCount` and rehashes every record into them
 * (polling the host's stop flag as `growSlots` does). Returns FAIL_NONE,
 * FAIL_MEMORY (nothing changed) or FAIL_STOPPED.
 */
function growCompactSlots(newCount: u32): i32 {
  const fresh = allocate(<u64>newCount * 4);
  if (fresh == 0) return FAIL_MEMORY;
  memory.fill(fresh, 0, <usize>newCount * 4);
  // records in groups of GROW_BATCH: hash each and read its home slot (independent
  // loads, whose cache misses overlap), then place them in record order as before
  let sink: u32 = 0;
  for (let first: u32 = 1; first <= recordCount; first += GROW_BATCH) {
    const last = min(recordCount, first + GROW_BATCH - 1);
    // once per GROW_POLL_RECORDS records, as growSlots
    if ((first - 1) % GROW_POLL_RECORDS == GROW_POLL_RECORDS - GROW_BATCH) {
      const reason = pollStop();
      if (reason != 0) {
        insertStopReason = reason;
        release(fresh, <u64>newCount * 4);
        return FAIL_STOPPED;
      }
    }
    for (let i = first; i <= last; i++) {
      const hash = hashCompact(recordKey(recordAt(i)));
      store<u32>(GROW_HASHES + (<usize>(i - first) << 2), hash);
      sink ^= load<u32>(fresh + (<usize>compactHome(hash, newCount) << 2));
    }
    for (let i = first; i <= last; i++) {
      const hash = load<u32>(GROW_HASHES + (<usize>(i - first) << 2));
      let h = compactHome(hash, newCount);
      while (load<u32>(fresh + (<usize>h << 2)) != 0) {
        h++;
        if (h == newCount) h = 0;
      }
      store<u32>(fresh + (<usize>h << 2), (hash << COMPACT_INDEX_BITS) | i);
    }
  }
  growSink ^= sink;
  release(compactSlots, <u64>compactSlotCount * 4);
  compactSlots = fresh;
  compactSlotCount = newCount;
  return FAIL_NONE;
}

/**
 * Slots to grow the compact table to from `count` (`count` itself: do not
 * grow, fill the slots up to TIGHT_LOAD instead). Doubling, unless the
 * memory left cannot fill twice the slots: then the count at which the
 * records that still fit (each costing its record and about 4 bytes of open
 * stacks) end at COMPACT_TIGHT of the slots, so that under a memory cap the
 * slots take what the records need and no more; never more than the largest
 * block the arena can hand out (else the growth would fail, and the table
 * would stop at the slots it has with memory to spare).
 */
function compactSlotTarget(count: u32): u32 {
  const free = <f64>arenaBytesFree();
  const perRecord = <f64>recordStride + 4;
  const tight = <f64>COMPACT_TIGHT_N / <f64>COMPACT_TIGHT_D;
  // the old slots are released after the growth, so their bytes count as free
  const ideal = (<f64>recordCount + (free + <f64>count * 4) / perRecord) / (tight + 4 / perRecord);
  // and no more than one block the arena can hand out now (the old slots are still held while they are rehashed)
  let target = min(min(<f64>count * 2, ideal), <f64>(arenaLargestBlock() >> 2));
  if (target > 4294967295) target = 4294967295;
  // a growth by less than 1/16 is not worth its rehash
  return target < <f64>count * 1.0625 ? count : <u32>target;
}

/** `findOrInsert` of the compact layout: the same contract, over 17- or 18-byte keys and u32 slots. */
function findOrInsertCompact(key: usize, hash: u32, parent: u32, move: u32): u32 {
  const count = compactSlotCount;
  const tag = hash << COMPACT_INDEX_BITS;
  let h = compactHome(hash, count);
  while (true) {
    const slot = load<u32>(compactSlots + (<usize>h << 2));
    if (slot == 0) break;
    if ((slot & ~COMPACT_INDEX_MASK) == tag) {
      const idx = slot & COMPACT_INDEX_MASK;
      if (compactKeysEqual(recordAt(idx) + REC_KEY, key)) {
        lastInsertWasNew = false;
        return idx;
      }
    }
    h++;
    if (h == count) h = 0;
  }
  let index: u32;
  if (layeredTable) {
    index = claimLayered(key);
    if (index == 0) return 0;
    // a purge made room: the slots moved, so find the free slot again (the key is not in them)
    if (purgedInClaim) {
      h = compactHome(hash, count);
      while (load<u32>(compactSlots + (<usize>h << 2)) != 0) {
        h++;
        if (h == count) h = 0;
      }
    }
  } else {
    index = claimRecord(<u64>CHUNK_RECORDS * recordStride);
    if (index == 0) return 0;
  }
  const rec = recordAt(index);
  store<u32>(rec + REC_PARENT, parent);
  setRecordMove(rec, move);
  const dst = rec + REC_KEY;
  store<u64>(dst, load<u64>(key));
  store<u64>(dst, load<u64>(key, 8), 8);
  store<u32>(dst + compactTail, load<u32>(key + compactTail));
  store<u32>(compactSlots + (<usize>h << 2), tag | index);
  lastInsertWasNew = true;
  if (layeredTable) return layeredAfterInsert(index);
  if (!slotsAtMemoryLimit && <u64>recordCount * MAX_LOAD_D > <u64>count * MAX_LOAD_N) {
    const target = compactSlotTarget(count);
    const failure = target > count ? growCompactSlots(target) : FAIL_MEMORY;
    if (failure == FAIL_MEMORY) {
      slotsAtMemoryLimit = true;
    } else if (failure != FAIL_NONE) {
      insertFailure = failure;
      return 0;
    }
  }
  if (slotsAtMemoryLimit && <u64>recordCount * COMPACT_TIGHT_D >= <u64>compactSlotCount * COMPACT_TIGHT_N) {
    insertFailure = FAIL_MEMORY;
    return 0;
  }
  return index;
}

/** Bytes of the current hash slots (8 per slot, 4 in the compact layout), for the statistics. */
export function slotBytes(): f64 {
  return compactLayout ? <f64>compactSlotCount * 4 : (<f64>slotMask + 1) * 8;
}

// ---------------------------------------------------------------------------
// The layered pass's table (layers.ts, search.ts `layeredLoop`)
//
// Each record index belongs to one layer: a layer takes its indices from
// chunks of its own (`claimLayered`), so the indices of one layer increase
// (its open stack's delta coding needs that) and a chunk holds one layer's
// records. Once the pass has moved past a layer (`closeLayersBelow`), no
// lookup can meet its positions again, and a purge (`purgeClosedLayers`)
// drops their slots and turns each of their chunks into an 8-byte-a-record
// block of parents and moves (bit 0 of the chunk's word, `recordAt`), whose
// key bytes go to a free list of chunk blocks that later chunks reuse. The
// positions count (`recordCount`) is every position ever stored.

/** The current solve runs the layered pass (set by search.ts before `resetTable`). */
export let layeredTable: bool = false;
/** Layers below this one are closed (their positions can never be met again). */
export let openLayerLow: i32 = 0;
/** The layer of the record the last new insert stored. */
export let insertLayer: i32 = 0;
/** A `claimLayered` purged the slots, so the free slot its caller found has moved. */
let purgedInClaim: bool = false;
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
let chunksUsed: u32 = 0;
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

/** Empties the layered state (from `resetCompactTable`). */
function resetLayeredTable(): void {
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
  addOpenSlab(block, <u32>(<u64>CHUNK_RECORDS * recordStride));
  return true;
}

/** A chunk block: a freed one, else from the arena; 0 when the memory ran out. */
function takeChunkBlock(): usize {
  const free = freeChunks;
  if (free != 0) {
    freeChunks = <usize>load<u32>(free);
    return free;
  }
  return allocate(<u64>CHUNK_RECORDS * recordStride);
}

/**
 * Claims a record index for the new key at `key` in its layer (`insertLayer`
 * is set to it): the next offset of the layer's chunk, or a fresh chunk.
 * When no chunk can be had, purges the closed layers (if any are held) and
 * tries once more. Returns 0 with `insertFailure` set as `claimRecord` does.
 */
function claimLayered(key: usize): u32 {
  purgedInClaim = false;
  const layer = layerOfKey(key);
  insertLayer = layer;
  if (recordCount + 1 > recordLimit) {
    insertFailure = FAIL_STATES;
    return 0;
  }
  const at = <usize>layer << 2;
  let fill = load<u32>(LAYER_FILL + at);
  let chunkNo = load<u32>(LAYER_CHUNK + at);
  if (fill >= CHUNK_RECORDS) {
    if (chunksUsed >= <u32>MAX_CHUNKS) {
      insertFailure = FAIL_STATES;
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
        insertFailure = FAIL_MEMORY;
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
  recordCount++;
  countInLayer(layer);
  return (chunkNo << CHUNK_SHIFT) | fill;
}

/** True when record `index`'s layer is closed. */
// @ts-ignore: decorator
@inline function recordClosed(index: u32): bool {
  return <i32>load<u16>(CHUNK_LAYER + ((<usize>index >> CHUNK_SHIFT) << 1)) < openLayerLow;
}

/**
 * The layered half of `findOrInsertCompact` after a new record `index` took
 * its slot: counts it, grows the slots past 5/8 of live records (after a
 * purge when closed records are a quarter of them), and under the memory
 * cap fills them to 15/16. Returns `index`, or 0 with `insertFailure` set.
 */
function layeredAfterInsert(index: u32): u32 {
  keysHeld++;
  if (keysHeld > keysHeldPeak) keysHeldPeak = keysHeld;
  const at = LAYER_HELD + (<usize>insertLayer << 2);
  store<u32>(at, load<u32>(at) + 1);
  if (<u64>keysHeld * MAX_LOAD_D > <u64>compactSlotCount * MAX_LOAD_N) {
    if (keysClosed * 4 >= keysHeld) purgeClosedLayers();
    if (!slotsAtMemoryLimit && <u64>keysHeld * MAX_LOAD_D > <u64>compactSlotCount * MAX_LOAD_N) {
      const count = compactSlotCount;
      let target = <f64>count * 2;
      const most = <f64>(arenaLargestBlock() >> 2);
      if (target > most) target = most;
      if (target > 4294967295) target = 4294967295;
      const failure = target < <f64>count * 1.0625 ? FAIL_MEMORY : growLayeredSlots(<u32>target);
      if (failure == FAIL_MEMORY) {
        slotsAtMemoryLimit = true;
      } else if (failure != FAIL_NONE) {
        insertFailure = failure;
        return 0;
      }
    }
  }
  if (slotsAtMemoryLimit && <u64>keysHeld * COMPACT_TIGHT_D >= <u64>compactSlotCount * COMPACT_TIGHT_N) {
    if (keysClosed > 0) purgeClosedLayers();
    if (<u64>keysHeld * COMPACT_TIGHT_D >= <u64>compactSlotCount * COMPACT_TIGHT_N) {
      insertFailure = FAIL_MEMORY;
      return 0;
    }
  }
  return index;
}

/**
 * `growCompactSlots` of the layered table: the records to rehash are those
 * in the old slots (not 1..recordCount, whose closed ones have no key any
 * more). Returns FAIL_NONE, FAIL_MEMORY (nothing changed) or FAIL_STOPPED.
 */
function growLayeredSlots(newCount: u32): i32 {
  const fresh = allocate(<u64>newCount * 4);
  if (fresh == 0) return FAIL_MEMORY;
  memory.fill(fresh, 0, <usize>newCount * 4);
  const oldCount = compactSlotCount;
  for (let s: u32 = 0; s < oldCount; s++) {
    if ((s & (GROW_POLL_RECORDS - 1)) == GROW_POLL_RECORDS - 1) {
      const reason = pollStop();
      if (reason != 0) {
        insertStopReason = reason;
        release(fresh, <u64>newCount * 4);
        return FAIL_STOPPED;
      }
    }
    const slot = load<u32>(compactSlots + (<usize>s << 2));
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
  release(compactSlots, <u64>oldCount * 4);
  compactSlots = fresh;
  compactSlotCount = newCount;
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
      pmLeft = <u32>(<u64>CHUNK_RECORDS * recordStride) & ~15;
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
  const count = compactSlotCount;
  let start: u32 = 0;
  while (start < count && load<u32>(compactSlots + (<usize>start << 2)) != 0) start++;
  if (start == count) unreachable();
  let hole = false;
  let s = start;
  for (let n: u32 = 0; n < count; n++) {
    s++;
    if (s == count) s = 0;
    const at = compactSlots + (<usize>s << 2);
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
    while (load<u32>(compactSlots + (<usize>h << 2)) != 0) {
      h++;
      if (h == count) h = 0;
    }
    store<u32>(compactSlots + (<usize>h << 2), slot);
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
    for (let r: u32 = 0; r < used; r++) store<u64>(dst + (<usize>r << 3), load<u64>(word + <usize>r * recordStride));
    store<u32>(wordAt, <u32>(dst | 1));
    if (pm != 0) {
      store<u32>(word, <u32>freeChunks);
      freeChunks = word;
    }
  }
}

// ---------------------------------------------------------------------------
// The keys of one layer, for the streamed layered certificate
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
 * canonical 48-byte keys (position.ts's encoding, KEY_BYTES each, a compact
 * key decoded and re-encoded as `copyKeys` does), and returns how many; 0
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
      canonicalKeyOfCompact(recordKey(recordAt((c << CHUNK_SHIFT) | exportOffset)), dst + <usize>n * KEY_BYTES);
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

/** True when `index` names a stored record of this solve (in the layered table: an index of a chunk handed out; elsewhere 1..recordCount). */
export function isRecordIndex(index: u32): bool {
  if (index == 0) return false;
  if (layeredTable) return (index >> CHUNK_SHIFT) < chunksUsed;
  return index <= recordCount;
}
