/**
 * The packed move word: one u32 that names a move independently of column
 * and cell numbers (by the moved card and the card it lands on), so that it
 * can be replayed on any column order of a position, plus the bookkeeping a
 * stored record or a pending move needs. The one bit table of the engine:
 *
 *   bits  0-5   card    the moved card (card byte; for a run, its deepest card)
 *   bits  6-7   kind    MOVE_TO_FOUNDATION, MOVE_TO_CELL, MOVE_TO_EMPTY_COLUMN, MOVE_TO_CARD
 *   bits  8-13  onto    the card the run is put on (MOVE_TO_CARD only, else 0)
 *   bits 14-19  count   number of cards moved (1..63)
 *   bits 20-29  depth   moves from the start to the position the move leads to (capped at DEPTH_MAX)
 *   bit  30     auto    safe auto-moves followed the move (AUTO_FOLLOWED)
 *   bit  31     done    the record was expanded / the pending move was taken (DONE)
 *
 * Bits 0-19 (MOVE_BITS) are the move itself; a solution path is read from
 * them alone.
 */

export const MOVE_TO_FOUNDATION: u32 = 0;
export const MOVE_TO_CELL: u32 = 1;
export const MOVE_TO_EMPTY_COLUMN: u32 = 2;
export const MOVE_TO_CARD: u32 = 3;

/** Mask of the move proper (card, kind, onto, count). */
export const MOVE_BITS: u32 = 0xfffff;
export const DEPTH_SHIFT: u32 = 20;
export const DEPTH_MAX: i32 = 1023;
/** Flag: auto-moves followed the move into this position. */
export const AUTO_FOLLOWED: u32 = 0x40000000;
/** Flag: the record has been expanded, or the pending move has been taken, by some scan. */
export const DONE: u32 = 0x80000000;

/** Packs a move; `card`, `onto` are card bytes, `kind` a MOVE_TO_* code, `count` 1..63. */
// @ts-ignore: decorator
@inline export function packMove(card: i32, kind: u32, onto: i32, count: i32): u32 {
  return <u32>card | (kind << 6) | (<u32>onto << 8) | (<u32>count << 14);
}

// @ts-ignore: decorator
@inline export function moveCard(word: u32): i32 {
  return <i32>(word & 63);
}

// @ts-ignore: decorator
@inline export function moveKind(word: u32): u32 {
  return (word >> 6) & 3;
}

// @ts-ignore: decorator
@inline export function moveOnto(word: u32): i32 {
  return <i32>((word >> 8) & 63);
}

// @ts-ignore: decorator
@inline export function moveCount(word: u32): i32 {
  return <i32>((word >> 14) & 63);
}

// @ts-ignore: decorator
@inline export function moveDepth(word: u32): i32 {
  return <i32>((word >> DEPTH_SHIFT) & <u32>DEPTH_MAX);
}

/** `move` (bits 0-19) with the depth and the auto flag of the position it leads to. */
// @ts-ignore: decorator
@inline export function withDepth(move: u32, depth: i32, autoFollowed: bool): u32 {
  return (move & MOVE_BITS) | (<u32>(depth < DEPTH_MAX ? depth : DEPTH_MAX) << DEPTH_SHIFT) | (autoFollowed ? AUTO_FOLLOWED : 0);
}
