/**
 * What the engine asks of its host (the glue in client-sdk/core/engine/).
 */

/**
 * Returns 0 to go on, or the reason to stop now: REASON_TIMEOUT or
 * REASON_CANCELLED of search-state.ts (the glue reads a SharedArrayBuffer flag and
 * the clock). Cheap enough to call every few milliseconds, not per position.
 */
@external('env', 'pollStop')
export declare function pollStop(): i32;
