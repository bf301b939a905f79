/**
 * The records of the state table (table.ts): one per stored position, in
 * chunks that never move, and the state the table's modules share.
 *
 * Records live in chunks of CHUNK_RECORDS, so the record store grows
 * without moving (record indices stay valid). `claimRecord` hands out the
 * next index; the layered pass hands out indices per layer instead
 * (layered-table.ts). Use the accessors below rather than raw offsets.
 */
import { allocate } from './arena';
import { KEY_BYTES, WIDE_KEY_BYTES } from './key';

// ---------------------------------------------------------------------------
// The record
//
// One record per stored position, in both layouts (the compact layout of the
// no-cell Castle games only has a shorter key, castle-key.ts):
//
//   0         4         8                                          8 + key
//   ┌─────────┬─────────┬──────────────────────────────────────────┐
//   │ parent  │  move   │ key                                      │
//   │  u32    │  u32    │ KEY_BYTES (48): key.ts's canonical key;  │
//   │         │         │ compactKeyBytes (17 to 19) in the        │
//   │         │         │ compact layout                           │
//   └─────────┴─────────┴──────────────────────────────────────────┘
//   REC_PARENT REC_MOVE  REC_KEY
//
// parent: the index of the record it was first reached from (0 for the
// start position); move: the move word from that parent (move.ts: packed
// move, depth, AUTO_FOLLOWED, DONE). RECORD_BYTES = 56 in the full key's
// layout (64 with the wide keys of more than 11 columns, WIDE_RECORD_BYTES);
// 25 or 26 in the compact one (`StateTable.recordStride`). Every key starts
// 8 bytes into its record, so at a stride of 56 or 64 it is 8-byte aligned
// for the u64 loads of key.ts `keysEqual` (Wasm's v128 loads and stores of
// the key take any address). The open lists keep no links in a record:
// they are stacks of record indices (open-stack.ts).

export const REC_PARENT: usize = 0;
export const REC_MOVE: usize = 4;
export const REC_KEY: usize = 8;
export const RECORD_BYTES: i32 = <i32>REC_KEY + KEY_BYTES;
export const WIDE_RECORD_BYTES: i32 = <i32>REC_KEY + WIDE_KEY_BYTES;

/*
 * The full key's layout has two widths (key.ts `wideKeys`). Its hot paths
 * (table.ts `findOrInsertFull`, `fullRecordAt`) are generic over a width
 * type, Key48 or Key56, whose size (`offsetof<K>()`) is the key's bytes: a
 * constant in each instance, so the 48-byte search keeps its constant
 * stride and six-word compare, and the choice costs one test per lookup.
 */
/** Width type of a KEY_BYTES key (six words; only its size is used). */
@unmanaged export class Key48 {
  w0: u64; w1: u64; w2: u64; w3: u64; w4: u64; w5: u64;
}
/** Width type of a WIDE_KEY_BYTES key (seven words; only its size is used). */
@unmanaged export class Key56 {
  w0: u64; w1: u64; w2: u64; w3: u64; w4: u64; w5: u64; w6: u64;
}

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

// ---------------------------------------------------------------------------
// Chunks

/**
 * Records per chunk: 2^12 (224 KiB with 56-byte records, 100 KiB with 25),
 * small enough that a chunk fits in the regions the arena gets back (old
 * hash slots, the lazy phase's pending moves), so those bytes hold records
 * under a memory cap; and the layered pass holds a partly used chunk per
 * open layer, which larger chunks would leave mostly empty.
 */
export const CHUNK_SHIFT: i32 = 12;
export const CHUNK_RECORDS: u32 = 1 << CHUNK_SHIFT;

/** Chunks of one table: 2^28 records, the compact slots' 28-bit index. */
export const MAX_CHUNKS: i32 = 65536;
export const CHUNKS: usize = memory.data(MAX_CHUNKS * 4);

/** Address of record `index` (1-based). */
// @ts-ignore: decorator
@inline export function recordAt(index: u32): usize {
  // bit 0 of a chunk's word: the layered pass kept only its parents and moves (8 bytes a record: layered-table.ts `purgeClosedLayers`)
  const word = <usize>load<u32>(CHUNKS + ((<usize>index >> CHUNK_SHIFT) << 2));
  return (word & ~1) + ((<usize>(index & (CHUNK_RECORDS - 1))) * select<usize>(8, StateTable.recordStride, word & 1));
}

/** `recordAt` of the full key's layout of width K (Key48, Key56), with its constant stride (the FreeCell family's hot path). */
// @ts-ignore: decorator
@inline export function fullRecordAt<K>(index: u32): usize {
  return <usize>load<u32>(CHUNKS + ((<usize>index >> CHUNK_SHIFT) << 2)) + ((<usize>(index & (CHUNK_RECORDS - 1))) * (REC_KEY + offsetof<K>()));
}

// ---------------------------------------------------------------------------
// Inserts

export const FAIL_NONE: i32 = 0;
export const FAIL_STATES: i32 = 1;
export const FAIL_MEMORY: i32 = 2;

/** The host asked to stop while the slots were being rehashed; `StateTable.insertStopReason` holds its reason. */
export const FAIL_STOPPED: i32 = 3;

/**
 * The state the table's modules share (table.ts, compact-table.ts,
 * layered-table.ts), and the outcome of the last insert, which the search
 * reads: static fields only, never instantiated.
 */
export class StateTable {
  /** Number of records; record indices run 1..recordCount (in the layered pass, every position ever stored). */
  static recordCount: u32 = 0;
  /** Most records this solve may store (its state budget). */
  static recordLimit: u32 = 0;
  /** Bytes of a record in this solve's layout: RECORD_BYTES, WIDE_RECORD_BYTES, or REC_KEY + the compact key's bytes. */
  static recordStride: usize = <usize>RECORD_BYTES;
  /** Outcome of the last insert (FAIL_*). */
  static insertFailure: i32 = FAIL_NONE;
  /** With FAIL_STOPPED: the host's stop reason. */
  static insertStopReason: i32 = 0;
  /** True when the last `findOrInsert` stored a new record (false: the key was there already). */
  static lastInsertWasNew: bool = false;
  /** Growing the slots failed for memory: they fill up to the tight load instead. */
  static slotsAtMemoryLimit: bool = false;
  /** The compact layout's u32 slots (compact-table.ts) and their count. */
  static compactSlots: usize = 0;
  static compactSlotCount: u32 = 0;
}

/** Slots of a fresh table. */
export const INITIAL_SLOTS: u32 = 1 << 16;
/** The slots grow when the records pass this load (5/8) and memory allows. */
export const MAX_LOAD_N: u32 = 5;
export const MAX_LOAD_D: u32 = 8;

/**
 * When doubling the slots finds no memory, the table goes on in the slots it
 * has up to this fuller load (slower probes, but the records the memory can
 * still hold are used) before the search stops for memory.
 */
export const TIGHT_LOAD_N: u32 = 7;
export const TIGHT_LOAD_D: u32 = 8;

/** Slots moved between two polls of the host's stop flag while the slots grow (a power of two). */
export const GROW_POLL_RECORDS: u32 = 1 << 20;

/**
 * Claims the next record index for an insert: checks the record limit and,
 * at a chunk boundary, allocates the next chunk of `chunkBytes` (the
 * layout's records times its stride). Returns the new index (recordCount
 * is advanced), or 0 with `StateTable.insertFailure` set to FAIL_STATES (limit or
 * MAX_CHUNKS reached) or FAIL_MEMORY (no chunk could be allocated).
 */
// @ts-ignore: decorator
@inline export function claimRecord(chunkBytes: u64): u32 {
  if (StateTable.recordCount + 1 > StateTable.recordLimit) {
    StateTable.insertFailure = FAIL_STATES;
    return 0;
  }
  const index = StateTable.recordCount + 1;
  if ((index & (CHUNK_RECORDS - 1)) == 0) {
    const chunkNo = index >> CHUNK_SHIFT;
    if (chunkNo >= <u32>MAX_CHUNKS) {
      StateTable.insertFailure = FAIL_STATES;
      return 0;
    }
    const chunk = allocate(chunkBytes);
    if (chunk == 0) {
      StateTable.insertFailure = FAIL_MEMORY;
      return 0;
    }
    store<u32>(CHUNKS + (<usize>chunkNo << 2), chunk);
  }
  StateTable.recordCount = index;
  return index;
}

// ---------------------------------------------------------------------------
// The compact layout's slots (compact-table.ts documents them)

/**
 * The compact table's fuller load once the slots can grow no more: 15/16
 * rather than the 48-byte table's 7/8 (TIGHT_LOAD), so that under a memory
 * cap the records, not the slots, use up the memory (at 7/8 a full-memory
 * Castle search stopped with memory to spare; docs/engine.md, "The compact
 * layout of the no-cell Castle games"). Linear probing then costs some 80
 * slots (320 bytes, 5 cache lines) per new position, for the last
 * positions only; the 4-bit tags keep most of them off the records.
 */
export const COMPACT_TIGHT_N: u32 = 15;
export const COMPACT_TIGHT_D: u32 = 16;
/** A compact slot: the record index in its low COMPACT_INDEX_BITS bits, 4 bits of the key's hash above them. */
export const COMPACT_INDEX_BITS: u32 = 28;
export const COMPACT_INDEX_MASK: u32 = (1 << COMPACT_INDEX_BITS) - 1;

/** Home slot of `hash` among `count` slots. */
// @ts-ignore: decorator
@inline export function compactHome(hash: u32, count: u32): u32 {
  return <u32>((<u64>hash * <u64>count) >> 32);
}
