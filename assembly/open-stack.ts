/**
 * Open-list buckets as stacks of record indices, for the compact layout
 * (castle-key.ts), whose records carry no open-list links.
 *
 * Each bucket of each scan (search.ts's bucket queues) is a stack of u32
 * record indices held in blocks of BLOCK_ENTRIES; the bucket head (search.ts
 * BUCKETS) holds the address of the top block, 0 when the bucket is empty.
 * A block is [previous block u32][entries used u32][BLOCK_ENTRIES x u32].
 * Push and pop work on the top block; a block emptied by a pop goes to a
 * free list and is reused by the next push of any bucket, so the memory of
 * the open lists is that of the entries queued and not yet taken (4 bytes
 * per scan) plus at most one partly used block per bucket.
 *
 * The order is that of the linked buckets of the 72-byte layout (LIFO
 * within a bucket), so a solve expands the same positions in the same order
 * in either layout.
 */
import { allocate } from './arena';

/** Entries of one block: 62, so that a block is 256 bytes. */
const BLOCK_ENTRIES: u32 = 62;
const BLOCK_BYTES: u64 = 8 + <u64>BLOCK_ENTRIES * 4;

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

/** Pushes `index` on the stack whose head word is at `head`. False when the memory ran out. */
export function stackPush(head: usize, index: u32): bool {
  let block = <usize>load<u32>(head);
  if (block == 0 || load<u32>(block, 4) == BLOCK_ENTRIES) {
    let fresh = freeBlocks;
    if (fresh != 0) {
      freeBlocks = <usize>load<u32>(fresh);
    } else {
      if (slabLeft == 0) {
        // blocks come from the arena SLAB_BLOCKS at a time: one call and at
        // most one memory.grow per 1 MiB instead of one call per 256 bytes
        slabNext = allocate(<u64>SLAB_BLOCKS * BLOCK_BYTES);
        if (slabNext == 0) {
          slabNext = allocate(BLOCK_BYTES);
          if (slabNext == 0) return false;
          slabLeft = 1;
        } else {
          slabLeft = SLAB_BLOCKS;
        }
      }
      fresh = slabNext;
      slabNext += <usize>BLOCK_BYTES;
      slabLeft--;
      openBlocksAllocated++;
    }
    store<u32>(fresh, <u32>block);
    store<u32>(fresh, 0, 4);
    store<u32>(head, <u32>fresh);
    block = fresh;
  }
  const used = load<u32>(block, 4);
  store<u32>(block + 8 + (<usize>used << 2), index);
  store<u32>(block, used + 1, 4);
  openEntriesLive++;
  if (openEntriesLive > openEntriesPeak) openEntriesPeak = openEntriesLive;
  return true;
}

/** Pops the top index of the stack whose head word is at `head`; 0 when it is empty. */
// @ts-ignore: decorator
@inline export function stackPop(head: usize): u32 {
  const block = <usize>load<u32>(head);
  if (block == 0) return 0;
  const used = load<u32>(block, 4) - 1;
  const index = load<u32>(block + 8 + (<usize>used << 2));
  if (used == 0) {
    store<u32>(head, load<u32>(block));
    store<u32>(block, <u32>freeBlocks);
    freeBlocks = block;
  } else {
    store<u32>(block, used, 4);
  }
  openEntriesLive--;
  return index;
}
