/**
 * The Wasm engine glue: compiles the AssemblyScript engine once, instantiates
 * it per thread, writes a deal into its input block, runs the search, and
 * turns the solution buffer into checked `Move`s.
 *
 * The engine is the one definition of its interface: the rule, verdict and
 * reason codes and the offsets of the input block and the output buffer are
 * exported globals of the module (assembly/index.ts; layouts documented in
 * assembly/search.ts and assembly/output.ts). `readInterface` reads them when
 * a module is instantiated and throws when one is missing, so a glue and a
 * module out of step fail at start instead of searching the wrong position.
 */
import { cardToString, rankOf, suitOf, makeCard, type Card } from './cards.js';
import { BUILD_RULES, EMPTY_COLUMN_RULES, SEQUENCE_MOVE_RULES, type Deal, type Rules } from './rules.js';
import { MOVE_SOURCES, MOVE_TARGETS, PACKED_MOVE_BYTES, type Move } from './moves.js';
import { SolverError } from './errors.js';
import { elapsedMsSince, UNKNOWN_REASONS, type SolveLimits, type SolveOutcome, type UnknownReason } from './solve-types.js';
import { checkPackedSolution, checkSolution, type CheckResult } from './verify.js';
import { shortenSolution, type ShortenOptions } from './shorten.js';
import { poolingApplies, poolRepresentatives, type SuitPools } from './pools.js';

/*
 * The words come from the vocabularies (BUILD_RULES, ..., UNKNOWN_REASONS,
 * MOVE_SOURCES, MOVE_TARGETS); the module exports the code of word `w` as
 * `PREFIX_W` in upper case: `BUILD_SUIT_UP_OR_DOWN`, `EMPTY_KINGS`,
 * `SEQ_CELLS_PLUS_ONE`, `REASON_MAX_STATES`, `TARGET_FOUNDATION`.
 */

/** The engine's interface constants, as read from one instantiated module (see `readInterface`). */
interface EngineInterface {
  build: Record<string, number>;
  empty: Record<string, number>;
  sequence: Record<string, number>;
  /** Engine reason code → the API's unknown reason. */
  reasons: Map<number, UnknownReason>;
  reasonCode: Record<UnknownReason, number>;
  verdictSolved: number;
  verdictUnsolvable: number;
  verdictUnknown: number;
  /** Input block: its size and the byte offset of each field (assembly/search.ts). */
  input: {
    bytes: number; columns: number; cells: number; build: number; empty: number; sequence: number; wrap: number;
    pooled: number; pools: number; foundations: number; freeCells: number; lengths: number; cards: number; columnStride: number;
  };
  /** Output buffer: bytes per move and the offset of each field (assembly/output.ts). */
  output: {
    moveBytes: number; sourceKind: number; sourceIndex: number; targetKind: number; targetIndex: number;
    count: number; card: number; auto: number;
  };
  /** Engine source / target kind code → the move's `from` / `to`. */
  sources: Map<number, Move['from']>;
  targets: Map<number, Move['to']>;
}

/**
 * Replays a solution the engine found from `deal`'s start through the
 * independent checker (client-sdk/core/verify.ts `checkSolution`); every
 * solution the engine hands out passes through here first.
 * @param whose the solution's owner in the error text ("the solution", "the guided pass's solution").
 * @throws SolverError `solution_check_failed` naming the first move the checker rejected (1-based) and why.
 */
export function requireCheckedSolution(deal: Deal, moves: Move[], whose = 'the solution'): void {
  requirePassed(checkSolution(deal.rules, deal.layout, moves), whose);
}

/**
 * `requireCheckedSolution` of a solution packed by `packMoves`
 * (client-sdk/core/moves.ts), replayed by verify.ts `checkPackedSolution`.
 * @throws SolverError `solution_check_failed` as `requireCheckedSolution`.
 */
export function requireCheckedPackedSolution(deal: Deal, packed: Uint8Array, whose = 'the solution'): void {
  requirePassed(checkPackedSolution(deal.rules, deal.layout, packed), whose);
}

/** Throws SolverError `solution_check_failed` for a refused `check`, naming its first bad move (1-based) and why. */
function requirePassed(check: CheckResult, whose: string): void {
  if (!check.ok) throw new SolverError('solution_check_failed', `${whose} failed the independent check at move ${check.moveIndex + 1}: ${check.reason}`);
}

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
 * shortened (server/worker.ts does).
 */
export interface PackedSolutionSink {
  moves: Uint8Array | undefined;
}

/**
 * True when the layered pass (`SolveLimits.layered`) can run under `rules`:
 * the compact layout's games (assembly/castle-key.ts `chooseLayout`): any-suit
 * building, no free cells, no wrapping ranks. (A board whose start columns
 * need more than 32 bits of prefix lengths gets the plain eager search, still
 * complete.)
 */
export function layeredApplies(rules: Rules): boolean {
  return rules.build === 'rank' && rules.freeCells === 0 && !rules.wrap;
}

/** Engine functions the glue calls; checked to exist at instantiation. */
const FUNCTIONS = [
  'inputAddress', 'outputAddress', 'outputMoveCount', 'expandedCount', 'solve', 'lastStopReason', 'statesStored',
  'memoryBytesUsed', 'keyBytes', 'exportBufferAddress', 'exportKeys', 'fingerprintLowBits', 'fingerprintHighBits',
  'setLayeredSearch', 'layeredInUse', 'layeredPeakLive', 'layeredPurges', 'beamFindBegin',
] as const;

/**
 * Reads the interface constants of an instantiated engine module.
 * @throws Error naming the first missing export (a module built from another
 *   version of assembly/: run `npm run asbuild`), or codes of one rule that
 *   are not distinct.
 */
function readInterface(exports: WebAssembly.Exports): EngineInterface {
  const constant = (name: string): number => {
    const g = exports[name];
    if (!(g instanceof WebAssembly.Global)) {
      throw new Error(`the engine module does not export ${name}: build/engine.wasm and client-sdk/engine.ts are out of step (run npm run asbuild)`);
    }
    return g.value as number;
  };
  for (const name of FUNCTIONS) {
    if (typeof exports[name] !== 'function') {
      throw new Error(`the engine module does not export the function ${name}: build/engine.wasm and client-sdk/engine.ts are out of step (run npm run asbuild)`);
    }
  }
  const codes = (prefix: string, words: readonly string[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const word of words) out[word] = constant(`${prefix}_${word.toUpperCase()}`);
    if (new Set(Object.values(out)).size !== Object.keys(out).length) throw new Error(`the engine module's ${prefix}_* codes are not distinct`);
    return out;
  };
  const reasonCode = codes('REASON', UNKNOWN_REASONS) as Record<UnknownReason, number>;
  const sourceCode = codes('SOURCE', MOVE_SOURCES);
  const targetCode = codes('TARGET', MOVE_TARGETS);
  return {
    build: codes('BUILD', BUILD_RULES),
    empty: codes('EMPTY', EMPTY_COLUMN_RULES),
    sequence: codes('SEQ', SEQUENCE_MOVE_RULES),
    reasons: new Map(Object.entries(reasonCode).map(([word, code]) => [code, word as UnknownReason])),
    reasonCode,
    verdictSolved: constant('VERDICT_SOLVED'),
    verdictUnsolvable: constant('VERDICT_UNSOLVABLE'),
    verdictUnknown: constant('VERDICT_UNKNOWN'),
    input: {
      bytes: constant('INPUT_BYTES'), columns: constant('IN_COLUMNS'), cells: constant('IN_CELLS'), build: constant('IN_BUILD'),
      empty: constant('IN_EMPTY'), sequence: constant('IN_SEQUENCE'), wrap: constant('IN_WRAP'),
      pooled: constant('IN_POOLED'), pools: constant('IN_POOLS'),
      foundations: constant('IN_FOUNDATIONS'), freeCells: constant('IN_FREE_CELLS'), lengths: constant('IN_LENGTHS'),
      cards: constant('IN_CARDS'), columnStride: constant('IN_COLUMN_STRIDE'),
    },
    output: {
      moveBytes: constant('OUTPUT_MOVE_BYTES'), sourceKind: constant('OUT_SOURCE_KIND'), sourceIndex: constant('OUT_SOURCE_INDEX'),
      targetKind: constant('OUT_TARGET_KIND'), targetIndex: constant('OUT_TARGET_INDEX'), count: constant('OUT_COUNT'),
      card: constant('OUT_CARD'), auto: constant('OUT_AUTO'),
    },
    sources: new Map(MOVE_SOURCES.map((word) => [sourceCode[word], word])),
    targets: new Map(MOVE_TARGETS.map((word) => [targetCode[word], word])),
  };
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

/** Largest Wasm memory Node 20 allows (65,536 pages less one, as the engine keeps its arena below 0xffff0000). */
export const MAX_ENGINE_MEMORY_BYTES = 0xffff0000;

/**
 * The engine functions the glue calls. Written here rather than imported from
 * the compiler's build/engine.d.ts because build/ is generated (and ignored
 * by git), and type checking must not need a Wasm build first; their
 * presence is checked at instantiation (FUNCTIONS).
 */
interface EngineExports {
  memory: WebAssembly.Memory;
  inputAddress(): number;
  outputAddress(): number;
  outputMoveCount(): number;
  expandedCount(): number;
  solve(maxStates: number, memoryLimitBytes: number): number;
  lastStopReason(): number;
  statesStored(): number;
  memoryBytesUsed(): number;
  keyBytes(): number;
  exportBufferAddress(): number;
  exportKeys(first: number): number;
  fingerprintLowBits(): number;
  fingerprintHighBits(): number;
  // the layered pass (assembly/layers.ts)
  setLayeredSearch(on: number): void;
  layeredInUse(): number;
  layeredPeakLive(): number;
  layeredPurges(): number;
  // shortening (assembly/beam.ts)
  shortenBegin(width: number, memoryLimitBytes: number): number;
  shortenBeam(width: number, prefix: number): number;
  shortenWrite(): number;
  shortenPathMoves(): number;
  shortenStopped(): number;
  shortenMemoryBytes(): number;
  setBeamWeights(notHome: number, unsorted: number, cells: number, emptyColumns: number, blockers: number): void;
  // the guided pass (assembly/beam.ts beamFindBegin)
  beamFindBegin(width: number, memoryLimitBytes: number, maxLevels: number, globalSeenLog2: number): number;
  beamMostHome: WebAssembly.Global;
  beamLevelsReached: WebAssembly.Global;
  beamOutOfMemory: WebAssembly.Global;
  beamExpanded: WebAssembly.Global;
}

/**
 * One beam of a guided pass (`Engine.beamFind`): its width (positions per
 * level) and cost weights (assembly/beam.ts `setBeamWeights`: cards not
 * home, cards above the bottom sorted run, occupied cells, empty columns as
 * a bonus, blockers).
 */
export interface GuidedBeam {
  width: number;
  /** Deepest level the beam may reach, counted moves (2..512; default 512, assembly/beam.ts MAX_LEVELS). */
  maxLevels?: number;
  /**
   * log2 of the slots (8 bytes each, 10..28) of a duplicate set over all the
   * beam's levels; 0 or absent: per-level sets only, as the shortening.
   */
  globalSeenLog2?: number;
  weights: readonly [notHome: number, unsorted: number, cells: number, emptyColumns: number, blockers: number];
}

/** What one beam of a guided pass did (`GuidedOutcome.beams`). */
export interface GuidedBeamReport extends GuidedBeam {
  /** The beam reached a goal (its solution is the outcome's, once the checker passed it). */
  found: boolean;
  /** The deadline or a cancel stopped it before its end. */
  stopped: boolean;
  /** The memory cap left no room for its next level: it ended there. */
  outOfMemory: boolean;
  /** Positions it expanded. */
  expanded: number;
  /** Deepest level it expanded (counted moves from the start). */
  levels: number;
  /** Most cards on the foundations in a position it expanded (52 = won). */
  mostHome: number;
  /** Wall-clock ms it ran. */
  elapsedMs: number;
}

/**
 * What `Engine.beamFind` found: `solved` with a solution the independent
 * checker replayed, or `not_found` (which proves nothing: the beams are not
 * complete searches; `reason` says whether they ran to their ends or the
 * deadline, a cancel, the memory or the cap on expanded positions stopped them).
 */
export interface GuidedOutcome {
  verdict: 'solved' | 'not_found';
  reason?: 'exhausted' | 'timeout' | 'cancelled' | 'memory' | 'max_states';
  moves: Move[];
  beams: GuidedBeamReport[];
  stats: { elapsedMs: number; memoryBytes: number; statesExpanded: number };
}

/** What `Engine.shardAccess` gives the sharded layered pass (client-sdk/core/sharded-layers.ts). @internal */
export interface ShardAccess {
  exports: Record<string, (...args: number[]) => number> & { memory: WebAssembly.Memory };
  reasons: Map<number, UnknownReason>;
  reasonCode: Record<UnknownReason, number>;
  writeInput(deal: Deal): void;
  readSolution(base: number): Move[];
  /** Installs (or with undefined removes) the host functions' hooks: the stop poll, and the forwarding of children to another shard. */
  setHooks(hooks: { pollStop: () => number; forward: (target: number, entries: number, count: number) => number } | undefined): void;
}

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * Where the engine's Wasm can come from: an already compiled module, its
 * bytes, a fetch `Response`, or a URL (`file:` read from disk under Node,
 * anything else fetched).
 */
export type EngineSource = WebAssembly.Module | ArrayBuffer | ArrayBufferView | Response | URL | string;

/**
 * Compiles the engine from `source` (see `EngineSource`). Works in Node and in
 * browsers: nothing here imports a Node module unless `source` is a `file:`
 * URL, and that import is dynamic, so bundlers leave it out of browser code.
 * @throws Error when the URL cannot be fetched (with its HTTP status) or the
 *   bytes are not a valid Wasm module.
 */
export async function compileEngine(source: EngineSource): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (typeof Response !== 'undefined' && source instanceof Response) {
    if (!source.ok) throw new Error(`cannot load the engine: HTTP ${source.status} for ${source.url}`);
    return WebAssembly.compile(await source.arrayBuffer());
  }
  if (typeof source === 'string' || source instanceof URL) {
    const url = new URL(source, typeof location !== 'undefined' ? location.href : undefined);
    if (url.protocol === 'file:') {
      // A variable specifier keeps bundlers from pulling node:fs into browser code.
      const fsModule = 'node:fs/promises';
      const { readFile } = (await import(/* @vite-ignore */ fsModule)) as typeof import('node:fs/promises');
      return WebAssembly.compile(await readFile(url));
    }
    return compileEngine(await fetch(url));
  }
  return WebAssembly.compile(source as BufferSource);
}

/**
 * Compiles `build/engine.wasm` (resolved through the package.json `imports`
 * entry `#engine-wasm`) once per process and returns the module; it can be
 * passed to worker threads, which instantiate it with `Engine.instantiate`.
 * Node only (browsers: `compileEngine` with the Wasm file's URL).
 * @throws when the file is missing (run `npm run asbuild`).
 */
export function loadEngineModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => compileEngine(new URL(import.meta.resolve('#engine-wasm'))))();
  return compiled;
}

/** CPU time (user + system) of this process so far, ms; the wall clock where there is no `process` (browsers). */
function processCpuMs(): number {
  if (typeof process === 'undefined' || typeof process.cpuUsage !== 'function') return performance.now();
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Relative rank used inside the engine: the foundation base becomes 1 (assembly/rules.ts). */
function toEngineCard(card: Card, base: number): number {
  return makeCard(((rankOf(card) - base + 13) % 13) + 1, suitOf(card));
}

/** `Engine.packedKinds` entry of a kind code the engine's interface does not name. */
const UNKNOWN_KIND = 255;

function fromEngineCard(code: number, base: number): Card {
  return makeCard(((rankOf(code) - 1 + base - 1) % 13) + 1, suitOf(code));
}

/**
 * One report of a running solve (see `ProgressOptions`): the engine's
 * counters read between two of its polls.
 */
export interface SolveProgress {
  /** Positions in the state table so far. */
  statesStored: number;
  /** Positions expanded so far (both phases). */
  statesExpanded: number;
  /** Engine linear memory the search holds, bytes (the larger of its two phases so far). */
  memoryBytes: number;
  /** Wall-clock time since the solve started, ms. */
  elapsedMs: number;
}

/**
 * Progress reports of a long solve. The engine calls its host's `pollStop`
 * every 512 positions taken from its open lists (assembly/search.ts
 * `POLL_INTERVAL`; a table's rehash polls too); at a poll at least
 * `intervalMs` after the last report (or the start) the glue reads the
 * engine's counters and calls `onProgress`, synchronously, inside the
 * search: keep it short. It is never called after `solve` has returned, nor
 * during a shortening. A throw from `onProgress` ends the search, and
 * `solve` throws it.
 */
export interface ProgressOptions {
  onProgress: (progress: SolveProgress) => void;
  /** Least time between two reports, ms of wall clock; default 1000. */
  intervalMs?: number;
}

/** Least time between two progress reports when `ProgressOptions.intervalMs` is not given, ms. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 1000;

/**
 * One instance of the engine with its own linear memory; not thread-safe
 * (one solve at a time). Reuse it: its memory is kept between solves.
 */
export class Engine {
  private readonly exports: EngineExports;
  private readonly abi: EngineInterface;
  private stopFlag: Int32Array | undefined;
  private deadline = 0;
  /** The clock `deadline` is read on: wall clock, or (a shortening with `cpuClock`) this process's CPU time. */
  private clock: () => number = () => performance.now();
  /** Pool of each suit (its lowest suit) for the running pooled solve; undefined for the real game. */
  private pools: [number, number, number, number] | undefined;
  /** The running solve's progress reports (undefined outside `solve`). */
  private progress: { onProgress: (p: SolveProgress) => void; intervalMs: number; started: number; next: number } | undefined;
  /** The sharded layered pass's hooks (sharded-layers.ts): its stop poll, and where this shard's forwarded children go. */
  private shardHooks: { pollStop: () => number; forward: (target: number, entries: number, count: number) => number } | undefined;

  /** The compiled module this engine is an instance of (the sharded layered pass makes more instances of it). */
  readonly module: WebAssembly.Module;

  private constructor(module: WebAssembly.Module) {
    this.module = module;
    const instance = new WebAssembly.Instance(module, {
      env: {
        abort: (_msg: number, _file: number, line: number, column: number) => {
          throw new SolverError('engine_error', `engine aborted at ${line}:${column}`);
        },
        pollStop: () => (this.shardHooks ? this.shardHooks.pollStop() : this.pollStop()),
        // only the sharded layered pass forwards children (assembly/shards.ts); 2 = FORWARD_FAILED
        forwardChildren: (target: number, entries: number, count: number) => (this.shardHooks ? this.shardHooks.forward(target, entries, count) : 2),
      },
    });
    this.abi = readInterface(instance.exports);
    this.exports = instance.exports as unknown as EngineExports;
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
   * Instantiates a compiled engine module (see `loadEngineModule`).
   * @throws Error when the module lacks an export the glue needs (see `readInterface`).
   */
  static instantiate(module: WebAssembly.Module): Engine {
    return new Engine(module);
  }

  /** Compiles (once per process) and instantiates an engine. */
  static async create(): Promise<Engine> {
    return new Engine(await loadEngineModule());
  }

  private pollStop(): number {
    if (this.stopFlag && Atomics.load(this.stopFlag, 0) !== 0) return this.abi.reasonCode.cancelled;
    const now = this.clock();
    if (this.progress !== undefined && now >= this.progress.next) this.reportProgress(now);
    if (now > this.deadline) return this.abi.reasonCode.timeout;
    if (this.beamCap > 0 && Number(this.exports.beamExpanded.value) >>> 0 >= this.beamCap) return this.abi.reasonCode.max_states;
    return 0;
  }

  /** Most positions the running beam of `beamFind` may expand (0: no cap). */
  private beamCap = 0;
  /** `beamFind` is running (progress reports read the beams' counters), and the positions its earlier beams expanded. */
  private beamRunning = false;
  private beamBefore = 0;

  /** Calls the running solve's `onProgress` with the engine's counters now (`now`: performance.now()). */
  private reportProgress(now: number): void {
    const p = this.progress!;
    p.next = now + p.intervalMs;
    const e = this.exports;
    // during the guided pass (beamFind) the beams' own counters: the positions they expanded, their memory
    const beam = this.beamRunning;
    const beamExpanded = beam ? this.beamBefore + (Number(e.beamExpanded.value) >>> 0) : 0;
    p.onProgress({
      statesStored: beam ? beamExpanded : e.statesStored() >>> 0,
      statesExpanded: beam ? beamExpanded : e.expandedCount() >>> 0,
      memoryBytes: beam ? e.shortenMemoryBytes() : e.memoryBytesUsed(),
      elapsedMs: Math.round((now - p.started) * 1000) / 1000,
    });
  }

  /**
   * Solves a deal within `limits`. The search polls `stop` (an Int32Array,
   * usually over a SharedArrayBuffer; nonzero at index 0 = cancel) and the
   * deadline every few hundred positions.
   * The layout must already be valid for the rules (client-sdk/core/layout.ts
   * `validateLayout`). A solution is replayed by the independent checker
   * (client-sdk/core/verify.ts) before it is returned.
   * @param memoryLimitBytes cap on the engine's linear memory for this solve.
   * @param progress progress reports during the search (see `ProgressOptions`).
   * @param packed when given, a solution is left there packed (checked the
   *   same way) and the outcome's `moves` is empty (see `PackedSolutionSink`).
   * @throws SolverError `solution_check_failed` when the checker rejects the
   *   engine's solution, `engine_error` on an internal inconsistency;
   *   whatever `progress.onProgress` throws.
   * @throws RangeError when `progress.intervalMs` is not a number ≥ 0.
   */
  solve(deal: Deal, limits: SolveLimits, stop?: Int32Array, memoryLimitBytes = MAX_ENGINE_MEMORY_BYTES, progress?: ProgressOptions, packed?: PackedSolutionSink): SolveOutcome {
    this.pools = undefined;
    return this.run(deal, limits, stop, memoryLimitBytes, progress, packed) as SolveOutcome;
  }

  /** The last `run` was the layered pass: its stored keys are partly gone. */
  private lastLayered = false;

  /** Counters of the last `run`. */
  private lastStats: SolveOutcome['stats'] = { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 };

  /** `solve` of the real game, or (with `this.pools`) of the pooled game, where a win is `pooled_solvable` and has no solution. */
  private run(deal: Deal, limits: SolveLimits, stop: Int32Array | undefined, memoryLimitBytes: number, progress: ProgressOptions | undefined, packed?: PackedSolutionSink): SolveOutcome | 'pooled_solvable' {
    const intervalMs = progress?.intervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
    if (!(intervalMs >= 0)) throw new RangeError(`progress.intervalMs must be a number >= 0, got ${intervalMs}`);
    const started = performance.now();
    this.writeInput(deal);
    this.stopFlag = stop;
    this.deadline = started + limits.timeoutMs;
    this.progress = progress && { onProgress: progress.onProgress, intervalMs, started, next: started + intervalMs };
    const e = this.exports;
    let verdictCode: number;
    e.setLayeredSearch(limits.layered === true && this.pools === undefined ? 1 : 0);
    try {
      verdictCode = e.solve(limits.maxStates, Math.min(memoryLimitBytes, MAX_ENGINE_MEMORY_BYTES));
    } finally {
      this.stopFlag = undefined;
      this.progress = undefined;
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
    if (verdictCode === abi.verdictSolved && this.pools !== undefined) return 'pooled_solvable';
    if (verdictCode === abi.verdictUnsolvable) return { verdict: 'unsolvable', moves: [], stats, ...layered };
    if (verdictCode === abi.verdictUnknown) {
      return { verdict: 'unknown', reason: abi.reasons.get(e.lastStopReason()) ?? 'memory', moves: [], stats, ...layered };
    }
    if (verdictCode !== abi.verdictSolved) throw new SolverError('engine_error', 'the engine could not rebuild its solution');
    if (packed !== undefined) {
      const bytes = this.readSolutionPacked(deal.rules.foundationBase);
      requireCheckedPackedSolution(deal, bytes);
      packed.moves = bytes;
      return { verdict: 'solved', moves: [], stats, ...layered };
    }
    const moves = this.readSolution(deal.rules.foundationBase);
    requireCheckedSolution(deal, moves);
    return { verdict: 'solved', moves, stats, ...layered };
  }

  /**
   * Searches the *pooled* game of a deal (client-sdk/core/pools.ts): suits
   * merged into `pools`, no auto-moves, an eager search to the end or to a
   * budget. `unsolvable` proves the real deal unsolvable (the stored set is
   * its pooled certificate: `fingerprint`, `storedKeys`); `pooled_solvable`
   * proves nothing and carries no solution; `unknown` names the budget.
   * @throws RangeError when `pools` is not a canonical pooling; SolverError
   *   `bad_rules` when the rules look at suit (`poolingApplies`); as `solve`.
   */
  solvePooled(deal: Deal, pools: SuitPools, limits: SolveLimits, stop?: Int32Array, memoryLimitBytes = MAX_ENGINE_MEMORY_BYTES, progress?: ProgressOptions): PooledOutcome {
    const representatives = poolRepresentatives(pools);
    if (!poolingApplies(deal.rules)) throw new SolverError('bad_rules', 'suits can be pooled only under rules whose tableau ignores suit (rank build, no wrap)');
    this.pools = representatives;
    let outcome: SolveOutcome | 'pooled_solvable';
    try {
      outcome = this.run(deal, limits, stop, memoryLimitBytes, progress);
    } finally {
      this.pools = undefined;
    }
    if (outcome === 'pooled_solvable') return { verdict: 'pooled_solvable', pools, stats: this.lastStats };
    return { verdict: outcome.verdict as PooledOutcome['verdict'], ...(outcome.reason ? { reason: outcome.reason } : {}), pools, stats: outcome.stats };
  }

  /**
   * Solves a deal and, when it is solved, spends `options.budgetMs` more
   * making the solution shorter (client-sdk/core/shorten.ts): the answer of
   * `solve` with the shortest checked solution found and `optimize` saying
   * how long the first one was. Unsolvable and unknown answers are returned
   * as `solve` gives them (no shortening, `optimize` absent). The state table
   * of the search is dropped by the shortening, so call `fingerprint` and
   * `storedKeys` only after `solve`.
   * @throws as `solve`.
   */
  solveShort(deal: Deal, limits: SolveLimits, options: ShortenOptions, stop?: Int32Array, memoryLimitBytes = MAX_ENGINE_MEMORY_BYTES): SolveOutcome {
    return this.shorten(deal, this.solve(deal, limits, stop, memoryLimitBytes), options, stop, memoryLimitBytes);
  }

  /**
   * Shortens the solution of `outcome`, which must be what the last `solve`
   * of this engine returned for `deal` (the engine starts from the solution
   * still in its buffer); other verdicts come back unchanged. See `solveShort`.
   */
  shorten(deal: Deal, outcome: SolveOutcome, options: ShortenOptions, stop?: Int32Array, memoryLimitBytes = MAX_ENGINE_MEMORY_BYTES): SolveOutcome {
    if (outcome.verdict !== 'solved') return outcome;
    const e = this.exports;
    const base = deal.rules.foundationBase;
    this.stopFlag = stop;
    this.clock = options.cpuClock ? processCpuMs : () => performance.now();
    this.deadline = this.clock() + options.budgetMs;
    try {
      const { moves, report } = shortenSolution(deal.rules, deal.layout, outcome.moves, {
        begin: (width) => e.shortenBegin(width, Math.min(memoryLimitBytes, MAX_ENGINE_MEMORY_BYTES)),
        beam: (width, prefix) => e.shortenBeam(width, prefix),
        pathMoves: () => e.shortenPathMoves(),
        weights: (notHome, unsorted, cells, empty, blockers) => e.setBeamWeights(notHome, unsorted, cells, empty, blockers),
        stopped: () => e.shortenStopped() !== 0,
        read: () => (e.shortenWrite() !== 0 ? this.readSolution(base) : null),
        now: this.clock,
        deadline: this.deadline,
      }, options);
      return { ...outcome, moves, optimize: report, stats: { ...outcome.stats, memoryBytes: Math.max(outcome.stats.memoryBytes, e.shortenMemoryBytes()) } };
    } finally {
      this.stopFlag = undefined;
      this.clock = () => performance.now();
    }
  }

  /**
   * The guided pass (docs/search.md §10): beams from the start of `deal`
   * with no solution known (assembly/beam.ts `beamFindBegin`), one after the
   * other in the order given, until one reaches a goal, the list ends, the
   * deadline (`timeoutMs` of wall clock from the call) passes or `stop` is
   * set. A found solution is replayed by the independent checker
   * (client-sdk/core/verify.ts) before it is returned. Not finding one
   * proves nothing: the caller may only add a `solved` verdict with it,
   * never an `unsolvable` one. The beams take the engine's arena, so the
   * state table of the last solve is gone afterwards.
   * @param beams widths (1..2,097,152) and cost weights, tried in order.
   * @param memoryLimitBytes cap on the engine's linear memory; a beam that
   *   cannot get its level arrays ends there (`reason: 'memory'`).
   * @param maxExpanded most positions all the beams together may expand
   *   (the solve's state budget; `reason: 'max_states'` when it ends them).
   * @param progress progress reports as `solve`'s, with the positions the
   *   beams expanded as both counts and the beams' memory.
   * @throws SolverError `solution_check_failed` when the checker rejects a
   *   beam's solution, `engine_error` on an internal inconsistency.
   */
  beamFind(deal: Deal, beams: readonly GuidedBeam[], timeoutMs: number, stop?: Int32Array, memoryLimitBytes = MAX_ENGINE_MEMORY_BYTES, maxExpanded = Infinity, progress?: ProgressOptions): GuidedOutcome {
    const e = this.exports;
    const started = performance.now();
    const intervalMs = progress?.intervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
    this.writeInput(deal);
    this.stopFlag = stop;
    this.progress = progress && { onProgress: progress.onProgress, intervalMs, started, next: started + intervalMs };
    this.beamRunning = true;
    this.beamBefore = 0;
    this.clock = () => performance.now();
    this.deadline = started + timeoutMs;
    const reports: GuidedBeamReport[] = [];
    let memoryBytes = 0;
    let statesExpanded = 0;
    let reason: GuidedOutcome['reason'] = 'exhausted';
    let moves: Move[] = [];
    try {
      for (const beam of beams) {
        const t0 = performance.now();
        if (statesExpanded >= maxExpanded) {
          reason = 'max_states';
          break;
        }
        // polled every 256 expansions (assembly/beam.ts POLL_INTERVAL), so a beam may pass its cap by that many
        this.beamCap = Number.isFinite(maxExpanded) ? Math.max(1, maxExpanded - statesExpanded) : 0;
        if (e.beamFindBegin(beam.width, Math.min(memoryLimitBytes, MAX_ENGINE_MEMORY_BYTES), beam.maxLevels ?? 512, beam.globalSeenLog2 ?? 0) < 0) {
          if (reports.length === 0) reason = 'memory';
          break;
        }
        e.setBeamWeights(...beam.weights);
        e.shortenBeam(beam.width, 0);
        const found = e.shortenPathMoves() > 0;
        const stopped = e.shortenStopped() !== 0;
        const outOfMemory = Number(e.beamOutOfMemory.value) !== 0;
        memoryBytes = Math.max(memoryBytes, e.shortenMemoryBytes());
        const expanded = Number(e.beamExpanded.value) >>> 0;
        statesExpanded += expanded;
        this.beamBefore = statesExpanded;
        reports.push({
          ...beam, found, stopped, outOfMemory, expanded,
          levels: Number(e.beamLevelsReached.value), mostHome: Number(e.beamMostHome.value),
          elapsedMs: elapsedMsSince(t0),
        });
        if (found) {
          if (e.shortenWrite() === 0) throw new SolverError('engine_error', 'the beam could not write its solution');
          moves = this.readSolution(deal.rules.foundationBase);
          requireCheckedSolution(deal, moves, "the guided pass's solution");
          break;
        }
        if (outOfMemory) reason = 'memory';
        if (stopped) {
          reason = this.stopFlag && Atomics.load(this.stopFlag, 0) !== 0 ? 'cancelled' : statesExpanded >= maxExpanded ? 'max_states' : 'timeout';
          break;
        }
      }
    } finally {
      this.stopFlag = undefined;
      this.beamCap = 0;
      this.beamRunning = false;
      this.progress = undefined;
    }
    const stats = { elapsedMs: elapsedMsSince(started), memoryBytes, statesExpanded };
    if (moves.length > 0) return { verdict: 'solved', moves, beams: reports, stats };
    return { verdict: 'not_found', reason, moves: [], beams: reports, stats };
  }

  /**
   * Fingerprint of the positions the last solve stored: the sum modulo 2^64
   * of the FNV-1a 64-bit hash of each canonical key, as 16 hex digits
   * (docs/proofs.md). Meaningful after an `unsolvable` verdict, when the
   * stored set is the whole reachable space.
   */
  fingerprint(): string {
    if (this.lastLayered) throw new SolverError('engine_error', 'the layered pass keeps no stored set to fingerprint');
    const low = this.exports.fingerprintLowBits() >>> 0;
    const high = this.exports.fingerprintHighBits() >>> 0;
    return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
  }

  /** Bytes of one canonical key (assembly/position.ts documents the encoding). */
  get keyBytes(): number {
    return this.exports.keyBytes();
  }

  /**
   * The canonical keys of every position the last solve stored, `keyBytes`
   * bytes each, in the order they were found; `null` when there are more
   * than `maxPositions` (the caller's size cap).
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
      exports: this.exports as unknown as Record<string, (...args: number[]) => number> & { memory: WebAssembly.Memory },
      reasons: this.abi.reasons,
      reasonCode: this.abi.reasonCode,
      writeInput: (deal) => this.writeInput(deal),
      readSolution: (base) => this.readSolution(base),
      setHooks: (hooks) => {
        this.shardHooks = hooks;
        // this engine's table is now a shard's: no stored set to export or fingerprint
        this.lastLayered = true;
      },
    };
  }

  private writeInput(deal: Deal): void {
    const { rules, layout } = deal;
    const base = rules.foundationBase;
    const at = this.abi.input;
    const input = new Uint8Array(this.exports.memory.buffer, this.exports.inputAddress(), at.bytes);
    input.fill(0);
    input[at.columns] = rules.columns;
    input[at.cells] = rules.freeCells;
    input[at.build] = this.abi.build[rules.build];
    input[at.empty] = this.abi.empty[rules.emptyColumn];
    input[at.sequence] = this.abi.sequence[rules.sequenceMove];
    input[at.wrap] = rules.wrap ? 1 : 0;
    if (this.pools !== undefined) {
      input[at.pooled] = 1;
      for (let s = 0; s < 4; s++) input[at.pools + s] = this.pools[s];
    }
    for (let s = 0; s < 4; s++) input[at.foundations + s] = layout.foundations[s];
    // plain loops: a closure a column would be garbage of every solve
    const { freeCells, columns } = layout;
    for (let i = 0; i < freeCells.length; i++) {
      const card = freeCells[i];
      input[at.freeCells + i] = card === null ? 0 : toEngineCard(card, base);
    }
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c];
      input[at.lengths + c] = column.length;
      for (let i = 0; i < column.length; i++) input[at.cards + c * at.columnStride + i] = toEngineCard(column[i], base);
    }
  }

  /** Bytes reused by `readSolutionPacked` (grown as needed). */
  private packedScratch = new Uint8Array(PACKED_MOVE_BYTES * 256);

  /**
   * The engine's solution in the form of `packMoves` (moves.ts): what
   * `readSolution` reads, without a move object. A view of
   * `packedScratch`, valid until the next call.
   */
  private readSolutionPacked(base: number): Uint8Array {
    const e = this.exports;
    const count = e.outputMoveCount();
    const out = this.abi.output;
    const bytes = new Uint8Array(e.memory.buffer, e.outputAddress(), count * out.moveBytes);
    if (this.packedScratch.length < count * PACKED_MOVE_BYTES) this.packedScratch = new Uint8Array(2 * count * PACKED_MOVE_BYTES);
    const packed = this.packedScratch;
    const kinds = this.packedKinds();
    const cards = this.packedCardText(base);
    for (let i = 0, p = 0; i < count; i++, p += PACKED_MOVE_BYTES) {
      const o = i * out.moveBytes;
      const from = kinds[bytes[o + out.sourceKind]];
      const to = kinds[256 + bytes[o + out.targetKind]];
      if (from === UNKNOWN_KIND || to === UNKNOWN_KIND) throw new SolverError('engine_error', `the engine wrote an unknown move kind at move ${i + 1}`);
      const card = cards[bytes[o + out.card] & 63];
      packed[p] = from;
      packed[p + 1] = bytes[o + out.sourceIndex];
      packed[p + 2] = to;
      packed[p + 3] = bytes[o + out.targetIndex];
      packed[p + 4] = bytes[o + out.count];
      packed[p + 5] = bytes[o + out.auto] === 1 ? 1 : 0;
      packed[p + 6] = card >> 8;
      packed[p + 7] = card & 255;
    }
    return packed.subarray(0, count * PACKED_MOVE_BYTES);
  }

  /** The engine's source kind codes (0..255) → index in MOVE_SOURCES, then (256 on) target kind codes → index in MOVE_TARGETS; `UNKNOWN_KIND` for a code that names none. */
  private kindTable: Uint8Array | undefined;

  private packedKinds(): Uint8Array {
    if (this.kindTable !== undefined) return this.kindTable;
    const table = new Uint8Array(512).fill(UNKNOWN_KIND);
    for (const [code, word] of this.abi.sources) table[code & 255] = MOVE_SOURCES.indexOf(word);
    for (const [code, word] of this.abi.targets) table[256 + (code & 255)] = MOVE_TARGETS.indexOf(word);
    this.kindTable = table;
    return table;
  }

  /** `readSolutionPacked`'s card bytes by foundation base: engine card code (0..63) → the two ASCII characters of its text, first in the high byte. */
  private readonly cardTextTables = new Map<number, Uint16Array>();

  private packedCardText(base: number): Uint16Array {
    let table = this.cardTextTables.get(base);
    if (table === undefined) {
      table = new Uint16Array(64);
      for (let code = 4; code < 56; code++) {
        const text = cardToString(fromEngineCard(code, base));
        table[code] = (text.charCodeAt(0) << 8) | (text.length > 1 ? text.charCodeAt(1) : 32);
      }
      this.cardTextTables.set(base, table);
    }
    return table;
  }

  private readSolution(base: number): Move[] {
    const e = this.exports;
    const count = e.outputMoveCount();
    const out = this.abi.output;
    const bytes = new Uint8Array(e.memory.buffer, e.outputAddress(), count * out.moveBytes);
    const moves: Move[] = [];
    for (let i = 0; i < count; i++) {
      const o = i * out.moveBytes;
      const from = this.abi.sources.get(bytes[o + out.sourceKind]);
      const to = this.abi.targets.get(bytes[o + out.targetKind]);
      if (from === undefined || to === undefined) throw new SolverError('engine_error', `the engine wrote an unknown move kind at move ${i + 1}`);
      moves.push({
        from,
        fromIndex: bytes[o + out.sourceIndex],
        to,
        toIndex: bytes[o + out.targetIndex],
        count: bytes[o + out.count],
        card: cardToString(fromEngineCard(bytes[o + out.card], base)),
        auto: bytes[o + out.auto] === 1,
      });
    }
    return moves;
  }
}
