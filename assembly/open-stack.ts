/**
 * Open-list buckets as stacks of record indices: the eager phase's open
 * lists (open-lists.ts), in both layouts (records carry no open-list links).
 *
 * Each bucket of each scan is a stack of record indices held in 256-byte
 * blocks; the bucket head (open-lists.ts BUCKETS)
 * holds the address of the top block, 0 when the bucket is empty. A block is
 * [previous block u32][bits used u32][its top index u32][244 bytes]. The
 * indices pushed on one stack increase, so an entry is stored as its
 * difference to the entry below it (the first of a stack: to 0), as an
 * Exp-Golomb code of order 2 laid out so that a pop reads it back from the
 * end (`stackPush`), and the pop subtracts. Most differences are small (one
 * scan's consecutive pushes to one bucket are a few records apart, with a
 * long thin tail), so an entry takes under a byte on a long search, less
 * than 7-bit bytes would (docs/benchmarks.md, "What 4 GiB holds": the open
 * stacks' bytes a stored position). A block emptied by a pop goes to a free list and is reused
 * by the next push of any bucket, so the memory of the open lists is that of
 * the entries queued and not yet taken plus at most one partly used block
 * per bucket.
 *
 * A stack is LIFO, as a bucket of linked items is, so a solve expands the
 * same positions in the same order in either layout.
 */
import { allocate } from './arena';

/** Bytes of one block: a 12-byte header and 244 bytes of entries. */
const BLOCK_BYTES: u64 = 256;
const BLOCK_HEADER: usize = 12;
/**
 * The last bit an entry may start at: an entry is written with one 64-bit
 * read-modify-write from the byte of its first bit, which must end in the
 * block (an entry has at most 55 bits: a delta below 2^28).
 */
const LAST_START: u32 = (<u32>BLOCK_BYTES - <u32>BLOCK_HEADER - 8) * 8;
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
 * gives a freed chunk block of layered-table.ts here when the arena has no room).
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
// @ts-ignore: decorator
@inline export function stackPush(head: usize, index: u32): bool {
  let block = <usize>load<u32>(head);
  const below: u32 = block == 0 ? 0 : load<u32>(block, 8);
  if (index <= below) unreachable();
  const delta = index - below;
  if (block == 0 || load<u32>(block, 4) > LAST_START) {
    const fresh = takeBlock();
    if (fresh == 0) return false;
    store<u32>(fresh, <u32>block);
    store<u32>(fresh, 0, 4);
    store<u32>(head, <u32>fresh);
    block = fresh;
  }
  // Exp-Golomb of order 2 of delta - 1, read back from the end: w = delta + 3
  // (>= 4) has L + 1 bits; from bit `used` up go the L low bits of w, a 1,
  // then L - 2 zeros (2 L - 1 bits: 3 for 1..4, 5 for 5..12, 7 for 13..28)
  const used = load<u32>(block, 4);
  const w = <u64>delta + 3;
  const L = <u32>(63 - clz(w));
  const code = (w & ((<u64>1 << <u64>L) - 1)) | (<u64>1 << <u64>L);
  // one 64-bit read-modify-write (at most 55 + 7 bits): the bits below
  // `used` kept, the ones above the entry unused
  const at = block + BLOCK_HEADER + <usize>(used >> 3);
  const shift = <u64>(used & 7);
  store<u64>(at, (load<u64>(at) & ((<u64>1 << shift) - 1)) | (code << shift));
  store<u32>(block, used + 2 * L - 1, 4);
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
  const used = load<u32>(block, 4);
  // the zeros below the end: the 64 bits whose top one is bit used - 1
  // (the bytes before the data are the header's, never reached: the entry's 1 comes first)
  const top = used - 1;
  const zeros = <u32>clz(load<u64>(data + <usize>(top >> 3) - 7) << <u64>(7 - (top & 7)));
  const L = zeros + 2;
  const start = used - 2 * zeros - 3;
  // the L low bits of w, read from at most byte LAST_START / 8 (not past the data)
  const byte = min(start >> 3, LAST_START >> 3);
  const low = (load<u64>(data + <usize>byte) >> <u64>(start - (byte << 3))) & ((<u64>1 << <u64>L) - 1);
  if (start == 0) {
    store<u32>(head, load<u32>(block));
    store<u32>(block, <u32>freeBlocks);
    freeBlocks = block;
  } else {
    store<u32>(block, start, 4);
    store<u32>(block, index - (<u32>(low | (<u64>1 << <u64>L)) - 3), 8);
  }
  openEntriesLive--;
  return index;
}
