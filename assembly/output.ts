/**
 * The solution buffer the glue reads after a solved search.
 *
 * One move = OUTPUT_MOVE_BYTES bytes (offsets exported as OUT_*):
 *   0 source kind (0 column, 1 free cell)
 *   1 source index (0-based)
 *   2 target kind (0 column, 1 free cell, 2 foundation)
 *   3 target index (column, cell, or the suit for a foundation)
 *   4 number of cards moved
 *   5 the moved card (for a sequence move the deepest card of the run)
 *   6 1 when the move is a safe auto-move, else 0
 *   7 unused
 */
export const SOURCE_COLUMN: i32 = 0;
export const SOURCE_CELL: i32 = 1;
export const TARGET_COLUMN: i32 = 0;
export const TARGET_CELL: i32 = 1;
export const TARGET_FOUNDATION: i32 = 2;
export const OUT_SOURCE_KIND: i32 = 0;
export const OUT_SOURCE_INDEX: i32 = 1;
export const OUT_TARGET_KIND: i32 = 2;
export const OUT_TARGET_INDEX: i32 = 3;
export const OUT_COUNT: i32 = 4;
export const OUT_CARD: i32 = 5;
export const OUT_AUTO: i32 = 6;
export const OUTPUT_MOVE_BYTES: i32 = 8;
export const OUTPUT_MAX_MOVES: i32 = 8192;

export const OUTPUT: usize = memory.data(OUTPUT_MAX_MOVES * OUTPUT_MOVE_BYTES);

export let outputCount: i32 = 0;
export let outputOverflow: bool = false;

/** Empties the solution buffer. */
export function resetOutput(): void {
  outputCount = 0;
  outputOverflow = false;
}

/** Appends one move (fields as documented above). */
export function writeMove(srcKind: i32, srcIndex: i32, dstKind: i32, dstIndex: i32, count: i32, card: i32, auto: bool): void {
  if (outputCount >= OUTPUT_MAX_MOVES) {
    outputOverflow = true;
    return;
  }
  const p = OUTPUT + <usize>outputCount * OUTPUT_MOVE_BYTES;
  store<u8>(p + OUT_SOURCE_KIND, srcKind);
  store<u8>(p + OUT_SOURCE_INDEX, srcIndex);
  store<u8>(p + OUT_TARGET_KIND, dstKind);
  store<u8>(p + OUT_TARGET_INDEX, dstIndex);
  store<u8>(p + OUT_COUNT, count);
  store<u8>(p + OUT_CARD, card);
  store<u8>(p + OUT_AUTO, auto ? 1 : 0);
  store<u8>(p + 7, 0);
  outputCount++;
}
