/**
 * The layered complete pass over several engines (docs/engine.md, "The
 * layered pass over several engines"): one layered search (assembly/layers.ts)
 * whose positions are spread over K instances of the engine module by their
 * key hash (assembly/shards.ts), each instance with its own linear memory of
 * up to 4 GiB, all on this thread. A wasm32 memory cannot pass 4 GiB; K of
 * them hold K times the positions.
 *
 * The driver runs the layers in lockstep. For the current layer it lets each
 * shard expand its open positions of that layer (`layeredShardStep`, in
 * bounded steps), children of other shards going through the host function
 * `forwardChildren` (a batch of children copied into the target's inbox and
 * inserted there by `acceptChildren`), until no shard has an open position
 * in the layer; then every shard moves to the lowest open layer of all and
 * closes the layers below it. The verdict:
 *   - solved: a shard stored a won child; its parent chain is walked across
 *     the shards (a parent is a (shard, index) reference), replayed from the
 *     start by shard 0 and checked by the independent checker (verify.ts);
 *   - unsolvable: no shard has an open position left in any layer and no
 *     shard stopped (every reachable position was stored once and expanded);
 *   - unknown: any shard ran out of memory or positions, or the deadline or
 *     the stop flag came (the reason of the first shard that stopped).
 * A child below the layer being expanded (a broken measure) is an
 * `engine_error`, never a verdict. With K = 1 the order of expansions is
 * exactly the one-engine `layeredLoop`'s (tests/unit/castle-shards.test.ts
 * compares them).
 */
import { Engine, MAX_ENGINE_MEMORY_BYTES, DEFAULT_PROGRESS_INTERVAL_MS, layeredApplies, requireCheckedSolution, type ProgressOptions, type ShardAccess } from './engine/index.js';
import { SolverError } from './errors.js';
import { elapsedMsSince, type SolveLimits, type SolveOutcome } from './solve-types.js';
import type { Deal } from './rules.js';

/** Most engines one sharded pass may use (assembly/shards.ts MAX_SHARDS: a parent reference keeps 4 bits for the shard). */
export const MAX_SHARDS = 16;
/**
 * Most bytes of one shard's memory: 2 GiB, half of what a wasm32 memory can
 * hold. A shard's record indices have 28 bits (the compact slots keep 28
 * bits of index), and a closed record keeps 8 bytes (parent and move), so
 * 2^28 records fill at most 2 GiB: in a shard of 2 GiB the memory, never the
 * index space, is what runs out. With 4 GiB shards a deal of more than
 * 2^28 positions a shard (about 1.07 billion over four) would stop at
 * `max_states` with memory left.
 */
const SHARD_BYTES = 2 * 2 ** 30;
/** Positions a shard expands in one step before the driver moves to the next shard. */
const STEP_BUDGET = 1 << 20;
/** Entries of an outbox (assembly/shards.ts OUTBOX_MAX). */
export const DEFAULT_SHARD_BATCH = 256;

/**
 * The shards a memory cap needs: ceil(cap / 2 GiB) (see SHARD_BYTES), at
 * least 1 and at most MAX_SHARDS (16384 MiB gives 8).
 * @param memoryLimitBytes the whole pass's memory cap, bytes (> 0).
 * @throws RangeError when the cap is not a positive number or needs more than MAX_SHARDS engines.
 */
export function shardsForMemory(memoryLimitBytes: number): number {
  if (!(memoryLimitBytes > 0)) throw new RangeError(`the memory cap must be a positive number of bytes, got ${memoryLimitBytes}`);
  const k = Math.max(1, Math.ceil(memoryLimitBytes / SHARD_BYTES));
  if (k > MAX_SHARDS) throw new RangeError(`a memory cap of ${memoryLimitBytes} bytes needs ${k} engines, more than ${MAX_SHARDS}`);
  return k;
}

/** Options of `solveLayeredSharded`. */
export interface ShardedOptions {
  /** The whole pass's memory cap, bytes: each of the K engines gets cap / K, at most MAX_ENGINE_MEMORY_BYTES. */
  memoryLimitBytes: number;
  /** Engines (1..MAX_SHARDS); default `shardsForMemory(memoryLimitBytes)`. Tests force 2 or 3 under a small cap. */
  shards?: number;
  /** Children an outbox holds before it is sent (1..256, default 256; 1 sends each child on its own, for the measurement in docs/benchmarks.md). */
  batch?: number;
  /** Cancel flag (nonzero at index 0 stops the pass: `unknown`, `cancelled`). */
  stop?: Int32Array;
  /** Progress reports (summed over the shards), as `Engine.solve`'s. */
  progress?: ProgressOptions;
  /**
   * An engine of `module` to use as shard 0 instead of a new instance: its
   * memory is reused (the CLI's best-first search grew it already), and its
   * buffers hold the deal and the solution afterwards, so `Engine.shorten`
   * works on a sharded answer; its stored keys count as the layered pass's
   * (none to export). The other K − 1 shards are new instances.
   */
  engine?: Engine;
  /**
   * Called once per non-empty layer as the pass moves past it, in layer
   * order (M * 32 + group, ascending), and for the layers still open when
   * the pass ends `unsolvable`, with the canonical 48-byte keys
   * (docs/proofs.md "Key encoding") of every position of that layer, shard
   * 0's first, then shard 1's, and so on (`positions` × 48 bytes, no order
   * within a shard's part). The keys are read before the layer's close
   * lets a purge drop them: the streamed layered certificate
   * (proof/layered-writer.ts) is written from these calls. Not called for a
   * pass that ends `solved` or `unknown` after the layer it is at (the
   * layers before it were handed over already). Whatever it throws ends the pass.
   */
  onLayerKeys?: (layer: number, keys: Uint8Array, positions: number) => void;
}

/** Per-shard and per-layer counters of the last sharded pass (for tools/tuning/layered.ts and the docs). */
export interface ShardedDetail {
  shards: number;
  /** Per shard: positions stored, expanded, peak live keys, engine memory bytes, children forwarded, host calls. */
  perShard: { stored: number; expanded: number; peakLive: number; liveAtEnd: number; memoryBytes: number; forwarded: number; calls: number; purges: number }[];
  /** Positions per layer (M * 32 + group), summed over the shards. */
  layerCounts: number[];
}

/** `SolveOutcome` of a sharded pass, with its `ShardedDetail`. */
export type ShardedOutcome = SolveOutcome & { detail: ShardedDetail };

const STEP = { drained: 0, more: 1, goal: 2, remoteGoal: 3, stopped: 4 } as const;
const FORWARD_OK = 0;
const FORWARD_FAILED = 2;
/** Layers of the pass (assembly/layers.ts MAX_LAYERS). */
const MAX_LAYERS = 128 * 32;
/** Bytes of a canonical key (assembly/key.ts KEY_BYTES, docs/proofs.md). */
const KEY_BYTES = 48;
/** Bit of a parent reference where the shard starts (assembly/shards.ts SHARD_SHIFT). */
const SHARD_SHIFT = 28;

/**
 * Runs the layered complete pass of `deal` over K engine instances of
 * `module` (see the file comment). The instances are made for this pass and
 * dropped after it, so their memory goes when the garbage collector takes them.
 * @param module the compiled engine (`loadEngineModule`).
 * @param limits `maxStates` caps the stored positions, each shard's at
 *   ceil(maxStates / K) (and at 2^28, its index space); `timeoutMs` caps the
 *   whole pass; `layered` is ignored.
 * @returns the outcome, `layered.shards` set, and `detail`.
 * @throws SolverError `invalid_request` when the rules have no layered pass
 *   (`layeredApplies`); `engine_error` on a child below its layer, a broken
 *   parent chain or a solution the engine cannot replay;
 *   `solution_check_failed` when the checker rejects the solution; whatever
 *   `progress.onProgress` throws.
 * @throws RangeError on a shard count or batch out of range.
 */
export function solveLayeredSharded(module: WebAssembly.Module, deal: Deal, limits: SolveLimits, options: ShardedOptions): ShardedOutcome {
  if (!layeredApplies(deal.rules)) throw new SolverError('invalid_request', 'the layered pass applies only to the no-cell Castle games that build by rank');
  const k = options.shards ?? shardsForMemory(options.memoryLimitBytes);
  if (!Number.isInteger(k) || k < 1 || k > MAX_SHARDS) throw new RangeError(`shards must be an integer from 1 to ${MAX_SHARDS}, got ${k}`);
  const batch = options.batch ?? DEFAULT_SHARD_BATCH;
  if (!Number.isInteger(batch) || batch < 1 || batch > 256) throw new RangeError(`batch must be an integer from 1 to 256, got ${batch}`);
  const perShardBytes = Math.min(Math.floor(options.memoryLimitBytes / k), MAX_ENGINE_MEMORY_BYTES);
  // the positions budget is the whole pass's: each shard gets its share (the hash spreads them evenly)
  const perShardStates = Math.min(Math.ceil(limits.maxStates / k), 2 ** 32 - 1);
  const started = performance.now();
  const deadline = started + limits.timeoutMs;
  const intervalMs = options.progress?.intervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  if (!(intervalMs >= 0)) throw new RangeError(`progress.intervalMs must be a number >= 0, got ${intervalMs}`);
  let nextReport = started + intervalMs;

  const shards: ShardAccess[] = [];
  for (let s = 0; s < k; s++) shards.push((s === 0 && options.engine ? options.engine : Engine.instantiate(module)).shardAccess());
  const reasonCode = shards[0].reasonCode;
  const inbox = shards.map((sh) => sh.exports.inboxAddress() >>> 0);
  const entryBytes = shards[0].exports.ENTRY_BYTES as unknown as WebAssembly.Global;
  const ENTRY = entryBytes.value as number;

  const sum = (f: (sh: ShardAccess) => number): number => shards.reduce((n, sh) => n + f(sh), 0);
  const counters = () => ({
    statesStored: sum((sh) => sh.exports.statesStored() >>> 0),
    statesExpanded: sum((sh) => sh.exports.expandedCount() >>> 0),
    memoryBytes: sum((sh) => sh.exports.memoryBytesUsed()),
  });
  const pollStop = (): number => {
    if (options.stop && Atomics.load(options.stop, 0) !== 0) return reasonCode.cancelled;
    const now = performance.now();
    if (options.progress && now >= nextReport) {
      nextReport = now + intervalMs;
      options.progress.onProgress({ ...counters(), elapsedMs: Math.round((now - started) * 1000) / 1000 });
    }
    return now > deadline ? reasonCode.timeout : 0;
  };
  shards.forEach((sh, s) => {
    sh.setHooks({
      pollStop,
      forward: (target, entries, count) => {
        if (target < 0 || target >= k || target === s) return FORWARD_FAILED;
        const dst = shards[target];
        const bytes = count * ENTRY;
        new Uint8Array(dst.exports.memory.buffer, inbox[target], bytes).set(new Uint8Array(sh.exports.memory.buffer, entries, bytes));
        return dst.exports.acceptChildren(count);
      },
    });
  });

  let goalShard = -1;
  let stopped = false;
  /** Layers below this one were handed to `options.onLayerKeys`. */
  let handedOver = 0;
  /** Hands the keys of the layers handedOver .. upTo - 1 to `options.onLayerKeys` (see ShardedOptions). */
  const handOver = (upTo: number): void => {
    const onLayerKeys = options.onLayerKeys;
    if (onLayerKeys === undefined) return;
    for (let l = handedOver; l < upTo && l < MAX_LAYERS; l++) {
      const counts = shards.map((sh) => sh.exports.layerCount(l) >>> 0);
      const total = counts.reduce((a, b) => a + b, 0);
      if (total === 0) continue;
      const keys = new Uint8Array(total * KEY_BYTES);
      let at = 0;
      shards.forEach((sh, s) => {
        if (counts[s] === 0) return;
        const e = sh.exports;
        if (e.beginLayerKeys(l) !== 1) throw new SolverError('engine_error', `shard ${s} can no longer read the keys of layer ${l}`);
        const buffer = e.exportBufferAddress() >>> 0;
        let got = 0;
        for (let n = e.exportLayerKeys(); n > 0; n = e.exportLayerKeys()) {
          if (got + n > counts[s]) break;
          keys.set(new Uint8Array(e.memory.buffer, buffer, n * KEY_BYTES), at);
          at += n * KEY_BYTES;
          got += n;
        }
        if (got !== counts[s]) throw new SolverError('engine_error', `shard ${s} exported ${got} keys of layer ${l}, which holds ${counts[s]}`);
      });
      onLayerKeys(l, keys, total);
    }
    handedOver = Math.max(handedOver, upTo);
  };
  /** Applies one step's (or begin's) answer of shard `s`; true when the pass must end. */
  const settle = (s: number, code: number): boolean => {
    if (code === STEP.goal) goalShard = s;
    else if (code === STEP.remoteGoal) goalShard = shards.findIndex((sh) => sh.exports.shardGoal() !== 0);
    else if (code === STEP.stopped) stopped = true;
    else return false;
    return true;
  };

  try {
    for (const sh of shards) {
      sh.writeInput(deal);
      sh.exports.setLayeredSearch(1);
    }
    let ended = false;
    for (let s = 0; s < k && !ended; s++) {
      const code = shards[s].exports.layeredShardBegin(perShardStates, perShardBytes, s, k, batch);
      if (shards[s].exports.layeredInUse() !== 1) {
        throw new SolverError('invalid_request', 'the layered pass does not apply to this board (its start columns do not fit the compact key)');
      }
      ended = settle(s, code);
    }
    // the layers in lockstep
    let layer = 0;
    while (!ended) {
      let open = true;
      while (open && !ended) {
        open = false;
        for (let s = 0; s < k && !ended; s++) {
          const code = shards[s].exports.layeredShardStep(STEP_BUDGET);
          ended = settle(s, code);
          if (code === STEP.more) open = true;
        }
        // a later shard may have forwarded children into an earlier one's layer
        if (!ended && !open) open = shards.some((sh) => sh.exports.layeredNextOpen(layer) === layer);
      }
      if (ended) break;
      const next = Math.min(...shards.map((sh) => sh.exports.layeredNextOpen(layer + 1)));
      if (next >= MAX_LAYERS) break;
      layer = next;
      // the layers below `next` close now: their keys go out before a purge can drop them
      handOver(layer);
      for (const sh of shards) sh.exports.layeredAdvance(layer);
    }

    const perShard = shards.map((sh) => ({
      stored: sh.exports.statesStored() >>> 0,
      expanded: sh.exports.expandedCount() >>> 0,
      peakLive: sh.exports.layeredPeakLive() >>> 0,
      liveAtEnd: sh.exports.layeredLiveAtEnd() >>> 0,
      memoryBytes: sh.exports.memoryBytesUsed(),
      forwarded: sh.exports.shardChildrenForwarded(),
      calls: sh.exports.shardForwardCalls(),
      purges: sh.exports.layeredPurges() >>> 0,
    }));
    const layerCounts: number[] = [];
    for (let l = 0; l < MAX_LAYERS; l++) layerCounts.push(sum((sh) => sh.exports.layerCount(l) >>> 0));
    const detail: ShardedDetail = { shards: k, perShard, layerCounts };
    const { statesStored, statesExpanded, memoryBytes } = counters();
    const stats = { statesExpanded, statesStored, elapsedMs: elapsedMsSince(started), memoryBytes };
    const layered = {
      peakLive: perShard.reduce((n, p) => n + p.peakLive, 0),
      purges: perShard.reduce((n, p) => n + p.purges, 0),
      shards: { count: k, peakLive: perShard.map((p) => p.peakLive) },
    };
    if (shards.some((sh) => sh.exports.layeredViolations() !== 0)) {
      throw new SolverError('engine_error', 'the layered pass made a child below the layer it expanded (its measure is broken)');
    }
    if (goalShard >= 0) {
      const moves = rebuildSolution(shards, goalShard, deal);
      requireCheckedSolution(deal, moves);
      return { verdict: 'solved', moves, stats, layered, detail };
    }
    if (stopped) {
      // the first shard (in shard order) that names a budget; a failed forward is its target's reason
      const code = shards.map((sh) => sh.exports.shardStopReason()).find((r) => r !== 0);
      const reason = (code !== undefined ? shards[0].reasons.get(code) : undefined) ?? 'memory';
      return { verdict: 'unknown', reason, moves: [], stats, layered, detail };
    }
    handOver(MAX_LAYERS);
    return { verdict: 'unsolvable', moves: [], stats, layered, detail };
  } finally {
    for (const sh of shards) {
      sh.exports.setLayeredSearch(0);
      sh.setHooks(undefined);
    }
  }
}

/**
 * The moves from the start to the won record of shard `goalShard`: its
 * parent references walked back across the shards to the start (record 1 of
 * the shard whose parent reference is 0), written to shard 0's path buffer
 * and replayed there from the start (`replaySolution`), which writes the
 * solution with its auto-moves.
 * @throws SolverError `engine_error` when a reference is broken, the path is
 *   too long for the buffer, or the replay does not end won.
 */
function rebuildSolution(shards: ShardAccess[], goalShard: number, deal: Deal): ReturnType<ShardAccess['readSolution']> {
  const path: number[] = [];
  let shard = goalShard;
  let index = shards[goalShard].exports.shardGoal() >>> 0;
  const capacity = shards[0].exports.pathCapacity();
  for (;;) {
    const e = shards[shard]?.exports;
    if (e === undefined || path.length > capacity) throw new SolverError('engine_error', 'the sharded layered pass has a broken parent chain');
    const parent = e.recordParentRef(index) >>> 0;
    if (parent === 0xffffffff) throw new SolverError('engine_error', 'the sharded layered pass has a broken parent chain');
    if (parent === 0) break;
    path.push(e.recordMoveBits(index) >>> 0);
    shard = parent >>> SHARD_SHIFT;
    index = parent & ((1 << SHARD_SHIFT) - 1);
  }
  const e0 = shards[0].exports;
  new Uint32Array(e0.memory.buffer, e0.pathAddress(), path.length).set(path);
  if (e0.replaySolution(path.length) !== 1) throw new SolverError('engine_error', 'the engine could not replay the sharded solution');
  return shards[0].readSolution(deal.rules.foundationBase);
}
