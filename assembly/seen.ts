/**
 * The lazy phase's filter of stored positions by hash (lazy.ts): a set of
 * the 64-bit position hashes (board.ts `positionHash`, `childHash`) of
 * the positions the lazy phase stored, so that a scan can drop a pending
 * move whose result was stored already without rebuilding its parent,
 * playing the move, encoding the key and looking it up.
 *
 * A hit is not a proof: two positions may share a hash. So a move dropped on
 * a hit is marked (pending.ts ENT_SKIPPED) and compared by its full key
 * before the search may end as complete (lazy.ts `verifySkipped`), and the
 * hand-over plays it like an untaken one. A miss is exact: every position
 * the lazy phase stores is added, so a move whose hash is not here leads to
 * a position that is new or was stored outside the filter (the won one).
 *
 * Open addressing over u64 slots from the arena (0 = empty; a hash is stored
 * with its low bit set, so it is never 0), doubled at half load. When the
 * arena has no room for the slots the filter switches itself off for the
 * rest of the solve (`seenContains` is then always false: every move takes
 * the exact path).
 */
import { allocate, release } from './arena';

/** Slots of a fresh filter: 2^12 (32 KiB, cleared per solve). */
const INITIAL_SLOTS: u32 = 1 << 12;

let seenSlots: usize = 0;
let seenMask: u32 = 0;
let seenCount: u32 = 0;
/** False when the filter could not get memory (or is not set up): every lookup misses. */
let seenOn: bool = false;
/** Test hook: the hash bits the filter keeps (all 64 unless `setSeenHashMask` narrowed them to force collisions). */
let hashMask: u64 = 0xffffffffffffffff;

/**
 * Test hook (tests only): keeps only the hash bits in `mask` for every later
 * solve (~0 restores the default; 0 switches the filter off), so that
 * collisions, which 64 bits make vanishingly rare, happen on every deal and
 * the check of dropped moves is exercised.
 */
export function setSeenHashMask(mask: u64): void {
  hashMask = mask;
}

/** Switches the filter off (a phase that does not use it; its slots went with the arena's reset). */
export function seenOff(): void {
  seenOn = false;
  seenCount = 0;
}

/** True when the filter is in use this solve. */
export function seenActive(): bool {
  return seenOn;
}

/**
 * Empties the filter for a new phase: takes fresh slots from the arena
 * (which was just reset) and clears them. Returns false (and switches the
 * filter off) when there is no room or the filter is disabled by the hook.
 */
export function resetSeen(): bool {
  seenCount = 0;
  seenOn = false;
  if (hashMask == 0) return false;
  const slots = allocate(<u64>INITIAL_SLOTS * 8);
  if (slots == 0) return false;
  memory.fill(slots, 0, <usize>INITIAL_SLOTS * 8);
  seenSlots = slots;
  seenMask = INITIAL_SLOTS - 1;
  seenOn = true;
  return true;
}

// @ts-ignore: decorator
@inline function slotValue(hash: u64): u64 {
  return (hash & hashMask) | 1;
}

/** Whether `hash` was added this phase (a hint: see the file comment). False when the filter is off. */
export function seenContains(hash: u64): bool {
  if (!seenOn) return false;
  const v = slotValue(hash);
  let h = <u32>(v >> 32) & seenMask;
  while (true) {
    const slot = load<u64>(seenSlots + (<usize>h << 3));
    if (slot == v) return true;
    if (slot == 0) return false;
    h = (h + 1) & seenMask;
  }
  return false;
}

/** Adds `hash` (a position the lazy phase stored). Doubles the slots at half load; switches the filter off when that finds no memory. */
export function seenAdd(hash: u64): void {
  if (!seenOn) return;
  const v = slotValue(hash);
  let h = <u32>(v >> 32) & seenMask;
  while (true) {
    const slot = load<u64>(seenSlots + (<usize>h << 3));
    if (slot == v) return;
    if (slot == 0) break;
    h = (h + 1) & seenMask;
  }
  store<u64>(seenSlots + (<usize>h << 3), v);
  seenCount++;
  if (seenCount * 2 > seenMask + 1) grow();
}

function grow(): void {
  const oldCount = seenMask + 1;
  const newCount = oldCount << 1;
  const fresh = allocate(<u64>newCount * 8);
  if (fresh == 0) {
    seenOn = false;
    return;
  }
  memory.fill(fresh, 0, <usize>newCount * 8);
  const mask = newCount - 1;
  for (let s: u32 = 0; s < oldCount; s++) {
    const v = load<u64>(seenSlots + (<usize>s << 3));
    if (v == 0) continue;
    let h = <u32>(v >> 32) & mask;
    while (load<u64>(fresh + (<usize>h << 3)) != 0) h = (h + 1) & mask;
    store<u64>(fresh + (<usize>h << 3), v);
  }
  release(seenSlots, <u64>oldCount * 8);
  seenSlots = fresh;
  seenMask = mask;
}
