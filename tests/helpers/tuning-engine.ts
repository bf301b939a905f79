/**
 * The tuning build of the engine (assembly/tuning.ts → build/engine.tuning.wasm,
 * `npm run asbuild:tuning`; `pretest` and `test:unit` build it): the release
 * engine's exports and the tuning, self-check and development hooks besides.
 * The tests that drive a hook, and the tuning tools (tools/tuning/), load it
 * through here; the product loads build/engine.wasm, which has none of them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileEngine, Engine } from '../../client-sdk/core/engine/index.js';
import { ROOT } from './paths.js';

/** Path of the tuning build. */
export const TUNING_WASM = join(ROOT, 'build', 'engine.tuning.wasm');

/**
 * The hooks of the tuning build (assembly/tuning.ts lists them; each is
 * documented where it is defined). Counts are unsigned 32-bit (read `>>> 0`).
 */
export interface TuningHooks {
  // heuristic tuning (assembly/presets.ts)
  /** Fixes one scan's weights for every later solve: not home, unsorted, cell, empty column, next-card depth, unsorted mode, depth (sixteenths a move). */
  setHeuristicWeights(scan: number, ...weights: number[]): void;
  /** Back to the build rule's default weights, scan count, prelude and scan stick. */
  resetHeuristicWeights(): void;
  setScanCount(n: number): void;
  setScanStep(step: number): void;
  setScanStick(items: number): void;
  setScanPrelude(scan: number, items: number): void;
  setLazyQuota(quota: number): void;
  // test switches
  /** When the lazy phase filters by hash: 0 never, 1 under alternate-colour building (the default), 2 in every game. */
  setLazyFilter(mode: number): void;
  /** The hash bits the lazy phase's filter keeps (assembly/seen.ts; ~0 restores the default, 0 switches it off). */
  setSeenHashMask(mask: bigint): void;
  /** Allows (1, the default) or forbids (0) the compact layout of the no-cell Castle games (assembly/castle-key.ts). */
  setCompactLayoutAllowed(allowed: number): void;
  compactLayoutInUse(): number;
  /** Turns the beam's self-check on (1) or off (0) and clears its counters (assembly/beam.ts). */
  setBeamSelfCheck(on: number): void;
  beamSelfChecks(): number;
  beamSelfCheckFailures(): number;
  // development counters of the last solve or beam
  openItemsTaken(): number;
  pendingMovesQueued(): number;
  parentsDecoded(): number;
  pendingMovesSkipped(): number;
  openEntriesPeakCount(): number;
  openBlocksCount(): number;
  slotBytes(): number;
  shortenBestLength(): number;
  outputCountedMoves(): number;
  beamChildren: WebAssembly.Global;
  layeredCurrentLayer(): number;
}

/**
 * Compiles and instantiates the tuning build at `path` (default
 * build/engine.tuning.wasm; another build of assembly/tuning.ts for an A/B).
 * @throws Error when the file is missing (with the command that builds it),
 *   or as `Engine.instantiate`.
 */
export async function createTuningEngine(path: string = TUNING_WASM): Promise<Engine> {
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm run asbuild:tuning`);
  return Engine.instantiate(await compileEngine(pathToFileURL(path)));
}

/**
 * The tuning hooks of `engine`, an instance of a tuning build.
 * @throws Error when its module is the release build (it has no hooks).
 */
export function tuningHooks(engine: Engine): TuningHooks {
  const exports = engine.moduleExports();
  if (typeof exports.setHeuristicWeights !== 'function') throw new Error('this engine is not the tuning build (build/engine.tuning.wasm): it has no tuning hooks');
  return exports as unknown as TuningHooks;
}
