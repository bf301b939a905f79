/**
 * Progress slots: what a long solve's workers report while they search, for
 * another thread to read when it likes (the CLI's progress bars,
 * server/cli/two-threads.ts). A slot crosses to the worker in its job
 * (`WireJob.progress`), the one shared buffer a task may carry.
 */
/**
 * A progress slot (`WireJob.progress`): PROGRESS_FIELDS Float64 values over
 * a SharedArrayBuffer that the worker writes at each of the engine's progress
 * reports (client-sdk/core/engine/poll.ts `ProgressOptions`, at most one a second)
 * and that another thread reads when it likes (the CLI's progress bars,
 * server/cli/two-threads.ts). Each value is written whole; a reader may see
 * one report's positions beside the previous report's memory, which is fine
 * for a display and for nothing else. Field indices:
 * - `PROGRESS_REPORTS`: reports so far (0: none yet);
 * - `PROGRESS_STORED`, `PROGRESS_EXPANDED`: positions stored and expanded by the
 *   search now running (a pooled pass restarts them at each pooling);
 * - `PROGRESS_MEMORY`: its engine memory, bytes;
 * - `PROGRESS_STARTED_AT`: `Date.now()` when the worker began the task, ms;
 * - `PROGRESS_POOLING`: -1 for the real game, else the index in
 *   `POOLINGS_TO_TRY` (client-sdk/core/pools.ts) of the pooling searched now
 *   (-2 for a pooling not in that list; `PROGRESS_GUIDED`, -3, while the
 *   guided pass runs, its stored and expanded counts both the positions its
 *   beams expanded).
 */
export const PROGRESS_REPORTS = 0;
export const PROGRESS_STORED = 1;
export const PROGRESS_EXPANDED = 2;
export const PROGRESS_MEMORY = 3;
export const PROGRESS_STARTED_AT = 4;
export const PROGRESS_POOLING = 5;
/** `PROGRESS_POOLING` while the slot's search is the guided pass (client-sdk/core/guided.ts). */
export const PROGRESS_GUIDED = -3;
/** Float64 values in one progress slot. */
export const PROGRESS_FIELDS = 6;

/**
 * `count` progress slots over one SharedArrayBuffer, all zero but
 * `PROGRESS_POOLING` (-1); slot i is `progressSlot(slots, i)`.
 * @throws RangeError when `count` is not a positive integer.
 */
export function newProgressSlots(count: number): Float64Array {
  if (!(Number.isInteger(count) && count >= 1)) throw new RangeError(`count must be a positive integer, got ${count}`);
  const slots = new Float64Array(new SharedArrayBuffer(count * PROGRESS_FIELDS * Float64Array.BYTES_PER_ELEMENT));
  for (let i = 0; i < count; i++) slots[i * PROGRESS_FIELDS + PROGRESS_POOLING] = -1;
  return slots;
}

/**
 * Slot `index` of `slots` (a view on the same shared memory, PROGRESS_FIELDS long).
 * @throws RangeError when `slots` has no slot `index`.
 */
export function progressSlot(slots: Float64Array, index: number): Float64Array {
  if (!(Number.isInteger(index) && index >= 0 && (index + 1) * PROGRESS_FIELDS <= slots.length)) {
    throw new RangeError(`no progress slot ${index} in ${slots.length / PROGRESS_FIELDS} slots`);
  }
  return slots.subarray(index * PROGRESS_FIELDS, (index + 1) * PROGRESS_FIELDS);
}
