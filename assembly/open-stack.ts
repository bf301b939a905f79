/**
 * Open-list buckets as stacks of record indices, for the compact layout
 * (castle-key.ts), whose records carry no open-list links.
 *
 * Each bucket of each scan (search.ts's bucket queues) is a stack of record
 * indices held in 256-byte blocks; the bucket head (search.ts BUCKETS)
 * holds the address of the top block, 0 when the bucket is empty. A block is
 * [previous block u32][nibbles used u32][its top index u32][244 bytes]. The
 * indices pushed on one stack increase, so an entry is stored as its
 * difference to the entry below it (the first of a stack: to 0), in 1..11
 * nibbles of 3 bits (the high bit of each but the first set); a pop reads
 * the top entry's nibbles back from the end and subtracts. Nibbles instead
 * of 7-bit bytes: most differences are below 8 (one scan's consecutive
 * pushes to one bucket are a few records apart), so an entry takes about
 * 0.6 bytes instead of 1.1 (Streets and Alleys 77). A block emptied by a pop goes to a free list and is reused by
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

/** Bytes of one block: a 12-byte header and BLOCK_DATA nibbles of entries. */
const BLOCK_BYTES: u64 = 256;
const BLOCK_HEADER: usize = 12;
const BLOCK_DATA: u32 = (<u32>BLOCK_BYTES - <u32>BLOCK_HEADER) * 2;
/** Most nibbles of one entry (a 32-bit delta, 3 bits a nibble). */
const ENTRY_MAX: u32 = 11;
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
  // the delta's 3-bit groups, most significant first, a nibble each; every
  // nibble but the first has its high bit set, so a pop reads them back from the end
  const nibbles: u32 = (34 - <u32>clz(delta)) / 3;
  const used = load<u32>(block, 4);
  const data = block + BLOCK_HEADER;
  for (let j: u32 = 0; j < nibbles; j++) {
    const group = (delta >> ((nibbles - 1 - j) * 3)) & 7;
    const nibble = j == 0 ? group : group | 8;
    const at = used + j;
    // an even nibble starts its byte (clearing the odd one, not yet
    // written); an odd one keeps the even one below it (a popped entry may
    // have left its old nibble above)
    if (at & 1) store<u8>(data + <usize>(at >> 1), (load<u8>(data + <usize>(at >> 1)) & 15) | (nibble << 4));
    else store<u8>(data + <usize>(at >> 1), nibble);
  }
  store<u32>(block, used + nibbles, 4);
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
  let at = load<u32>(block, 4);
  let delta: u32 = 0;
  let shift: u32 = 0;
  let b: u32 = 0;
  do {
    at--;
    b = (<u32>load<u8>(data + <usize>(at >> 1)) >> ((at & 1) << 2)) & 15;
    delta |= (b & 7) << shift;
    shift += 3;
  } while (b & 8);
  if (at == 0) {
    store<u32>(head, load<u32>(block));
    store<u32>(block, <u32>freeBlocks);
    freeBlocks = block;
  } else {
    store<u32>(block, at, 4);
    store<u32>(block, index - delta, 8);
  }
  openEntriesLive--;
  return index;
}
