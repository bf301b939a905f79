/**
 * The engine's tuning hooks as the development tools use them (bench/tune.ts,
 * bench/climb.ts): their types, the `--scan` weight syntax, and setting a
 * whole scan set for the solves that follow. The hooks are exported by
 * assembly/index.ts from assembly/search.ts; not part of the product's API.
 */

/** The tuning hooks; the optional ones are missing from older builds (`ENGINE_WASM`). */
export interface TuningExports {
  setHeuristicWeights(scan: number, ...weights: number[]): void;
  resetHeuristicWeights?(): void;
  setScanCount?(n: number): void;
  setScanStep(step: number): void;
  setScanStick?(items: number): void;
  setScanPrelude?(scan: number, items: number): void;
  setLazyQuota(quota: number): void;
  /** Pending moves (generated, measured and scored children) the last solve's lazy phase queued. */
  pendingMovesQueued(): number;
  /** Items the last solve took from its open lists. */
  openItemsTaken(): number;
  /** Parents the last solve's lazy phase rebuilt from their keys at a pop (missing from older builds). */
  parentsDecoded?(): number;
}

/**
 * One scan's weights from `--scan` text: seven integers separated by commas,
 * in the order of assembly/search.ts `setHeuristicWeights` (not home,
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
export function applyScanWeights(hooks: TuningExports, scans?: number[][]): void {
  hooks.resetHeuristicWeights?.();
  if (!scans) return;
  scans.forEach((weights, scan) => hooks.setHeuristicWeights(scan, ...weights));
  hooks.setScanCount?.(scans.length);
}
