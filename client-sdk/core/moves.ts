/**
 * The move type that every solution is made of, as it travels in JSON.
 *
 * Counting (documented in docs/api.md, "Solutions"): every entry of a solution is one move,
 * foundation moves included and auto-moves included; a sequence move
 * (supermove) of n cards is one move with `count = n`.
 */

/**
 * Where a move starts. The order is part of the engine's output format (a
 * word's index is its code in a solution record, assembly/output.ts) and of
 * the batch store's move encoding.
 */
export const MOVE_SOURCES = ['column', 'cell'] as const;
/** One of {@link MOVE_SOURCES}. */
export type MoveSource = (typeof MOVE_SOURCES)[number];
/** Where a move ends; ordered as {@link MOVE_SOURCES}, `foundation` last. */
export const MOVE_TARGETS = ['column', 'cell', 'foundation'] as const;
/** One of {@link MOVE_TARGETS}. */
export type MoveTarget = (typeof MOVE_TARGETS)[number];

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
