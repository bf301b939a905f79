/**
 * The tuning build (`npm run asbuild:tuning` → build/engine.tuning.wasm,
 * optimised as the release): every export of the release engine (index.ts)
 * plus the hooks the tests and the tuning tools (tools/tuning/) drive. None
 * of these is used by the product, which loads build/engine.wasm; a tool or
 * test loads this module explicitly (tests/helpers/tuning-engine.ts).
 *
 * - Heuristic tuning (presets.ts): the weights, scans, scan step, stick and
 *   prelude of later solves, and the lazy phase's quota.
 * - Test switches: the lazy phase's filter (presets.ts `setLazyFilter`), the
 *   bits its hash keeps (seen.ts `setSeenHashMask`, to force collisions),
 *   the compact layout (castle-key.ts), the beam's self-check (beam.ts).
 * - Development counters: open items taken, parents decoded, pending moves
 *   queued and skipped, the sharded layered pass's current layer, the beam's children and best length, the compact
 *   layout's open stack and slot bytes.
 */
export * from './index';
export {
  setHeuristicWeights, resetHeuristicWeights, setScanCount, setScanStep, setScanStick, setScanPrelude, setLazyQuota, setLazyFilter,
} from './presets';
export { openItemsTaken } from './search';
export { pendingMovesQueued, parentsDecoded, pendingMovesSkipped } from './lazy';
export { layeredCurrentLayer } from './shard-pass';
export { setSeenHashMask } from './seen';
export { shortenBestLength, outputCountedMoves, beamChildren, setBeamSelfCheck, beamSelfChecks, beamSelfCheckFailures } from './beam';
export { setCompactLayoutAllowed, compactLayoutInUse } from './castle-key';
export { slotBytes } from './table';
import { openEntriesPeak, openBlocksAllocated } from './open-stack';

/** Most open-stack entries (4 bytes each) live at once in the last solve (0 outside the compact layout). */
export function openEntriesPeakCount(): f64 {
  return <f64>openEntriesPeak;
}

/** Open-stack blocks (256 bytes each) the last solve took from its memory. */
export function openBlocksCount(): u32 {
  return openBlocksAllocated;
}
