/**
 * What the CLI's progress bars show as their fill: the share of a solve's
 * budget used so far, by whichever of its three limits is nearest.
 */
import type { SolveLimits } from '../../client-sdk/core/solve-types.js';

/**
 * The budget used, in permille (0..1000): the largest of positions stored
 * over `limits.maxStates`, engine memory over `memoryLimitBytes` and elapsed
 * time over `limits.timeoutMs`, rounded down and capped at 1000 (the bars of
 * solve.ts and two-threads.ts run from 0 to 1000).
 * @param stored positions stored; `memoryBytes` engine linear memory, bytes;
 *   `elapsedMs` milliseconds since the search began.
 */
export function budgetPermille(limits: SolveLimits, memoryLimitBytes: number, stored: number, memoryBytes: number, elapsedMs: number): number {
  return Math.min(1000, Math.floor(1000 * Math.max(stored / limits.maxStates, memoryBytes / memoryLimitBytes, elapsedMs / limits.timeoutMs)));
}
