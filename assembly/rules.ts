/**
 * The rule parameters of the current solve, read once from the input block.
 *
 * Ranks inside the engine are *relative*: the glue (client-sdk/core/engine/memory.ts)
 * maps rank r to ((r - foundationBase + 13) % 13) + 1, so every foundation
 * starts at relative rank 1 and ends at 13, and "the top rank" an empty
 * column may take under `kings` is always relative 13 (the King, or with a
 * wrapping deck the rank below the foundation base; docs/rules.md).
 * With `wrap`, tableau building is cyclic: relative 13 builds on 1.
 *
 * Card byte = rank * 4 + suit (suit 0..3 = C, D, H, S); 0 = no card.
 */

export const BUILD_ALTERNATE_COLOR: i32 = 0;
export const BUILD_SUIT: i32 = 1;
export const BUILD_RANK: i32 = 2;
export const BUILD_SUIT_UP_OR_DOWN: i32 = 3;

export const EMPTY_ANY: i32 = 0;
export const EMPTY_KINGS: i32 = 1;
export const EMPTY_NONE: i32 = 2;

/** What an empty free cell accepts: any card, or none (the cells are a reserve: King Albert). */
export const CELL_ANY: i32 = 0;
export const CELL_NONE: i32 = 1;

export const SEQ_NONE: i32 = 0;
export const SEQ_SUPERMOVE: i32 = 1;
export const SEQ_CELLS_PLUS_ONE: i32 = 2;
export const SEQ_UNLIMITED: i32 = 3;

export let numColumns: i32 = 8;
export let numCells: i32 = 4;
export let buildRule: i32 = BUILD_ALTERNATE_COLOR;
export let emptyColumnRule: i32 = EMPTY_ANY;
export let sequenceRule: i32 = SEQ_SUPERMOVE;
export let wrapRanks: bool = false;
/**
 * The cells are a reserve (CELL_NONE): the deal fills them, cards leave
 * them for a column or a foundation, and no card ever enters one. Set by
 * `setEmptyCellRule`.
 */
export let reserveCells: bool = false;

/**
 * Pooled game (docs/proofs.md, "Pooled certificates"): when set, suits are
 * merged into pools; card bytes carry the pool's lowest suit instead of their
 * own (a pooled card is known by rank and pool only), and the foundations of
 * a pool are interchangeable piles, kept in ascending order of height over
 * the pool's suits. Off (and `poolOf(s) == s`) for the real game.
 */
export let pooledMode: bool = false;
/** Pool of each suit, as the lowest suit of the pool (u8 x 4). */
export const POOL_OF: usize = memory.data(4);

/** Pool (its lowest suit) of suit `suit`. */
// @ts-ignore: decorator
@inline export function poolOf(suit: i32): i32 {
  return load<u8>(POOL_OF + suit);
}

/**
 * Sets the pools of the next solve: `pools[s]` is the lowest suit of suit s's
 * pool (s itself when s is alone). Pooled mode is on when some suit shares a
 * pool. Only for rules whose tableau never looks at suit (`rank` build, no
 * wrap); the glue refuses any other.
 */
export function setPools(p0: i32, p1: i32, p2: i32, p3: i32): void {
  store<u8>(POOL_OF, p0);
  store<u8>(POOL_OF + 1, p1);
  store<u8>(POOL_OF + 2, p2);
  store<u8>(POOL_OF + 3, p3);
  pooledMode = p0 != 0 || p1 != 1 || p2 != 2 || p3 != 3;
}

/** Sets the rules of the next solve (values as in the constants above). */
export function setRules(columns: i32, cells: i32, build: i32, empty: i32, seq: i32, wrap: bool): void {
  numColumns = columns;
  numCells = cells;
  buildRule = build;
  emptyColumnRule = empty;
  sequenceRule = seq;
  wrapRanks = wrap;
}

/** Sets what an empty free cell accepts in the next solve (CELL_ANY, CELL_NONE). */
export function setEmptyCellRule(rule: i32): void {
  reserveCells = rule == CELL_NONE;
}

// @ts-ignore: decorator
@inline export function rankOf(card: i32): i32 {
  return card >> 2;
}

// @ts-ignore: decorator
@inline export function suitOf(card: i32): i32 {
  return card & 3;
}

// @ts-ignore: decorator
@inline export function isRed(card: i32): bool {
  const s = card & 3;
  return s == 1 || s == 2;
}

/** Relative rank one above `rank`; 14 (never a rank) past the King unless ranks wrap. */
// @ts-ignore: decorator
@inline export function rankAbove(rank: i32): i32 {
  return wrapRanks && rank == 13 ? 1 : rank + 1;
}

/**
 * True when `card` may be placed on `below` in the tableau (docs/rules.md, "tableau build").
 */
// @ts-ignore: decorator
@inline export function buildsOn(card: i32, below: i32): bool {
  const r = rankOf(card);
  const rb = rankOf(below);
  switch (buildRule) {
    case BUILD_ALTERNATE_COLOR:
      return rankAbove(r) == rb && isRed(card) != isRed(below);
    case BUILD_SUIT:
      return rankAbove(r) == rb && suitOf(card) == suitOf(below);
    case BUILD_RANK:
      return rankAbove(r) == rb;
    default: // BUILD_SUIT_UP_OR_DOWN
      return suitOf(card) == suitOf(below) && (rankAbove(r) == rb || rankAbove(rb) == r);
  }
}

/** True when an empty column accepts `card` as the deepest card of what moves there. */
// @ts-ignore: decorator
@inline export function emptyColumnAccepts(card: i32): bool {
  if (emptyColumnRule == EMPTY_ANY) return true;
  if (emptyColumnRule == EMPTY_KINGS) return rankOf(card) == 13;
  return false;
}

/**
 * Most cards one column-to-column move may carry (docs/rules.md, "Sequence-move capacity").
 * `freeCells`: empty free cells that take a card (none of a reserve); `emptyColumns`: empty columns not counting the destination.
 * Under `supermove`, empty columns count only when they take any card: with
 * kings-only or no refills they cannot hold the intermediate cards.
 */
export function sequenceCapacity(freeCells: i32, emptyColumns: i32): i32 {
  switch (sequenceRule) {
    case SEQ_NONE:
      return 1;
    case SEQ_SUPERMOVE:
      return emptyColumnRule == EMPTY_ANY ? (freeCells + 1) << emptyColumns : freeCells + 1;
    case SEQ_CELLS_PLUS_ONE:
      return freeCells + 1;
    default:
      return 64;
  }
}
