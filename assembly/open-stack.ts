/**
 * Open-list buckets as stacks of record indices, for the compact layout
 * (castle-key.ts), whose records carry no open-list links.
 *
 * Each bucket of each scan (search.ts's bucket queues) is a stack of record
 * indices held in 256-byte blocks; the bucket head (search.ts BUCKETS)
 * holds the address of the top block, 0 when the bucket is empty. A block is
 * [previous block u32][bytes used u32][its top index u32][244 bytes]. The
 * indices pushed on one stack increase, so an entry is stored as its
 * difference to the entry below it (the first of a stack: to 0), in 1..5
 * bytes of 7 bits; a pop reads the top entry's bytes back from the end and
 * subtracts. A block emptied by a pop goes to a free list and is reused by
 * the next push of any bucket, so the memory of the open lists is that of
 * the entries queued and not yet taken (on the hard Castle deals about 1.3
 * bytes each, 4 per scan and position queued) plus at most one partly used
 * block per bucket.
 *
 * The order is that of the linked buckets of the 72-byte layout (LIFO
 * within a bucket), so a solve expands the same positions in the same order
 * in either layout.
 */
import { allocate } from './arena';

/** Bytes of one block: a 12-byte header and BLOCK_DATA bytes of entries. */
const BLOCK_BYTES: u64 = 256;
const BLOCK_HEADER: usize = 12;
const BLOCK_DATA: u32 = <u32>BLOCK_BYTES - <u32>BLOCK_HEADER;
/** Most bytes of one entry (a 32-bit delta, 7 bits a byte). */
const ENTRY_MAX: u32 = 5;
/** Blocks a slab allocation takes from the arena at once (1 MiB). */
const SLAB_BLOCKS: u32 = 4096;
/** The unused blocks of the last slab: the next one's address, and how many are left. */
let slabNext: usize = 0;
let slabLeft: u32 = 0;
/** Emptied blocks, linked through their first word. */
let freeBlocks: usize = 0;
/** Blocks taken from the arena since the last reset (for the statistics). */
export let openBlocksAllocated: u32 = 0;
/** Entries queued and not yet popped. */
export let openEntriesLive: u64 = 0;
/** Most entries live at once since the last reset. */
export let openEntriesPeak: u64 = 0;

/** Forgets every block (after an arena reset, or with every stack empty). */
export function resetOpenStacks(): void {
  freeBlocks = 0;
  slabNext = 0;
  slabLeft = 0;
  openBlocksAllocated = 0;
  openEntriesLive = 0;
  openEntriesPeak = 0;
}

/** A free block: from the free list, else from the current slab (a new slab when it is used up); 0 when the memory ran out. */
function takeBlock(): usize {
  const free = freeBlocks;
  if (free != 0) {
    freeBlocks = <usize>load<u32>(free);
    return free;
  }
  if (slabLeft == 0) {
    // blocks come from the arena SLAB_BLOCKS at a time: one call and at
    // most one memory.grow per 1 MiB instead of one call per 256 bytes
    slabNext = allocate(<u64>SLAB_BLOCKS * BLOCK_BYTES);
    if (slabNext == 0) {
      slabNext = allocate(BLOCK_BYTES);
      if (slabNext == 0) return 0;
      slabLeft = 1;
    } else {
      slabLeft = SLAB_BLOCKS;
    }
  }
  const block = slabNext;
  slabNext += <usize>BLOCK_BYTES;
  slabLeft--;
  openBlocksAllocated++;
  return block;
}

/**
 * Hands the region [start, start + bytes) to the blocks (the layered pass
 * gives a freed chunk block of table.ts here when the arena has no room).
 * Ignored while the current slab still has blocks.
 */
export function addOpenSlab(start: usize, bytes: u32): void {
  if (slabLeft != 0) return;
  slabNext = start;
  slabLeft = bytes / <u32>BLOCK_BYTES;
}

/**
 * Pushes record `index` on the stack whose head word is at `head`. Indices
 * pushed on one stack must increase (the search pushes each new record once
 * per scan, right after storing it, so they do). False when the memory ran
 * out (nothing is pushed then).
 */
export function stackPush(head: usize, index: u32): bool {
  let block = <usize>load<u32>(head);
  const below: u32 = block == 0 ? 0 : load<u32>(block, 8);
  if (index <= below) unreachable();
  const delta = index - below;
  if (block == 0 || load<u32>(block, 4) + ENTRY_MAX > BLOCK_DATA) {
    const fresh = takeBlock();
    if (fresh == 0) return false;
    store<u32>(fresh, <u32>block);
    store<u32>(fresh, 0, 4);
    store<u32>(head, <u32>fresh);
    block = fresh;
  }
  // the delta's 7-bit groups, most significant first; every byte but the
  // first has its high bit set, so a pop reads them back from the end
  let bytes: u32 = 1;
  while (bytes < ENTRY_MAX && (delta >> (bytes * 7)) != 0) bytes++;
  const used = load<u32>(block, 4);
  const at = block + BLOCK_HEADER + <usize>used;
  for (let j: u32 = 0; j < bytes; j++) {
    const group = (delta >> ((bytes - 1 - j) * 7)) & 0x7f;
    store<u8>(at + j, j == 0 ? group : group | 0x80);
  }
  store<u32>(block, used + bytes, 4);
  store<u32>(block, index, 8);
  openEntriesLive++;
  if (openEntriesLive > openEntriesPeak) openEntriesPeak = openEntriesLive;
  return true;
}

/** Pops the top index of the stack whose head word is at `head`; 0 when it is empty. */
// @ts-ignore: decorator
@inline export function stackPop(head: usize): u32 {
  const block = <usize>load<u32>(head);
  if (block == 0) return 0;
  const index = load<u32>(block, 8);
  const data = block + BLOCK_HEADER;
  let at = data + <usize>load<u32>(block, 4);
  let delta: u32 = 0;
  let shift: u32 = 0;
  let b: u32 = 0;
  do {
    at--;
    b = <u32>load<u8>(at);
    delta |= (b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  if (at == data) {
    store<u32>(head, load<u32>(block));
    store<u32>(block, <u32>freeBlocks);
    freeBlocks = block;
  } else {
    store<u32>(block, <u32>(at - data), 4);
    store<u32>(block, index - delta, 8);
  }
  openEntriesLive--;
  return index;
}
