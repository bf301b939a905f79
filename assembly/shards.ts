/**
 * The sharded layered pass (docs/engine.md, "The layered pass over several
 * engines"): one layered search (layers.ts, shard-pass.ts `layeredShardStep`)
 * spread over K instances of this module, each with its own linear memory of
 * up to 4 GiB, all driven by one host thread (client-sdk/core/sharded-layers.ts).
 * Instance s of K holds the positions whose key hash says s (`shardOf`); a
 * child that belongs to another shard is not looked up here but written to
 * that shard's outbox, and a full outbox goes to the host (`forwardChildren`),
 * which copies it into the target instance's inbox and has it insert the
 * children there (shard-pass.ts `acceptChildren`).
 *
 * A record's parent is a *reference*: (shard << SHARD_SHIFT) | index, the
 * index below 2^28 (table.ts's compact slots hold 28 bits of it), so the host
 * can walk a solution's parent chain across shards. With K = 1 (the default,
 * and every solve that is not sharded) the shard is 0, every child is local
 * and a reference is the plain index: the pass is exactly the one-engine pass.
 *
 * Why batches rather than one host call a child: the order in which
 * children are inserted changes which parent a position records and which
 * index it gets, never which positions are stored (the pass is complete and
 * every stored position is expanded once), so a child may wait in an outbox
 * until the outbox is full or its expansion step ends; one host call then
 * moves up to `outboxEntries` children (docs/benchmarks.md, "The layered
 * pass over several engines", has the measured cost of both).
 */

/**
 * Host import: moves the `count` entries at `entries` (this instance's
 * memory, ENTRY_BYTES each) into shard `target`'s inbox and has it insert
 * them. Returns FORWARD_OK, FORWARD_GOAL (a won child was stored there: the
 * pass ends solved), or FORWARD_FAILED (the target ran out of memory or
 * positions, or was told to stop: the pass ends unknown).
 */
@external('env', 'forwardChildren')
declare function forwardChildren(target: i32, entries: usize, count: i32): i32;

export const FORWARD_OK: i32 = 0;
export const FORWARD_GOAL: i32 = 1;
export const FORWARD_FAILED: i32 = 2;

/** Most shards: a reference keeps 4 bits for the shard. */
export const MAX_SHARDS: i32 = 16;
/** Bit of a parent reference where the shard number starts. */
export const SHARD_SHIFT: u32 = 28;
/** Bytes of one forwarded child: key (up to 20 bytes; compact keys have 17 to 19) at 0, hash at 20, parent reference at 24, move word at 28. */
export const ENTRY_BYTES: i32 = 32;
export const ENTRY_HASH: usize = 20;
export const ENTRY_PARENT: usize = 24;
export const ENTRY_WORD: usize = 28;
/** Most entries of one outbox (and of the inbox). */
export const OUTBOX_MAX: i32 = 256;

/** This instance's shard and the number of shards (1: not sharded). */
export let shardIndex: i32 = 0;
export let shardCount: i32 = 1;
/** Entries an outbox holds before it is sent (1..OUTBOX_MAX; 1 sends every child at once, for the measurement). */
let outboxEntries: i32 = OUTBOX_MAX;
/** What the last `forwardChildren` of this instance answered, when not FORWARD_OK (the step then ends). */
export let forwardStatus: i32 = FORWARD_OK;
/** Children this instance sent to other shards, and host calls it made for them. */
export let childrenForwarded: f64 = 0;
export let forwardCalls: f64 = 0;

const OUTBOXES: usize = memory.data(MAX_SHARDS * OUTBOX_MAX * ENTRY_BYTES, 16);
const OUTBOX_FILL: usize = memory.data(MAX_SHARDS * 4);
/** Where the host writes the entries another shard forwards to this one. */
export const INBOX: usize = memory.data(OUTBOX_MAX * ENTRY_BYTES, 16);

/**
 * Host hook, before `layeredShardBegin`: this instance is shard `shard` of
 * `count` (1..MAX_SHARDS), its outboxes send `batch` entries at a time
 * (1..OUTBOX_MAX). Traps on values out of range.
 */
export function setShard(shard: i32, count: i32, batch: i32): void {
  if (count < 1 || count > MAX_SHARDS || shard < 0 || shard >= count || batch < 1 || batch > OUTBOX_MAX) unreachable();
  shardIndex = shard;
  shardCount = count;
  outboxEntries = batch;
  resetOutboxes();
}

/** Empties the outboxes and the forwarding counters. */
export function resetOutboxes(): void {
  memory.fill(OUTBOX_FILL, 0, MAX_SHARDS * 4);
  forwardStatus = FORWARD_OK;
  childrenForwarded = 0;
  forwardCalls = 0;
}

/**
 * The shard of a position whose compact key hashes to `hash`: from its low
 * 16 bits, since the table's home slot (`compactHome`) and its 4-bit tag use
 * the high ones, which must stay spread within one shard.
 */
// @ts-ignore: decorator
@inline export function shardOf(hash: u32): i32 {
  return <i32>(((hash & 0xffff) * <u32>shardCount) >> 16);
}

/** The parent reference of record `index` of this shard. */
// @ts-ignore: decorator
@inline export function parentRef(index: u32): u32 {
  return index | (<u32>shardIndex << SHARD_SHIFT);
}

/**
 * Queues a child for shard `target`: its key at `key` (20 bytes are read),
 * `hash`, parent reference and move word (with BATCH_WON of children.ts when
 * won). Sends the outbox when it is full. False when the send answered other
 * than FORWARD_OK (`forwardStatus` says what): the expansion must end.
 */
export function sendChild(target: i32, key: usize, hash: u32, parent: u32, word: u32): bool {
  const fillAt = OUTBOX_FILL + (<usize>target << 2);
  const n = load<i32>(fillAt);
  const e = OUTBOXES + (<usize>(target * OUTBOX_MAX + n) * ENTRY_BYTES);
  store<u64>(e, load<u64>(key));
  store<u64>(e, load<u64>(key, 8), 8);
  store<u32>(e, load<u32>(key, 16), 16);
  store<u32>(e + ENTRY_HASH, hash);
  store<u32>(e + ENTRY_PARENT, parent);
  store<u32>(e + ENTRY_WORD, word);
  childrenForwarded++;
  if (n + 1 < outboxEntries) {
    store<i32>(fillAt, n + 1);
    return true;
  }
  return sendOutbox(target, n + 1);
}

/** Sends outbox `target` (`count` entries); see `sendChild`. */
function sendOutbox(target: i32, count: i32): bool {
  store<i32>(OUTBOX_FILL + (<usize>target << 2), 0);
  forwardCalls++;
  const status = forwardChildren(target, OUTBOXES + (<usize>(target * OUTBOX_MAX) * ENTRY_BYTES), count);
  if (status != FORWARD_OK) {
    forwardStatus = status;
    return false;
  }
  return true;
}

/** Sends every outbox that holds an entry. False as `sendChild` (the rest stay unsent: the pass ends). */
export function flushOutboxes(): bool {
  for (let t = 0; t < shardCount; t++) {
    const n = load<i32>(OUTBOX_FILL + (<usize>t << 2));
    if (n > 0 && !sendOutbox(t, n)) return false;
  }
  return true;
}
