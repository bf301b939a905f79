/**
 * Raw linear-memory allocation for one solve: a bump allocator above the
 * static data, reset (not freed) at the start of every solve, growing the
 * Wasm memory on demand up to a byte limit. The memory a worker has grown
 * stays with it and is reused by its next solve (docs/architecture.md, principle 5).
 * A block that is no longer needed (the state table's old hash slots after
 * it grows) can be released; later blocks that fit are carved from released
 * regions before the bump pointer moves, so those bytes hold records instead
 * of lying idle under the memory cap.
 */

/** Bytes of one Wasm page. */
const PAGE_BYTES: u64 = 65536;

let top: u64 = 0;
let limit: u64 = 0;

/** Released regions [start, end), carved from the front. */
const MAX_FREE_REGIONS: i32 = 32;
const FREE_STARTS: usize = memory.data(MAX_FREE_REGIONS * 8);
const FREE_ENDS: usize = memory.data(MAX_FREE_REGIONS * 8);
let freeRegions: i32 = 0;

/**
 * How many times the arena was reset since the module started. A block's
 * contents survive a reset (nothing is cleared), so a user that knows what it
 * left in a block can reuse those bytes after exactly one reset, its own, when
 * it gets the same address back (the state table's clean slots, table.ts).
 */
export let arenaResets: u32 = 0;

/** Starts a new solve: forgets every block, caps the memory at `limitBytes`. */
export function resetArena(limitBytes: u64): void {
  arenaResets++;
  top = (<u64>__heap_base + 15) & ~(<u64>15);
  limit = limitBytes;
  freeRegions = 0;
}

/**
 * Hands back `bytes` bytes at `start` (a block from `allocate` that nothing
 * uses any more) for later allocations. Beyond MAX_FREE_REGIONS regions the
 * bytes simply stay unused.
 */
export function release(start: usize, bytes: u64): void {
  if (freeRegions >= MAX_FREE_REGIONS) return;
  const at = <usize>freeRegions << 3;
  store<u64>(FREE_STARTS + at, <u64>start);
  store<u64>(FREE_ENDS + at, <u64>start + bytes);
  freeRegions++;
}

/**
 * Returns the address of `bytes` fresh bytes (16-byte aligned; contents
 * undefined), or 0 when the memory limit or the Wasm maximum is reached.
 */
export function allocate(bytes: u64): usize {
  const size = (bytes + 15) & ~(<u64>15);
  for (let i = 0; i < freeRegions; i++) {
    const at = <usize>i << 3;
    const regionStart = load<u64>(FREE_STARTS + at);
    if (load<u64>(FREE_ENDS + at) - regionStart >= size) {
      store<u64>(FREE_STARTS + at, regionStart + size);
      return <usize>regionStart;
    }
  }
  const start = top;
  const end = (start + bytes + 15) & ~(<u64>15);
  if (end > limit || end >= 0xffff0000) return 0;
  const needPages = (end + PAGE_BYTES - 1) / PAGE_BYTES;
  const havePages = <u64>memory.size();
  if (needPages > havePages) {
    // grow by at least 4 MiB at a time (within the limit): a memory.grow per small block (a record chunk) would cost more than the blocks
    const limitPages = (min(limit, <u64>0xffff0000) + PAGE_BYTES - 1) / PAGE_BYTES;
    let wantPages = max(needPages, havePages + 64);
    if (wantPages > limitPages) wantPages = needPages;
    if (memory.grow(<i32>(wantPages - havePages)) < 0) {
      if (wantPages == needPages || memory.grow(<i32>(needPages - havePages)) < 0) return 0;
    }
  }
  top = end;
  return <usize>start;
}

/** Bytes of linear memory this solve has taken so far. */
export function arenaBytesUsed(): u64 {
  return top;
}

/**
 * Bytes this solve may still allocate: up to the limit (and the Wasm
 * maximum) past the bump pointer, plus what is left of the released regions.
 * A single block may get less (a region is not joined to its neighbours).
 */
export function arenaBytesFree(): u64 {
  const cap = limit < 0xffff0000 ? limit : 0xffff0000;
  let free: u64 = cap > top ? cap - top : 0;
  for (let i = 0; i < freeRegions; i++) {
    const at = <usize>i << 3;
    free += load<u64>(FREE_ENDS + at) - load<u64>(FREE_STARTS + at);
  }
  return free;
}

/** The largest block `allocate` can hand out now: the room past the bump pointer, or the largest released region's rest. */
export function arenaLargestBlock(): u64 {
  const cap = limit < 0xffff0000 ? limit : 0xffff0000;
  let most: u64 = cap > top ? cap - top : 0;
  for (let i = 0; i < freeRegions; i++) {
    const at = <usize>i << 3;
    const size = load<u64>(FREE_ENDS + at) - load<u64>(FREE_STARTS + at);
    if (size > most) most = size;
  }
  return most;
}
