/**
 * The move type that every solution is made of, as it travels in JSON.
 *
 * Counting (documented in docs/api.md, "Solutions"): every entry of a solution is one move,
 * foundation moves included and auto-moves included; a sequence move
 * (supermove) of n cards is one move with `count = n`.
 */

/** Where a move starts. */
export type MoveSource = 'column' | 'cell';
/** Where a move ends. */
export type MoveTarget = 'column' | 'cell' | 'foundation';

/**
 * One move, indices 0-based.
 * - `fromIndex`: the source column or free cell.
 * - `toIndex`: the target column or free cell; for `foundation` the suit index (0 C, 1 D, 2 H, 3 S).
 * - `count`: cards moved (1 unless a sequence move from column to column).
 * - `card`: the moved card, for a sequence move the deepest card of the moved run (e.g. `"9H"`).
 * - `auto`: true when the solver played it as a safe auto-move to the foundation.
 */
export interface Move {
  from: MoveSource;
  fromIndex: number;
  to: MoveTarget;
  toIndex: number;
  count: number;
  card: string;
  auto: boolean;
}
