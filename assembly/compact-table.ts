/**
 * The state table of the compact layout (castle-key.ts, the no-cell Castle
 * games): the same contract as table.ts's 48-byte key layout, over 17- or
 * 18-byte keys and u32 slots.
 *
 * A slot holds the record index in the low COMPACT_INDEX_BITS bits and the
 * low 4 bits of the key's hash above them (a probe visits a record only when
 * those agree, so 15 of 16 foreign slots cost no visit; the full key is
 * compared then, never the hash alone). The home slot is the hash scaled to
 * the slot count (records.ts `compactHome`), so the count need not be a
 * power of two: when doubling finds no memory, the slots grow by what the
 * memory left can fill (`compactSlotTarget`), and the slot block ends close
 * to the size the records that fit need. The layered pass keeps its records
 * per layer (layered-table.ts).
 */
import { allocate, release, arenaBytesFree, arenaLargestBlock } from './arena';
import { pollStop } from './host';
import { compactKeyBytes, compactTail, compactKeysEqual, hashCompact, forgetCompactBase } from './castle-key';
import {
  StateTable, REC_PARENT, REC_KEY, CHUNK_RECORDS, CHUNKS, recordAt, recordKey, setRecordMove, claimRecord,
  FAIL_NONE, FAIL_MEMORY, FAIL_STOPPED, INITIAL_SLOTS, MAX_LOAD_N, MAX_LOAD_D, GROW_POLL_RECORDS,
  COMPACT_TIGHT_N, COMPACT_TIGHT_D, COMPACT_INDEX_BITS, COMPACT_INDEX_MASK, compactHome,
} from './records';
import { layeredTable, purgedInClaim, resetLayeredTable, claimLayered, layeredAfterInsert } from './layered-table';

/** First slot count of a compact table that may outgrow INITIAL_SLOTS (4 of its growths' worth: 2^18 slots, 1 MiB). */
const COMPACT_INITIAL_SLOTS: u32 = 1 << 18;

/** Records `growCompactSlots` hashes before it places them (a divisor of GROW_POLL_RECORDS). */
const GROW_BATCH: u32 = 16;
const GROW_HASHES: usize = memory.data(GROW_BATCH * 4);

/** Where the hint loads of `growCompactSlots` go, so that the optimizer keeps them; never read for anything. */
let growSink: u32 = 0;

/** table.ts `resetTable` of the compact layout. */
export function resetCompactTable(maxRecords: u32): bool {
  forgetCompactBase();
  StateTable.recordStride = REC_KEY + <usize>compactKeyBytes;
  StateTable.recordLimit = maxRecords < COMPACT_INDEX_MASK ? maxRecords : COMPACT_INDEX_MASK;
  StateTable.insertFailure = FAIL_NONE;
  StateTable.insertStopReason = 0;
  StateTable.slotsAtMemoryLimit = false;
  StateTable.recordCount = 0;
  // a Castle solve that may store more than INITIAL_SLOTS' 5/8 starts at
  // COMPACT_INITIAL_SLOTS (1 MiB), saving the rehashes of the first two growths
  const first = <u64>StateTable.recordLimit * MAX_LOAD_D > <u64>INITIAL_SLOTS * MAX_LOAD_N ? COMPACT_INITIAL_SLOTS : INITIAL_SLOTS;
  StateTable.compactSlotCount = first;
  StateTable.compactSlots = allocate(<u64>first * 4);
  if (StateTable.compactSlots == 0) return false;
  memory.fill(StateTable.compactSlots, 0, <usize>first * 4);
  const chunk = allocate(<u64>CHUNK_RECORDS * StateTable.recordStride);
  if (chunk == 0) return false;
  store<u32>(CHUNKS, chunk);
  resetLayeredTable();
  return true;
}

/**
 * Grows the compact slots to `newCount` and rehashes every record into them
 * (polling the host's stop flag as table.ts `growSlots` does). Returns FAIL_NONE,
 * FAIL_MEMORY (nothing changed) or FAIL_STOPPED.
 */
function growCompactSlots(newCount: u32): i32 {
  const fresh = allocate(<u64>newCount * 4);
  if (fresh == 0) return FAIL_MEMORY;
  memory.fill(fresh, 0, <usize>newCount * 4);
  // records in groups of GROW_BATCH: hash each and read its home slot (independent
  // loads, whose cache misses overlap), then place them in record order as before
  let sink: u32 = 0;
  for (let first: u32 = 1; first <= StateTable.recordCount; first += GROW_BATCH) {
    const last = min(StateTable.recordCount, first + GROW_BATCH - 1);
    // once per GROW_POLL_RECORDS records, as growSlots
    if ((first - 1) % GROW_POLL_RECORDS == GROW_POLL_RECORDS - GROW_BATCH) {
      const reason = pollStop();
      if (reason != 0) {
        StateTable.insertStopReason = reason;
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
  release(StateTable.compactSlots, <u64>StateTable.compactSlotCount * 4);
  StateTable.compactSlots = fresh;
  StateTable.compactSlotCount = newCount;
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
  const perRecord = <f64>StateTable.recordStride + 4;
  const tight = <f64>COMPACT_TIGHT_N / <f64>COMPACT_TIGHT_D;
  // the old slots are released after the growth, so their bytes count as free
  const ideal = (<f64>StateTable.recordCount + (free + <f64>count * 4) / perRecord) / (tight + 4 / perRecord);
  // and no more than one block the arena can hand out now (the old slots are still held while they are rehashed)
  let target = min(min(<f64>count * 2, ideal), <f64>(arenaLargestBlock() >> 2));
  if (target > 4294967295) target = 4294967295;
  // a growth by less than 1/16 is not worth its rehash
  return target < <f64>count * 1.0625 ? count : <u32>target;
}

/** table.ts `findOrInsert` of the compact layout: the same contract, over 17- or 18-byte keys and u32 slots. */
export function findOrInsertCompact(key: usize, hash: u32, parent: u32, move: u32): u32 {
  const count = StateTable.compactSlotCount;
  const tag = hash << COMPACT_INDEX_BITS;
  let h = compactHome(hash, count);
  while (true) {
    const slot = load<u32>(StateTable.compactSlots + (<usize>h << 2));
    if (slot == 0) break;
    if ((slot & ~COMPACT_INDEX_MASK) == tag) {
      const idx = slot & COMPACT_INDEX_MASK;
      if (compactKeysEqual(recordAt(idx) + REC_KEY, key)) {
        StateTable.lastInsertWasNew = false;
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
      while (load<u32>(StateTable.compactSlots + (<usize>h << 2)) != 0) {
        h++;
        if (h == count) h = 0;
      }
    }
  } else {
    index = claimRecord(<u64>CHUNK_RECORDS * StateTable.recordStride);
    if (index == 0) return 0;
  }
  const rec = recordAt(index);
  store<u32>(rec + REC_PARENT, parent);
  setRecordMove(rec, move);
  const dst = rec + REC_KEY;
  store<u64>(dst, load<u64>(key));
  store<u64>(dst, load<u64>(key, 8), 8);
  store<u32>(dst + compactTail, load<u32>(key + compactTail));
  store<u32>(StateTable.compactSlots + (<usize>h << 2), tag | index);
  StateTable.lastInsertWasNew = true;
  if (layeredTable) return layeredAfterInsert(index);
  if (!StateTable.slotsAtMemoryLimit && <u64>StateTable.recordCount * MAX_LOAD_D > <u64>count * MAX_LOAD_N) {
    const target = compactSlotTarget(count);
    const failure = target > count ? growCompactSlots(target) : FAIL_MEMORY;
    if (failure == FAIL_MEMORY) {
      StateTable.slotsAtMemoryLimit = true;
    } else if (failure != FAIL_NONE) {
      StateTable.insertFailure = failure;
      return 0;
    }
  }
  if (StateTable.slotsAtMemoryLimit && <u64>StateTable.recordCount * COMPACT_TIGHT_D >= <u64>StateTable.compactSlotCount * COMPACT_TIGHT_N) {
    StateTable.insertFailure = FAIL_MEMORY;
    return 0;
  }
  return index;
}
