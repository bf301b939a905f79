/**
 * Raw linear-memory allocation for one solve: a bump allocator above the
 * static data, reset (not freed) at the start of every solve, growing the
 * Wasm memory on demand up to a byte limit. The memory a worker has grown
 * stays with it and is reused by its next solve (design.md, principle 5).
 */

/** Bytes of one Wasm page. */
const PAGE_BYTES: u64 = 65536;

let top: u64 = 0;
let limit: u64 = 0;

/** Starts a new solve: forgets every block, caps the memory at `limitBytes`. */
export function resetArena(limitBytes: u64): void {
  top = (<u64>__heap_base + 15) & ~(<u64>15);
  limit = limitBytes;
}

/**
 * Returns the address of `bytes` fresh bytes (16-byte aligned; contents
 * undefined), or 0 when the memory limit or the Wasm maximum is reached.
 */
export function allocate(bytes: u64): usize {
  const start = top;
  const end = (start + bytes + 15) & ~(<u64>15);
  if (end > limit || end >= 0xffff0000) return 0;
  const needPages = (end + PAGE_BYTES - 1) / PAGE_BYTES;
  const havePages = <u64>memory.size();
  if (needPages > havePages) {
    if (memory.grow(<i32>(needPages - havePages)) < 0) return 0;
  }
  top = end;
  return <usize>start;
}

/** Bytes of linear memory this solve has taken so far. */
export function arenaBytesUsed(): u64 {
  return top;
}
