/**
 * The input block: the rules and the start position the glue writes before
 * `solve`, `shortenBegin` or `beamFindBegin` (INPUT_BYTES bytes at INPUT),
 * and its reading into a position (position.ts layout).
 *
 * One byte per field, at these offsets (exported, so the glue reads them
 * from the module instead of repeating them):
 *
 *   0        1       2       3       4          5      6        7
 *   ┌────────┬───────┬───────┬───────┬──────────┬──────┬────────┬────────────┐
 *   │columns │ cells │ build │ empty │ sequence │ wrap │ pooled │ empty cell │
 *   └────────┴───────┴───────┴───────┴──────────┴──────┴────────┴────────────┘
 *   8 .. 11: foundations (relative counts, suits C D H S)
 *   12 .. 15: with `pooled`, the pool of each suit as its lowest suit
 *   16 .. 23: free cells (card bytes, 0 = empty)
 *   32 .. 49: column lengths (at most MAX_COLUMNS = 18)
 *   64 + c * 64 + i: card i (deepest first) of column c
 *
 * build is a BUILD_*, empty an EMPTY_*, sequence a SEQ_*, empty cell a
 * CELL_* (rules.ts); wrap and pooled are 0 or 1 (the pooled game: rules.ts
 * `setPools`, docs/proofs.md).
 */
import {
  numColumns, numCells, buildRule, wrapRanks, pooledMode, BUILD_RANK, setRules, setEmptyCellRule, setPools, poolOf,
} from './rules';
import { setKeyWidth } from './key';
import { POSITION_BYTES, MAX_CELLS, MAX_COLUMNS, setColumnLength, setCardAt, setCellCard, foundation, setFoundation } from './position';

export const IN_COLUMNS: i32 = 0;
export const IN_CELLS: i32 = 1;
export const IN_BUILD: i32 = 2;
export const IN_EMPTY: i32 = 3;
export const IN_SEQUENCE: i32 = 4;
export const IN_WRAP: i32 = 5;
export const IN_POOLED: i32 = 6;
export const IN_EMPTY_CELL: i32 = 7;
export const IN_FOUNDATIONS: i32 = 8;
export const IN_POOLS: i32 = 12;
export const IN_FREE_CELLS: i32 = 16;
export const IN_LENGTHS: i32 = 32;
export const IN_CARDS: i32 = 64;
export const IN_COLUMN_STRIDE: i32 = 64;
export const INPUT_BYTES: i32 = IN_CARDS + MAX_COLUMNS * IN_COLUMN_STRIDE;
export const INPUT: usize = memory.data(INPUT_BYTES);

/**
 * Sets the rules from the input block and writes its start position into
 * `p`. With `pooled`, the block's pool map sets the pooled game (`readPools`)
 * and the cards and foundations are read as its pooled cards; without it,
 * the real game (every suit its own pool). Returns false, having changed
 * nothing, for a block beyond the engine's layout (more than MAX_COLUMNS
 * columns or MAX_CELLS cells, a column longer than a deck); the glue
 * validates every position before it writes one.
 */
export function readInput(p: usize, pooled: bool): bool {
  const columns = <i32>load<u8>(INPUT + IN_COLUMNS);
  if (columns > MAX_COLUMNS || <i32>load<u8>(INPUT + IN_CELLS) > MAX_CELLS) return false;
  for (let c = 0; c < columns; c++) if (<i32>load<u8>(INPUT + IN_LENGTHS + c) > min(52, IN_COLUMN_STRIDE)) return false;
  setRules(
    columns, load<u8>(INPUT + IN_CELLS), load<u8>(INPUT + IN_BUILD), load<u8>(INPUT + IN_EMPTY),
    load<u8>(INPUT + IN_SEQUENCE), load<u8>(INPUT + IN_WRAP) != 0,
  );
  setEmptyCellRule(load<u8>(INPUT + IN_EMPTY_CELL));
  setKeyWidth(columns);
  if (pooled) readPools();
  else setPools(0, 1, 2, 3);
  memory.fill(p, 0, POSITION_BYTES);
  for (let s = 0; s < 4; s++) setFoundation(p, s, load<u8>(INPUT + IN_FOUNDATIONS + s));
  for (let i = 0; i < MAX_CELLS; i++) setCellCard(p, i, i < numCells ? pooledCard(load<u8>(INPUT + IN_FREE_CELLS + i)) : 0);
  for (let c = 0; c < MAX_COLUMNS; c++) {
    const n = c < numColumns ? <i32>load<u8>(INPUT + IN_LENGTHS + c) : 0;
    setColumnLength(p, c, n);
    for (let i = 0; i < n; i++) setCardAt(p, c, i, pooledCard(load<u8>(INPUT + IN_CARDS + c * IN_COLUMN_STRIDE + i)));
  }
  if (pooledMode) sortPooledFoundations(p);
  return true;
}

/**
 * Reads IN_POOLED and IN_POOLS into the rules (`setPools`); traps on a pool
 * map that is not "each suit's pool is its pool's lowest suit" (the glue
 * writes only such maps) or on a pooled game under rules that look at suit.
 */
function readPools(): void {
  if (load<u8>(INPUT + IN_POOLED) == 0) {
    setPools(0, 1, 2, 3);
    return;
  }
  for (let s = 0; s < 4; s++) {
    const pool = <i32>load<u8>(INPUT + IN_POOLS + s);
    if (pool > s || <i32>load<u8>(INPUT + IN_POOLS + pool) != pool) unreachable();
  }
  if (buildRule != BUILD_RANK || wrapRanks) unreachable();
  setPools(load<u8>(INPUT + IN_POOLS), load<u8>(INPUT + IN_POOLS + 1), load<u8>(INPUT + IN_POOLS + 2), load<u8>(INPUT + IN_POOLS + 3));
}

/** The card byte of `card` in the game being solved: in the pooled game its rank and its suit's pool. */
// @ts-ignore: decorator
@inline function pooledCard(card: i32): i32 {
  return card == 0 || !pooledMode ? card : (card & ~3) | poolOf(card & 3);
}

/** Pooled game: puts the piles of each pool of `p` in ascending order of height over the pool's suits (position.ts `pooledPile`). */
function sortPooledFoundations(p: usize): void {
  for (let pool = 0; pool < 4; pool++) {
    // selection sort of the heights over the suits of `pool`, in suit order
    for (let j = 0; j < 4; j++) {
      if (poolOf(j) != pool) continue;
      for (let k = j + 1; k < 4; k++) {
        if (poolOf(k) != pool) continue;
        const a = foundation(p, j);
        const b = foundation(p, k);
        if (b < a) {
          setFoundation(p, j, b);
          setFoundation(p, k, a);
        }
      }
    }
  }
}
