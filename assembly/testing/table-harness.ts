/**
 * A test harness around the engine's arena and state table (AssemblyScript,
 * compiled by tests/unit/table-arena.test.ts; not part of the engine build,
 * which compiles assembly/index.ts): thin exports over
 * assembly/arena.ts and assembly/table.ts (with assembly/records.ts), and keys made from a seed so the
 * test can store, find and check millions of distinct positions without the
 * search.
 */
import { allocate, arenaBytesUsed, release, resetArena } from '../arena';
import { KEY_BYTES, hashKey } from '../key';
import { findOrInsert, resetTable, usedSlotCount } from '../table';
import { StateTable, FAIL_MEMORY, FAIL_STATES, FAIL_STOPPED, recordAt, recordKey, recordMove, recordParent } from '../records';

/** One key's bytes, rebuilt from its seed before each call. */
const KEY = memory.data(64);

/** Writes the key of `seed` (distinct seeds give distinct keys; KEY_BYTES bytes) at KEY. */
function makeKey(seed: u32): void {
  for (let i = 0; i < KEY_BYTES; i += 4) {
    let x = seed * 0x9e3779b1 + <u32>i * 0x85ebca6b;
    x ^= x >> 15;
    store<u32>(KEY + i, i == 0 ? seed : x);
  }
}

export function arenaReset(limitBytes: u32): void { resetArena(<u64>limitBytes); }
export function arenaAllocate(bytes: u32): u32 { return <u32>allocate(<u64>bytes); }
export function arenaRelease(start: u32, bytes: u32): void { release(<usize>start, <u64>bytes); }
export function arenaUsed(): u32 { return <u32>arenaBytesUsed(); }
export function pages(): i32 { return memory.size(); }

/** Starts a table under a fresh arena of `limitBytes`; false when even the first slots do not fit. */
export function tableReset(maxRecords: u32, limitBytes: u32): bool {
  resetArena(<u64>limitBytes);
  return resetTable(maxRecords);
}

/** Starts a table without resetting the arena first (its first slots then come from fresh memory, which resetTable fills). */
export function tableResetOnly(maxRecords: u32): bool {
  return resetTable(maxRecords);
}

/** Slots holding a record. */
export function slotsInUse(): u32 { return usedSlotCount(); }

/** findOrInsert of the key of `seed`, with the table's own hash of it. */
export function insertSeed(seed: u32, parent: u32, move: u32): u32 {
  makeKey(seed);
  return findOrInsert(KEY, hashKey(KEY), parent, move);
}

/** Inserts seeds first..first+count-1 (parent = seed, move = seed ^ 0x5a5a); returns how many were new, or -index of the first failure. */
export function insertRange(first: u32, count: u32): i32 {
  let fresh = 0;
  for (let s = first; s < first + count; s++) {
    const index = insertSeed(s, s, s ^ 0x5a5a);
    if (index == 0) return -<i32>(s - first) - 1;
    if (StateTable.lastInsertWasNew) fresh++;
  }
  return fresh;
}

/** True when record `index` holds the key, parent and move that insertRange gave seed `seed`. */
export function recordHoldsSeed(index: u32, seed: u32): bool {
  makeKey(seed);
  const rec = recordAt(index);
  if (recordParent(rec) != seed || (recordMove(rec) & 0xfffff) != ((seed ^ 0x5a5a) & 0xfffff)) return false;
  return memory.compare(recordKey(rec), KEY, KEY_BYTES) == 0;
}

/** The table's failure codes, so the test names them as the table does. */
export const failStates = FAIL_STATES;
export const failMemory = FAIL_MEMORY;
export const failStopped = FAIL_STOPPED;

export function wasNew(): bool { return StateTable.lastInsertWasNew; }
export function failure(): i32 { return StateTable.insertFailure; }
export function stopReason(): i32 { return StateTable.insertStopReason; }
export function count(): u32 { return StateTable.recordCount; }
