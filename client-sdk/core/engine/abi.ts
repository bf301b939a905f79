/**
 * The engine module's interface as the glue sees it: the functions it calls
 * and the constants it reads.
 *
 * The engine is the one definition of its interface: the rule, verdict and
 * reason codes and the offsets of the input block and the output buffer are
 * exported globals of the module (assembly/index.ts; layouts documented in
 * assembly/input.ts and assembly/output.ts). `readInterface` reads them when
 * a module is instantiated and throws when one is missing, as it does for a
 * missing function, so a glue and a module out of step fail at start instead
 * of searching the wrong position.
 */
import { BUILD_RULES, EMPTY_CELL_RULES, EMPTY_COLUMN_RULES, SEQUENCE_MOVE_RULES } from '../rules.js';
import { MOVE_SOURCES, MOVE_TARGETS, type Move } from '../moves.js';
import { UNKNOWN_REASONS, type UnknownReason } from '../solve-types.js';

/*
 * The words come from the vocabularies (BUILD_RULES, ..., UNKNOWN_REASONS,
 * MOVE_SOURCES, MOVE_TARGETS); the module exports the code of word `w` as
 * `PREFIX_W` in upper case: `BUILD_SUIT_UP_OR_DOWN`, `EMPTY_KINGS`,
 * `CELL_NONE` (EMPTY_CELL_RULES), `SEQ_CELLS_PLUS_ONE`, `REASON_MAX_STATES`,
 * `TARGET_FOUNDATION`.
 */

/** The engine's interface constants, as read from one instantiated module (see `readInterface`). */
export interface EngineInterface {
  build: Record<string, number>;
  empty: Record<string, number>;
  /** Codes of what an empty free cell accepts (EMPTY_CELL_RULES). */
  emptyCell: Record<string, number>;
  sequence: Record<string, number>;
  /** Engine reason code → the API's unknown reason. */
  reasons: Map<number, UnknownReason>;
  reasonCode: Record<UnknownReason, number>;
  verdictSolved: number;
  verdictUnsolvable: number;
  verdictUnknown: number;
  /** Input block: its size and the byte offset of each field (assembly/input.ts). */
  input: {
    bytes: number; columns: number; cells: number; build: number; empty: number; sequence: number; wrap: number;
    pooled: number; pools: number; emptyCell: number; foundations: number; freeCells: number; lengths: number; cards: number; columnStride: number;
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
 * The product's engine functions the glue calls (engine.ts, memory.ts) and
 * the sharded layered pass drives (client-sdk/core/sharded-layers.ts):
 * checked to exist at instantiation, so a module without one of them (an
 * older build, or another module) is refused before any search. The tuning
 * build (assembly/tuning.ts) exports all of them too, and its hooks besides.
 */
export const ENGINE_FUNCTIONS = [
  // one solve, its counters and its solution
  'inputAddress', 'outputAddress', 'outputMoveCount', 'expandedCount', 'solve', 'lastStopReason', 'statesStored', 'memoryBytesUsed',
  // the stored set: its keys and fingerprint
  'keyBytes', 'exportBufferAddress', 'exportKeys', 'fingerprintLowBits', 'fingerprintHighBits',
  // the layered pass (assembly/layers.ts)
  'setLayeredSearch', 'layeredInUse', 'layeredPeakLive', 'layeredLiveAtEnd', 'layeredPurges', 'layerCount', 'layeredViolations',
  // the shortening and the guided pass (assembly/beam.ts)
  'shortenBegin', 'shortenBeam', 'shortenWrite', 'shortenPathMoves', 'shortenStopped', 'shortenMemoryBytes', 'setBeamWeights', 'beamFindBegin',
  // the sharded layered pass (assembly/shards.ts)
  'layeredShardBegin', 'layeredShardStep', 'layeredNextOpen', 'layeredAdvance', 'acceptChildren', 'shardGoal', 'shardStopReason',
  'recordParentRef', 'recordMoveBits', 'pathAddress', 'pathCapacity', 'replaySolution', 'beginLayerKeys', 'exportLayerKeys',
  'inboxAddress', 'shardChildrenForwarded', 'shardForwardCalls',
] as const;

/** Exported globals the glue reads as counters (beam.ts), checked as ENGINE_FUNCTIONS are. */
export const ENGINE_COUNTERS = ['beamMostHome', 'beamLevelsReached', 'beamOutOfMemory', 'beamExpanded'] as const;

/**
 * Reads the interface constants of an instantiated engine module.
 * @throws Error naming the first missing export (a module built from another
 *   version of assembly/: run `npm run asbuild`), or codes of one rule that
 *   are not distinct.
 */
export function readInterface(exports: WebAssembly.Exports): EngineInterface {
  const outOfStep = 'build/engine.wasm and client-sdk/core/engine/ are out of step (run npm run asbuild)';
  const constant = (name: string): number => {
    const g = exports[name];
    if (!(g instanceof WebAssembly.Global)) throw new Error(`the engine module does not export ${name}: ${outOfStep}`);
    return g.value as number;
  };
  for (const name of ENGINE_FUNCTIONS) {
    if (typeof exports[name] !== 'function') throw new Error(`the engine module does not export the function ${name}: ${outOfStep}`);
  }
  for (const name of ENGINE_COUNTERS) {
    if (!(exports[name] instanceof WebAssembly.Global)) throw new Error(`the engine module does not export ${name}: ${outOfStep}`);
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
    emptyCell: codes('CELL', EMPTY_CELL_RULES),
    sequence: codes('SEQ', SEQUENCE_MOVE_RULES),
    reasons: new Map(Object.entries(reasonCode).map(([word, code]) => [code, word as UnknownReason])),
    reasonCode,
    verdictSolved: constant('VERDICT_SOLVED'),
    verdictUnsolvable: constant('VERDICT_UNSOLVABLE'),
    verdictUnknown: constant('VERDICT_UNKNOWN'),
    input: {
      bytes: constant('INPUT_BYTES'), columns: constant('IN_COLUMNS'), cells: constant('IN_CELLS'), build: constant('IN_BUILD'),
      empty: constant('IN_EMPTY'), sequence: constant('IN_SEQUENCE'), wrap: constant('IN_WRAP'),
      pooled: constant('IN_POOLED'), pools: constant('IN_POOLS'), emptyCell: constant('IN_EMPTY_CELL'),
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

/** Largest Wasm memory Node 20 allows (65,536 pages less one, as the engine keeps its arena below 0xffff0000). */
export const MAX_ENGINE_MEMORY_BYTES = 0xffff0000;

/**
 * The engine functions the glue calls (engine.ts, memory.ts, beam-find.ts).
 * Written here rather than imported from the compiler's build/engine.d.ts
 * because build/ is generated (and ignored by git), and type checking must
 * not need a Wasm build first; their presence is checked at instantiation
 * (ENGINE_FUNCTIONS, ENGINE_COUNTERS). Units: counts as unsigned 32-bit (read `>>> 0`),
 * bytes as f64 numbers, addresses as byte offsets into `memory`.
 */
export interface EngineExports {
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
