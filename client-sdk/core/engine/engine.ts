/**
 * The `Engine` class: one instance of the Wasm engine and the passes run on
 * it. A solve writes the deal into the engine's input block (memory.ts),
 * runs the search, and turns the solution buffer into moves the independent
 * checker replayed (checked.ts); the pooled search, the shortening and the
 * guided pass (beam-find.ts) run on the same instance, the sharded layered
 * pass over several (client-sdk/core/sharded-layers.ts, through
 * `shardAccess`). The module's interface is abi.ts's.
 */
import { NARROW_KEY_MAX_COLUMNS, type Deal, type Rules } from '../rules.js';
import { SolverError } from '../errors.js';
import { elapsedMsSince, type SolveLimits, type SolveOutcome, type UnknownReason } from '../solve-types.js';
import type { Move } from '../moves.js';
import { shortenSolution, type ShortenOptions } from '../shorten.js';
import { poolingApplies, poolRepresentatives, type SuitPools } from '../pools.js';
import { MAX_ENGINE_MEMORY_BYTES, readInterface, type EngineExports, type EngineInterface } from './abi.js';
import { EngineMemory } from './memory.js';
import { loadEngineModule } from './module.js';
import { DEFAULT_PROGRESS_INTERVAL_MS, SearchPoll, processCpuMs, wallClock, type ProgressOptions } from './poll.js';
import { requireCheckedPackedSolution, requireCheckedSolution } from './checked.js';
import { beamFind, type BeamFindOptions, type GuidedOutcome } from './beam-find.js';

/**
 * Where `Engine.solve` leaves a solution in the packed form of `packMoves`
 * (client-sdk/core/moves.ts, 8 bytes a move) instead of move objects:
 * `moves` is set to the checked solution when the verdict is `solved` (the
 * outcome's own `moves` is then empty), and left as it was otherwise. The
 * bytes are a view of a buffer the engine reuses: read or copy them before
 * its next solve. For a caller that stores or sends the moves as bytes (the
 * pool's workers, whose answers cross packed): no object is made a move.
 * Such an outcome cannot be handed to `Engine.shorten`, which starts from
 * the outcome's moves: solve without a sink when the solution is to be
 * shortened (server/pool-worker.ts does).
 */
export interface PackedSolutionSink {
  moves: Uint8Array | undefined;
}

/** Options of `Engine.solve`. */
export interface SolveOptions {
  /** The budget: positions stored, wall-clock ms, and which passes run (client-sdk/core/solve-types.ts). */
  limits: SolveLimits;
  /** Cancel flag, usually over a SharedArrayBuffer: nonzero at index 0 stops the search (`unknown`, `cancelled`). */
  stop?: Int32Array;
  /** Cap on the engine's linear memory for this solve, bytes (default and at most MAX_ENGINE_MEMORY_BYTES). */
  memoryLimitBytes?: number;
  /** Progress reports during the search (see `ProgressOptions`). */
  progress?: ProgressOptions;
  /**
   * When given, a solution is left there packed (checked the same way) and
   * the outcome's `moves` is empty (see `PackedSolutionSink`).
   */
  packedSolution?: PackedSolutionSink;
}

/** Options of `Engine.solvePooled`: `Engine.solve`'s but the packed sink (a pooled game's win has no solution). */
export type PooledSolveOptions = Omit<SolveOptions, 'packedSolution'>;

/** Options of `Engine.shorten`. */
export interface ShortenRunOptions {
  /** The shortening's budget and beams (client-sdk/core/shorten.ts). */
  optimize: ShortenOptions;
  /** Cancel flag, as `SolveOptions.stop`: the shortest solution found so far is kept. */
  stop?: Int32Array;
  /** Cap on the engine's linear memory, bytes (default and at most MAX_ENGINE_MEMORY_BYTES). */
  memoryLimitBytes?: number;
}

/** Options of `Engine.solveShort`: `Engine.solve`'s (no packed sink) and the shortening's budget. */
export interface SolveShortOptions extends PooledSolveOptions {
  optimize: ShortenOptions;
}

/**
 * What `Engine.solvePooled` answers: `unsolvable` (the pooled game has no
 * solution, so neither has the deal), `pooled_solvable` (proves nothing),
 * or `unknown` with the budget that ran out.
 */
export interface PooledOutcome {
  verdict: 'unsolvable' | 'pooled_solvable' | 'unknown';
  reason?: UnknownReason;
  pools: SuitPools;
  stats: SolveOutcome['stats'];
}

/**
 * True when the layered pass (`SolveLimits.layered`) can run under `rules`:
 * the compact layout's games (assembly/castle-key.ts `chooseLayout`): any-suit
 * building, no free cells, no wrapping ranks, whatever the empty-column rule
 * (Good Measure's emptied columns are never filled: docs/proofs.md "The
 * layer order"), and keys of 48 bytes, the layered certificate's, so at most
 * NARROW_KEY_MAX_COLUMNS columns (not Baker's Dozen's 13). (A board whose
 * start columns need more than 40 bits of prefix lengths gets the plain
 * eager search, still complete.)
 */
export function layeredApplies(rules: Rules): boolean {
  return rules.build === 'rank' && rules.freeCells === 0 && !rules.wrap && rules.columns <= NARROW_KEY_MAX_COLUMNS;
}

/** The hooks of the sharded layered pass (sharded-layers.ts): its stop poll, and where a shard's forwarded children go. */
type ShardHooks = { pollStop: () => number; forward: (target: number, entries: number, count: number) => number };

/** What `Engine.shardAccess` gives the sharded layered pass (client-sdk/core/sharded-layers.ts). @internal */
export interface ShardAccess {
  exports: Record<string, (...args: number[]) => number> & { memory: WebAssembly.Memory };
  reasons: Map<number, UnknownReason>;
  reasonCode: Record<UnknownReason, number>;
  writeInput(deal: Deal): void;
  readSolution(base: number): Move[];
  /** Installs (or with undefined removes) the host functions' hooks: the stop poll, and the forwarding of children to another shard. */
  setHooks(hooks: ShardHooks | undefined): void;
}

/**
 * One instance of the engine with its own linear memory; not thread-safe
 * (one solve at a time). Reuse it: its memory is kept between solves.
 */
export class Engine {
  private readonly exports: EngineExports;
  private readonly abi: EngineInterface;
  /** The input block and the solution buffer. */
  private readonly io: EngineMemory;
  /** What the engine's `pollStop` answers from. */
  private readonly poll: SearchPoll;
  /** The sharded layered pass's hooks, when this engine is one of its shards. */
  private shardHooks: ShardHooks | undefined;
  /** The last solve was the layered pass (or this engine became a shard): its stored keys are partly gone. */
  private lastLayered = false;
  /** Counters of the last `run`. */
  private lastStats: SolveOutcome['stats'] = { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 };

  /** The compiled module this engine is an instance of (the sharded layered pass makes more instances of it). */
  readonly module: WebAssembly.Module;

  private constructor(module: WebAssembly.Module) {
    this.module = module;
    const instance = new WebAssembly.Instance(module, {
      env: {
        abort: (_msg: number, _file: number, line: number, column: number) => {
          throw new SolverError('engine_error', `engine aborted at ${line}:${column}`);
        },
        pollStop: () => (this.shardHooks ? this.shardHooks.pollStop() : this.poll.check()),
        // only the sharded layered pass forwards children (assembly/shards.ts); 2 = FORWARD_FAILED
        forwardChildren: (target: number, entries: number, count: number) => (this.shardHooks ? this.shardHooks.forward(target, entries, count) : 2),
      },
    });
    this.abi = readInterface(instance.exports);
    this.exports = instance.exports as unknown as EngineExports;
    this.io = new EngineMemory(this.exports, this.abi);
    this.poll = new SearchPoll(this.exports, this.abi.reasonCode);
  }

  /**
   * Instantiates a compiled engine module (see `loadEngineModule`,
   * `compileEngine`). The module may be the release build or the tuning
   * build (assembly/tuning.ts), which exports the same functions and hooks besides.
   * @throws Error when the module lacks an export the glue needs (abi.ts `readInterface`).
   */
  static instantiate(module: WebAssembly.Module): Engine {
    return new Engine(module);
  }

  /** Compiles build/engine.wasm (once per process, `loadEngineModule`) and instantiates it. */
  static async create(): Promise<Engine> {
    return new Engine(await loadEngineModule());
  }

  /**
   * Bytes of the instance's linear memory as it is now (its high-water mark:
   * a Wasm memory grows and never shrinks). The pool recycles a worker whose
   * engine grew past `RECYCLE_MEMORY_MB` (server/pool.ts).
   */
  memorySize(): number {
    return this.exports.memory.buffer.byteLength;
  }

  /**
   * Solves a deal within `options.limits`. The search polls `options.stop`
   * and the deadline every few hundred positions.
   * The layout must already be valid for the rules (client-sdk/core/layout.ts
   * `validateLayout`). A solution is replayed by the independent checker
   * (client-sdk/core/verify.ts) before it is returned.
   * @throws SolverError `solution_check_failed` when the checker rejects the
   *   engine's solution, `engine_error` on an internal inconsistency;
   *   whatever `progress.onProgress` throws.
   * @throws RangeError when `progress.intervalMs` is not a number ≥ 0.
   */
  solve(deal: Deal, options: SolveOptions): SolveOutcome {
    return this.run(deal, options, undefined) as SolveOutcome;
  }

  /**
   * Searches the *pooled* game of a deal (client-sdk/core/pools.ts): suits
   * merged into `pools`, no auto-moves, an eager search to the end or to a
   * budget. `unsolvable` proves the real deal unsolvable (the stored set is
   * its pooled certificate: `fingerprint`, `storedKeys`); `pooled_solvable`
   * proves nothing and carries no solution; `unknown` names the budget.
   * `options.limits.layered` is ignored.
   * @throws RangeError when `pools` is not a canonical pooling; SolverError
   *   `bad_rules` when the rules look at suit (`poolingApplies`); as `solve`.
   */
  solvePooled(deal: Deal, pools: SuitPools, options: PooledSolveOptions): PooledOutcome {
    const representatives = poolRepresentatives(pools);
    if (!poolingApplies(deal.rules)) throw new SolverError('bad_rules', 'suits can be pooled only under rules whose tableau ignores suit (rank build, no wrap) in games of at most 11 columns (48-byte pooled keys)');
    const outcome = this.run(deal, options, representatives);
    if (outcome === 'pooled_solvable') return { verdict: 'pooled_solvable', pools, stats: this.lastStats };
    return { verdict: outcome.verdict as PooledOutcome['verdict'], ...(outcome.reason ? { reason: outcome.reason } : {}), pools, stats: outcome.stats };
  }

  /**
   * `solve` of the real game, or (with `pools`: the lowest suit of each
   * suit's pool) of the pooled game, where a win is `pooled_solvable` and
   * has no solution.
   */
  private run(deal: Deal, options: SolveOptions, pools: [number, number, number, number] | undefined): SolveOutcome | 'pooled_solvable' {
    const { limits, progress } = options;
    const intervalMs = progress?.intervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
    if (!(intervalMs >= 0)) throw new RangeError(`progress.intervalMs must be a number >= 0, got ${intervalMs}`);
    const started = performance.now();
    this.io.writeInput(deal, pools);
    const poll = this.poll;
    poll.stop = options.stop;
    poll.deadline = started + limits.timeoutMs;
    poll.startProgress(progress, started, intervalMs);
    const e = this.exports;
    let verdictCode: number;
    e.setLayeredSearch(limits.layered === true && pools === undefined ? 1 : 0);
    try {
      verdictCode = e.solve(limits.maxStates, Math.min(options.memoryLimitBytes ?? MAX_ENGINE_MEMORY_BYTES, MAX_ENGINE_MEMORY_BYTES));
    } finally {
      poll.stop = undefined;
      poll.progress = undefined;
      e.setLayeredSearch(0);
    }
    this.lastLayered = e.layeredInUse() === 1;
    const layered = this.lastLayered ? { layered: { peakLive: e.layeredPeakLive() >>> 0, purges: e.layeredPurges() >>> 0 } } : {};
    const stats = {
      statesExpanded: e.expandedCount(),
      statesStored: e.statesStored(),
      elapsedMs: elapsedMsSince(started),
      memoryBytes: e.memoryBytesUsed(),
    };
    const abi = this.abi;
    this.lastStats = stats;
    if (verdictCode === abi.verdictSolved && pools !== undefined) return 'pooled_solvable';
    if (verdictCode === abi.verdictUnsolvable) return { verdict: 'unsolvable', moves: [], stats, ...layered };
    if (verdictCode === abi.verdictUnknown) {
      return { verdict: 'unknown', reason: abi.reasons.get(e.lastStopReason()) ?? 'memory', moves: [], stats, ...layered };
    }
    if (verdictCode !== abi.verdictSolved) throw new SolverError('engine_error', 'the engine could not rebuild its solution');
    const sink = options.packedSolution;
    if (sink !== undefined) {
      const bytes = this.io.readSolutionPacked(deal.rules.foundationBase);
      requireCheckedPackedSolution(deal, bytes);
      sink.moves = bytes;
      return { verdict: 'solved', moves: [], stats, ...layered };
    }
    const moves = this.io.readSolution(deal.rules.foundationBase);
    requireCheckedSolution(deal, moves);
    return { verdict: 'solved', moves, stats, ...layered };
  }

  /**
   * Solves a deal and, when it is solved, spends `options.optimize.budgetMs`
   * more making the solution shorter (client-sdk/core/shorten.ts): the
   * answer of `solve` with the shortest checked solution found and
   * `optimize` saying how long the first one was. Unsolvable and unknown
   * answers are returned as `solve` gives them (no shortening, `optimize`
   * absent). The state table of the search is dropped by the shortening, so
   * call `fingerprint` and `storedKeys` only after `solve`.
   * @throws as `solve`.
   */
  solveShort(deal: Deal, options: SolveShortOptions): SolveOutcome {
    return this.shorten(deal, this.solve(deal, options), options);
  }

  /**
   * Shortens the solution of `outcome`, which must be what the last `solve`
   * of this engine returned for `deal` (the engine starts from the solution
   * still in its buffer); other verdicts come back unchanged. See `solveShort`.
   * @throws SolverError `solution_check_failed` when the checker rejects a
   *   shorter solution (client-sdk/core/shorten.ts).
   */
  shorten(deal: Deal, outcome: SolveOutcome, options: ShortenRunOptions): SolveOutcome {
    if (outcome.verdict !== 'solved') return outcome;
    const { optimize } = options;
    const memoryLimitBytes = Math.min(options.memoryLimitBytes ?? MAX_ENGINE_MEMORY_BYTES, MAX_ENGINE_MEMORY_BYTES);
    const e = this.exports;
    const base = deal.rules.foundationBase;
    const poll = this.poll;
    poll.stop = options.stop;
    poll.clock = optimize.cpuClock ? processCpuMs : wallClock;
    poll.deadline = poll.clock() + optimize.budgetMs;
    try {
      const { moves, report } = shortenSolution(deal.rules, deal.layout, outcome.moves, {
        begin: (width) => e.shortenBegin(width, memoryLimitBytes),
        beam: (width, prefix) => e.shortenBeam(width, prefix),
        pathMoves: () => e.shortenPathMoves(),
        weights: (notHome, unsorted, cells, empty, blockers) => e.setBeamWeights(notHome, unsorted, cells, empty, blockers),
        stopped: () => e.shortenStopped() !== 0,
        read: () => (e.shortenWrite() !== 0 ? this.io.readSolution(base) : null),
        now: poll.clock,
        deadline: poll.deadline,
      }, optimize);
      return { ...outcome, moves, optimize: report, stats: { ...outcome.stats, memoryBytes: Math.max(outcome.stats.memoryBytes, e.shortenMemoryBytes()) } };
    } finally {
      poll.stop = undefined;
      poll.clock = wallClock;
    }
  }

  /**
   * The guided pass (docs/search.md §10, beam-find.ts): beams from the start
   * of `deal` with no solution known, one after the other in the order
   * given, until one reaches a goal, the list ends, the deadline passes or
   * `options.stop` is set. A found solution is replayed by the independent
   * checker (client-sdk/core/verify.ts) before it is returned. Not finding
   * one proves nothing: the caller may only add a `solved` verdict with it,
   * never an `unsolvable` one. The beams take the engine's arena, so the
   * state table of the last solve is gone afterwards.
   * @throws SolverError `solution_check_failed` when the checker rejects a
   *   beam's solution, `engine_error` on an internal inconsistency.
   */
  beamFind(deal: Deal, options: BeamFindOptions): GuidedOutcome {
    return beamFind({ exports: this.exports, io: this.io, poll: this.poll }, deal, options);
  }

  /**
   * Fingerprint of the positions the last solve stored: the sum modulo 2^64
   * of the FNV-1a 64-bit hash of each canonical key, as 16 hex digits
   * (docs/proofs.md). Meaningful after an `unsolvable` verdict, when the
   * stored set is the whole reachable space.
   * @throws SolverError `engine_error` after the layered pass, which keeps no stored set.
   */
  fingerprint(): string {
    if (this.lastLayered) throw new SolverError('engine_error', 'the layered pass keeps no stored set to fingerprint');
    const low = this.exports.fingerprintLowBits() >>> 0;
    const high = this.exports.fingerprintHighBits() >>> 0;
    return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
  }

  /** Bytes of one canonical key (assembly/key.ts documents the encoding). */
  get keyBytes(): number {
    return this.exports.keyBytes();
  }

  /**
   * The canonical keys of every position the last solve stored, `keyBytes`
   * bytes each, in the order they were found; `null` when there are more
   * than `maxPositions` (the caller's size cap) or the last solve was the
   * layered pass.
   */
  storedKeys(maxPositions: number): Uint8Array | null {
    const e = this.exports;
    const total = e.statesStored();
    if (total > maxPositions || this.lastLayered) return null;
    const size = e.keyBytes();
    const out = new Uint8Array(total * size);
    let first = 1;
    while (first <= total) {
      const count = e.exportKeys(first);
      if (count === 0) break;
      out.set(new Uint8Array(e.memory.buffer, e.exportBufferAddress(), count * size), (first - 1) * size);
      first += count;
    }
    return out;
  }

  /**
   * The raw module of this engine for the sharded layered pass
   * (client-sdk/core/sharded-layers.ts), which drives K engines itself:
   * their exports and interface, the input writer, the solution reader, and
   * the hooks its host functions call. Not part of the SDK's API.
   * @internal
   */
  shardAccess(): ShardAccess {
    return {
      exports: this.exports as unknown as ShardAccess['exports'],
      reasons: this.abi.reasons,
      reasonCode: this.abi.reasonCode,
      writeInput: (deal) => this.io.writeInput(deal, undefined),
      readSolution: (base) => this.io.readSolution(base),
      setHooks: (hooks) => {
        this.shardHooks = hooks;
        // this engine's table is now a shard's: no stored set to export or fingerprint
        this.lastLayered = true;
      },
    };
  }

  /**
   * The module's exports as they are, for the tests and tools that drive
   * the hooks of the tuning build (assembly/tuning.ts;
   * tests/helpers/tuning-engine.ts). Not part of the SDK's API.
   * @internal
   */
  moduleExports(): WebAssembly.Exports {
    return this.exports as unknown as WebAssembly.Exports;
  }
}
