/**
 * The open lists: one bucket queue per scan over the same items, each
 * ordered by its scan's score (heuristic.ts; lower = more promising, LIFO
 * within a bucket), taking turns.
 *
 * Scans (after fc-solve's soft threads sharing one state collection,
 * docs/search.md §1): a single greedy score has a heavy tail (a deal it
 * misjudges can take millions of positions while another score solves it in
 * thousands); several scores taking turns cut that tail at a small multiple
 * of the cost of the best one. Every item is queued in every scan's list
 * (SCANS = 4 at most; presets.ts sets how many a game kind runs) and taken
 * once, by whichever scan reaches it first (its DONE bit); the other scans
 * skip it when they meet it.
 *
 * The items: in the lazy phase pending moves (pending.ts), linked through
 * their bucket links (ENT_NEXT); in the eager phase stored records
 * (table.ts), on stacks of record indices (open-stack.ts) with the taken
 * bits below. In the layered pass the layers order the records instead
 * (layers.ts). Both kinds of item keep their move word, with its DONE bit,
 * at ITEM_MOVE.
 */
import { allocate } from './arena';
import { DONE } from './move';
import { ENT_NEXT, ENT_MOVE, entryAt, entryParent } from './pending';
import { REC_MOVE, recordAt } from './records';
import { layeredTable, insertLayer, reclaimForOpenStacks } from './layered-table';
import { resetOpenStacks, stackPush, stackPop } from './open-stack';
import { pushLayer } from './layers';
import { SCANS, preludeScan, preludeItems, scanStep, scanStick } from './presets';
import { NUM_BUCKETS, SCORES, scores } from './heuristic';
import { Search, REASON_MEMORY } from './search-state';

/** Offset of the move word in an item: the same in a record (REC_MOVE) and a pending move (ENT_MOVE). */
const ITEM_MOVE: usize = REC_MOVE;

/** Bucket heads of the open lists, NUM_BUCKETS per scan (item index, 0 = empty). */
const BUCKETS: usize = memory.data(SCANS * NUM_BUCKETS * 4);

/** Per scan: no bucket below this one holds an item (NUM_BUCKETS: the list is empty). */
const MIN_BUCKET: usize = memory.data(SCANS * 4);

/** Address of open-list item `index`: a pending move in the lazy phase, else a record. */
// @ts-ignore: decorator
@inline function itemAt(index: u32): usize {
  return Search.lazyPhase ? entryAt(index) : recordAt(index);
}

/**
 * Highest bucket any scan has queued an item in since the open lists were
 * last cleared (`clearOpenLists`); buckets above it are still all zero.
 * Starts at the top, so that the first clear is a full one.
 */
let bucketHigh: i32 = NUM_BUCKETS - 1;

/**
 * Empties every scan's open list: zeroes the bucket heads up to `bucketHigh`
 * (the rest are zero already), a few KiB instead of SCANS * NUM_BUCKETS * 4
 * = 64 KiB per solve.
 */
export function clearOpenLists(): void {
  const bytes = <usize>(bucketHigh + 1) << 2;
  for (let scan = 0; scan < SCANS; scan++) {
    memory.fill(BUCKETS + (<usize>(scan * NUM_BUCKETS) << 2), 0, bytes);
    store<i32>(MIN_BUCKET + (<usize>scan << 2), NUM_BUCKETS);
  }
  bucketHigh = 0;
  resetOpenStacks();
  resetTaken();
}

// ---------------------------------------------------------------------------
// Taken bits

/**
 * The eager phase's taken bits: bit i set when a scan has taken record i
 * (`popOpen`). A record is queued in every scan's list and taken by one; the
 * other scans meet it later and skip it. With the lists as stacks of record
 * indices (open-stack.ts) that skip reads one bit here instead of the record
 * itself, a random read of the state table (where a long eager search,
 * such as an unsolvable Seahaven Towers deal, would spend most of `popOpen`'s
 * time). The bits are kept in chunks of 2^TAKEN_SHIFT records taken from the
 * arena when a record of the chunk is first taken; the record's DONE bit is
 * set too, and read when no chunk could be had (then a skip reads the
 * record).
 */
const TAKEN_SHIFT: u32 = 18;
const TAKEN_CHUNK_BYTES: u32 = (<u32>1 << TAKEN_SHIFT) >> 3;
const MAX_TAKEN_CHUNKS: u32 = 16384;
const TAKEN_CHUNKS: usize = memory.data(<i32>MAX_TAKEN_CHUNKS * 4);

/** Chunk numbers below this may be set in TAKEN_CHUNKS (the rest are 0). */
let takenChunksUsed: u32 = 0;

/** Forgets every taken bit (after an arena reset, or with the open lists cleared). */
function resetTaken(): void {
  memory.fill(TAKEN_CHUNKS, 0, <usize>takenChunksUsed << 2);
  takenChunksUsed = 0;
}

/** Whether record `index` has its taken bit (`markTaken`); false also when its chunk is missing. */
// @ts-ignore: decorator
@inline function isTaken(index: u32): bool {
  const chunkNo = index >> TAKEN_SHIFT;
  if (chunkNo >= takenChunksUsed) return false;
  const chunk = <usize>load<u32>(TAKEN_CHUNKS + (<usize>chunkNo << 2));
  if (chunk == 0) return false;
  const bit = index & ((<u32>1 << TAKEN_SHIFT) - 1);
  return ((<u32>load<u8>(chunk + <usize>(bit >> 3)) >> (bit & 7)) & 1) != 0;
}

/** Sets the taken bit of record `index`, taking its chunk from the arena (zeroed) when it is the chunk's first; does nothing when the arena has no room. */
function markTaken(index: u32): void {
  const chunkNo = index >> TAKEN_SHIFT;
  if (chunkNo >= MAX_TAKEN_CHUNKS) return;
  const at = TAKEN_CHUNKS + (<usize>chunkNo << 2);
  let chunk = chunkNo < takenChunksUsed ? <usize>load<u32>(at) : 0;
  if (chunk == 0) {
    chunk = allocate(<u64>TAKEN_CHUNK_BYTES);
    if (chunk == 0) return;
    memory.fill(chunk, 0, <usize>TAKEN_CHUNK_BYTES);
    if (chunkNo >= takenChunksUsed) {
      // chunks between the old count and this one are 0 already (resetTaken zeroed them)
      takenChunksUsed = chunkNo + 1;
    }
    store<u32>(at, <u32>chunk);
  }
  const bit = index & ((<u32>1 << TAKEN_SHIFT) - 1);
  const byte = chunk + <usize>(bit >> 3);
  store<u8>(byte, <u8>(<u32>load<u8>(byte) | (<u32>1 << (bit & 7))));
}

// ---------------------------------------------------------------------------
// Queueing and taking

/** Links pending move `index` (at `rec`) into bucket `bucket` of scan `scan`'s open list (the lazy phase; the eager phase's buckets are stacks, `pushStacked`). */
// @ts-ignore: decorator
@inline function pushBucket(rec: usize, index: u32, scan: i32, bucket: i32): void {
  const head = BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2);
  store<u32>(rec + ENT_NEXT + (<usize>scan << 2), load<u32>(head));
  store<u32>(head, index);
}

/**
 * `pushBucket` of the eager phase (records have no links): the bucket is a
 * stack of record indices (open-stack.ts),
 * so that a scan can skip a record another scan took by its taken bit
 * (`isTaken`) without reading the record. When the
 * stack finds no memory the search stops for memory (the record is stored
 * but not queued, so the search may not end complete).
 */
function pushStacked(index: u32, scan: i32, bucket: i32): void {
  if (!stackPush(BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2), index)) Search.stopReason = REASON_MEMORY;
}

/** Queues a measured item (a record, or in the lazy phase a pending move) in every scan's open list. */
// @ts-ignore: decorator
@inline export function pushOpen(index: u32, depth: i32): void {
  if (layeredTable) {
    // the layered pass: the record's layer (layered-table.ts set `insertLayer` when it stored it)
    if (!pushLayer(index, insertLayer) && !(reclaimForOpenStacks() && pushLayer(index, insertLayer))) Search.stopReason = REASON_MEMORY;
    return;
  }
  const rec = itemAt(index);
  scores(depth);
  const s = v128.load(SCORES);
  const b0 = i32x4.extract_lane(s, 0);
  const b1 = i32x4.extract_lane(s, 1);
  const b2 = i32x4.extract_lane(s, 2);
  const b3 = i32x4.extract_lane(s, 3);
  // the highest of the four lanes (a lane past activeScans is a score too, so this bounds the used ones)
  const top = max(max(b0, b1), max(b2, b3));
  if (top > bucketHigh) bucketHigh = top;
  // every scan's lowest bucket at once (a lane past activeScans is never read: clearOpenLists resets all four)
  v128.store(MIN_BUCKET, i32x4.min_s(v128.load(MIN_BUCKET), s));
  if (!Search.lazyPhase) {
    pushStacked(index, 0, b0);
    if (Search.activeScans > 1) pushStacked(index, 1, b1);
    if (Search.activeScans > 2) pushStacked(index, 2, b2);
    if (Search.activeScans > 3) pushStacked(index, 3, b3);
    return;
  }
  pushBucket(rec, index, 0, b0);
  if (Search.activeScans > 1) pushBucket(rec, index, 1, b1);
  if (Search.activeScans > 2) pushBucket(rec, index, 2, b2);
  if (Search.activeScans > 3) pushBucket(rec, index, 3, b3);
}

/**
 * The parent record of the best pending move of one scan's list that no scan
 * has taken yet, without taking it (0 when the list is empty); lazy phase
 * only. Unlinks the taken items it passes, as `popOpen` would.
 */
function bestParent(scan: i32): u32 {
  const minAt = MIN_BUCKET + (<usize>scan << 2);
  let bucket = load<i32>(minAt);
  while (bucket < NUM_BUCKETS) {
    const head = BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2);
    const index = load<u32>(head);
    if (index == 0) {
      bucket++;
      continue;
    }
    const ent = entryAt(index);
    if (load<u32>(ent + ENT_MOVE) & DONE) {
      store<u32>(head, load<u32>(ent + ENT_NEXT + (<usize>scan << 2)));
      continue;
    }
    store<i32>(minAt, bucket);
    return entryParent(ent);
  }
  store<i32>(minAt, NUM_BUCKETS);
  return 0;
}

/** Takes the best item of one scan's list that no scan has taken yet (and marks it DONE); 0 when the list is empty. */
function popOpen(scan: i32): u32 {
  const minAt = MIN_BUCKET + (<usize>scan << 2);
  let bucket = load<i32>(minAt);
  while (bucket < NUM_BUCKETS) {
    const head = BUCKETS + (<usize>(scan * NUM_BUCKETS + bucket) << 2);
    const stacked = !Search.lazyPhase;
    const index = stacked ? stackPop(head) : load<u32>(head);
    if (index == 0) {
      bucket++;
      continue;
    }
    // a record another scan took: skipped by its bit, without reading the record
    if (stacked && isTaken(index)) continue;
    const rec = itemAt(index);
    if (!stacked) store<u32>(head, load<u32>(rec + ENT_NEXT + (<usize>scan << 2)));
    const move = load<u32>(rec + ITEM_MOVE);
    if (move & DONE) continue;
    store<u32>(rec + ITEM_MOVE, move | DONE);
    if (stacked) markTaken(index);
    store<i32>(minAt, bucket);
    return index;
  }
  store<i32>(minAt, NUM_BUCKETS);
  return 0;
}

// ---------------------------------------------------------------------------
// Turns

/** The scan whose turn it is after the prelude, and the items it took in a row. */
let turnScan: i32 = 0;
let turnItems: u32 = 0;

/** Starts the turns of a new solve with scan 0. */
export function resetTurns(): void {
  turnScan = 0;
  turnItems = 0;
}

/**
 * Takes the next item of the scan whose turn it is (the next one when that
 * list is dry); 0 when every list is empty. The first presets.ts
 * `preludeItems` items of a solve are scan `preludeScan`'s alone; then the
 * scans take `scanStep` items a turn, and in the lazy phase a scan keeps its
 * turn for up to `scanStick` items while its best pending move is one of the
 * position `held` (a dive: no parent to rebuild from its key).
 */
// @ts-ignore: decorator
@inline export function popNext(held: u32): u32 {
  let turn: i32;
  if (Search.polls < preludeItems) {
    turn = preludeScan;
  } else {
    if (turnItems >= scanStep) {
      const keep = Search.lazyPhase && turnItems < scanStick && bestParent(turnScan) == held;
      if (!keep) {
        turnScan = turnScan + 1 >= Search.activeScans ? 0 : turnScan + 1;
        turnItems = 0;
      }
    }
    turnItems++;
    turn = turnScan;
  }
  for (let k = 0; k < Search.activeScans; k++) {
    let scan = turn + k;
    if (scan >= Search.activeScans) scan -= Search.activeScans;
    const index = popOpen(scan);
    if (index != 0) return index;
  }
  return 0;
}
