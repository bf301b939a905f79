/**
 * The Wasm engine glue: compiles the AssemblyScript engine once (module.ts),
 * instantiates it per thread (`Engine`, engine.ts), writes a deal into its
 * input block and reads the solution out (memory.ts), checks the interface
 * it exports (abi.ts), and runs the passes on it: the search, the pooled
 * search, the shortening (engine.ts) and the guided pass (beam-find.ts).
 * Every solution it hands out was replayed by the independent checker
 * (checked.ts).
 */
export { Engine, layeredApplies } from './engine.js';
export type { PackedSolutionSink, PooledOutcome, PooledSolveOptions, ShardAccess, ShortenRunOptions, SolveOptions, SolveShortOptions } from './engine.js';
export { compileEngine, loadEngineModule, type EngineSource } from './module.js';
export { MAX_ENGINE_MEMORY_BYTES } from './abi.js';
export { DEFAULT_PROGRESS_INTERVAL_MS, type ProgressOptions, type SolveProgress } from './poll.js';
export { requireCheckedPackedSolution, requireCheckedSolution } from './checked.js';
export type { BeamFindOptions, GuidedBeam, GuidedBeamReport, GuidedOutcome } from './beam-find.js';
