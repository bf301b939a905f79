/**
 * What the tuning tools share: the engine they run (the tuning build,
 * build/engine.tuning.wasm, or `ENGINE_WASM`), the `--scan` weight syntax,
 * and setting a whole scan set for the solves that follow (tune.ts,
 * climb.ts). The hooks are the tuning build's (assembly/tuning.ts); the
 * release engine has none.
 */
import { resolve } from 'node:path';
import type { Engine } from '../../client-sdk/core/engine/index.js';
import { createTuningEngine, TUNING_WASM, tuningHooks, type TuningHooks } from '../../tests/helpers/tuning-engine.js';

export { tuningHooks, type TuningHooks };

/**
 * The engine a tool runs: `ENGINE_WASM` (a path; another build of
 * assembly/tuning.ts, for instance main's, to compare) or build/engine.tuning.wasm.
 * @throws Error when the file is missing (`npm run asbuild:tuning` builds the default).
 */
export function tuningEngine(): Promise<Engine> {
  return createTuningEngine(process.env.ENGINE_WASM ? resolve(process.env.ENGINE_WASM) : TUNING_WASM);
}

/**
 * One scan's weights from `--scan` text: seven integers separated by commas,
 * in the order of assembly/presets.ts `setHeuristicWeights` (not home,
 * unsorted, cell, empty column, next-card depth, unsorted mode, depth in
 * sixteenths of a point per move).
 * @throws Error naming the text when it is not seven integers.
 */
export function parseScanWeights(text: string): number[] {
  const weights = text.split(',').map(Number);
  if (weights.length !== 7 || weights.some((x) => !Number.isInteger(x))) throw new Error(`--scan wants 7 integers separated by commas, got ${JSON.stringify(text)}`);
  return weights;
}

/**
 * Puts the engine back on its default weights, scan count, prelude and scan
 * stick, then, when `scans` is given, fixes one scan per entry (seven
 * weights each) and the scan count to their number, for every later solve.
 */
export function applyScanWeights(hooks: TuningHooks, scans?: number[][]): void {
  hooks.resetHeuristicWeights();
  if (!scans) return;
  scans.forEach((weights, scan) => hooks.setHeuristicWeights(scan, ...weights));
  hooks.setScanCount(scans.length);
}
