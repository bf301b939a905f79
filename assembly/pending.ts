/**
 * Pending moves: the open list items of the lazy phase (lazy.ts). A
 * pending move is a move of a stored, expanded position whose result has not
 * been looked up yet; it is scored when generated (the child is measured)
 * but encoded, hashed and stored only when a scan takes it.
 *
 * Entries live in chunks of ENTRY_CHUNK entries taken from the arena, so
 * indices (1-based, 0 = none) stay valid while the pool grows. Entry layout
 * (ENTRY_BYTES), the move word at the same offset as in a state record
 * (records.ts REC_MOVE), so that the open lists read either kind of item's
 * move word alike (open-lists.ts):
 *
 *   0  ENT_PARENT  the stored position the move is played from (record
 *                  index, bits 0-30), and ENT_SKIPPED (bit 31)
 *   4  ENT_MOVE    move word (move.ts), with the depth and auto flag of the result
 *   8  ENT_NEXT    next item in the same bucket of open list 0, then of lists 1, 2, 3 at 12, 16, 20
 *  24  ENT_HASH    the result's position hash (board.ts, u64; children.ts `addChild`),
 *                  only when the solve's lazy phase hashes (`resetEntries`;
 *                  else entries are ENTRY_BYTES_NO_HASH = 24 bytes)
 *
 * ENT_SKIPPED marks a pending move that a scan took and dropped because its
 * result's hash was in the filter of stored hashes (seen.ts), without the
 * full key comparison. The lazy phase checks every such move by its key
 * before it says the reachable set is complete, and the hand-over plays it
 * like an untaken one (lazy.ts `verifySkipped`, `handOver`).
 */
import { allocate, release } from './arena';

export const ENT_PARENT: usize = 0;
export const ENT_MOVE: usize = 4;
export const ENT_NEXT: usize = 8;
export const ENT_HASH: usize = 24;
export const ENTRY_BYTES: i32 = 32;
/** An entry without ENT_HASH, in a solve whose lazy phase does not hash its moves. */
export const ENTRY_BYTES_NO_HASH: i32 = 24;
/** Bytes of an entry this solve (`resetEntries`). */
let entryBytes: usize = <usize>ENTRY_BYTES;
/** In the ENT_PARENT word: the move was dropped on a filter hit, its key not yet compared (see the file comment). */
const ENT_SKIPPED: u32 = 0x80000000;
const ENTRY_SHIFT: i32 = 16;
const ENTRY_CHUNK: u32 = 1 << ENTRY_SHIFT;
const MAX_ENTRY_CHUNKS: i32 = 16384;
const ENTRY_CHUNKS: usize = memory.data(MAX_ENTRY_CHUNKS * 4);

/** Entries handed out this solve; indices run 1..entryCount. */
export let entryCount: u32 = 0;

/**
 * Forgets every entry (the arena was reset with them); `withHash`: this
 * phase's entries carry ENT_HASH (ENTRY_BYTES), else they are
 * ENTRY_BYTES_NO_HASH long (`entryHash` must then not be read).
 */
export function resetEntries(withHash: bool): void {
  entryCount = 0;
  entryBytes = withHash ? <usize>ENTRY_BYTES : <usize>ENTRY_BYTES_NO_HASH;
}

/** Address of entry `index` (1-based). */
// @ts-ignore: decorator
@inline export function entryAt(index: u32): usize {
  return <usize>load<u32>(ENTRY_CHUNKS + ((<usize>index >> ENTRY_SHIFT) << 2)) + <usize>(index & (ENTRY_CHUNK - 1)) * entryBytes;
}

/** Parent record index of the entry at `ent`. */
// @ts-ignore: decorator
@inline export function entryParent(ent: usize): u32 {
  return load<u32>(ent + ENT_PARENT) & ~ENT_SKIPPED;
}

/** Hash of the result of the entry at `ent` (as given to `newEntry`). */
// @ts-ignore: decorator
@inline export function entryHash(ent: usize): u64 {
  return load<u64>(ent + ENT_HASH);
}

/** Whether the entry at `ent` was dropped on a filter hit and its key is not compared yet (`markSkipped`). */
// @ts-ignore: decorator
@inline export function isSkipped(ent: usize): bool {
  return (load<u32>(ent + ENT_PARENT) & ENT_SKIPPED) != 0;
}

/** Marks the entry at `ent` as dropped on a filter hit (its result's key still to be compared). */
// @ts-ignore: decorator
@inline export function markSkipped(ent: usize): void {
  store<u32>(ent + ENT_PARENT, load<u32>(ent + ENT_PARENT) | ENT_SKIPPED);
}

/** Clears `markSkipped` (the entry's key is being compared now). */
// @ts-ignore: decorator
@inline export function clearSkipped(ent: usize): void {
  store<u32>(ent + ENT_PARENT, load<u32>(ent + ENT_PARENT) & ~ENT_SKIPPED);
}

/** Move word of the entry at `ent`. */
// @ts-ignore: decorator
@inline export function entryMove(ent: usize): u32 {
  return load<u32>(ent + ENT_MOVE);
}

/**
 * Stores a new entry (links zeroed; `hash` is its result's position hash,
 * kept only when the entries carry one: `resetEntries`)
 * and returns its index, or 0 when the arena has no memory left for a new
 * chunk (or the chunk table is full). `parent` is below 2^31 (a record index).
 */
// @ts-ignore: decorator
@inline export function newEntry(parent: u32, word: u32, hash: u64): u32 {
  const index = entryCount + 1;
  if (index == 1 || (index & (ENTRY_CHUNK - 1)) == 0) {
    const chunkNo = index >> ENTRY_SHIFT;
    if (chunkNo >= <u32>MAX_ENTRY_CHUNKS) return 0;
    const chunk = allocate(<u64>ENTRY_CHUNK * entryBytes);
    if (chunk == 0) return 0;
    store<u32>(ENTRY_CHUNKS + (<usize>chunkNo << 2), chunk);
  }
  entryCount = index;
  const ent = entryAt(index);
  store<u32>(ent + ENT_PARENT, parent);
  store<u32>(ent + ENT_MOVE, word);
  store<u64>(ent + ENT_NEXT, 0);
  store<u64>(ent + ENT_NEXT + 8, 0);
  if (entryBytes == <usize>ENTRY_BYTES) store<u64>(ent + ENT_HASH, hash);
  return index;
}

/**
 * Hands every chunk of entries back to the arena (`release`), for record
 * chunks to reuse once the pending moves are no longer needed (after the
 * lazy phase has handed its search over); the entries are forgotten.
 */
export function releaseEntries(): void {
  if (entryCount == 0) return;
  const chunks = (entryCount >> ENTRY_SHIFT) + 1;
  for (let i: u32 = 0; i < chunks; i++) release(<usize>load<u32>(ENTRY_CHUNKS + (<usize>i << 2)), <u64>ENTRY_CHUNK * entryBytes);
  entryCount = 0;
}
