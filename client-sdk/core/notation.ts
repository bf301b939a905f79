/**
 * Move notation (docs/rules.md, "Move notation") and the expansion of sequence
 * moves into single-card moves.
 *
 * Counting: a solution is a list of {@link Move}s; each entry is one move,
 * foundation moves and auto-moves included, and a sequence move (supermove) of
 * n cards is one move. Both notations below give exactly one string per move.
 * {@link expandSequenceMoves} gives the single-card solution for those who
 * count every card moved.
 */
import { cardToString } from './cards.js';
import { SolverError } from './errors.js';
import type { Move } from './moves.js';
import type { Layout, Rules } from './rules.js';
import { applyMove, checkMove, cloneLayout, sequenceCapacity } from './verify.js';

/**
 * Column symbols of the standard notation, index = column (docs/rules.md
 * "Move notation"): `1`..`9`, `0` for the tenth column, then our extension
 * for wider games (Baker's Dozen, Fan), the letters `j`..`q` for columns
 * 11..18: one character each, clear of the cell letters and of `h`.
 */
export const COLUMN_SYMBOLS = '1234567890jklmnopq';
/** Free-cell symbols of the standard notation, index = cell; `h` is skipped (it means the foundations). */
export const CELL_SYMBOLS = 'abcdefgi';

function columnSymbol(index: number, rules: Rules, where: string): string {
  if (!Number.isInteger(index) || index < 0 || index >= rules.columns || index >= COLUMN_SYMBOLS.length) {
    throw new SolverError('illegal_move', `${where}: no column ${JSON.stringify(index)} (${rules.columns} columns)`);
  }
  return COLUMN_SYMBOLS[index];
}

function cellSymbol(index: number, rules: Rules, where: string): string {
  if (!Number.isInteger(index) || index < 0 || index >= rules.freeCells || index >= CELL_SYMBOLS.length) {
    throw new SolverError('illegal_move', `${where}: no free cell ${JSON.stringify(index)} (${rules.freeCells} free cells)`);
  }
  return CELL_SYMBOLS[index];
}

/**
 * Standard notation (Solitaire Laboratory, fc-solve `-sn`; docs/rules.md "Move
 * notation"): one string per move, source symbol then destination symbol.
 * - Columns: `1`..`9` for columns 0..8, and `0` for the tenth column (index 9),
 *   so every symbol is one character and 10-column games (Seahaven Towers,
 *   Fortress) stay unambiguous: `10` means column 1 to column 10. Games with at
 *   most 9 columns never use `0`, so 8-column output is the usual `1`..`8`.
 *   Columns 11..18 (Baker's Dozen, Fan) are `j`..`q`, our extension
 *   ({@link COLUMN_SYMBOLS}): `jh` is column 11 to the foundations.
 * - Free cells: `a`,`b`,`c`,`d` for cells 0..3 and, for up to 8 cells (Eight
 *   Off, Penguin), `e`,`f`,`g`,`i` for cells 4..7; `h` is skipped because it
 *   means the foundations.
 * - Foundations: `h` (whatever the suit).
 * Examples: `3a` (column 3 to a cell), `a4`, `3h`, `ah`, `38`; a sequence move
 * is written like a single move (`38` whatever the count).
 *
 * @throws SolverError `illegal_move` when a move names a column or cell the
 *   rules do not have, or an unknown source/destination kind.
 */
export function toStandardNotation(moves: Move[], rules: Rules): string[] {
  return moves.map((move, i) => {
    const where = `move ${i}`;
    let source: string;
    if (move.from === 'column') source = columnSymbol(move.fromIndex, rules, where);
    else if (move.from === 'cell') source = cellSymbol(move.fromIndex, rules, where);
    else throw new SolverError('illegal_move', `${where}: unknown source ${JSON.stringify(move.from)}`);
    let dest: string;
    if (move.to === 'column') dest = columnSymbol(move.toIndex, rules, where);
    else if (move.to === 'cell') dest = cellSymbol(move.toIndex, rules, where);
    else if (move.to === 'foundation') dest = 'h';
    else throw new SolverError('illegal_move', `${where}: unknown destination ${JSON.stringify(move.to)}`);
    return source + dest;
  });
}

/**
 * fc-solve's verbose move lines (docs/rules.md "Move notation"), 0-based indices,
 * which PySolFC and other tools read:
 * - `Move a card from stack 3 to freecell 0`
 * - `Move a card from freecell 1 to stack 4`
 * - `Move a card from freecell 0 to freecell 2`
 * - `Move a card from stack 3 to the foundations`
 * - `Move a card from freecell 0 to the foundations`
 * - `Move 3 cards from stack 2 to stack 5`; a single card between columns is
 *   `Move 1 cards from stack 2 to stack 5`, exactly as fc-solve prints it.
 * The foundation line names no suit (fc-solve's form); the card is implied.
 *
 * @throws SolverError `illegal_move` for an unknown source/destination kind or a
 *   non-integer/negative index (indices are not checked against any rules).
 */
export function toFcsMoves(moves: Move[]): string[] {
  return moves.map((move, i) => {
    for (const index of [move.fromIndex, move.toIndex]) {
      if (!Number.isInteger(index) || index < 0) throw new SolverError('illegal_move', `move ${i}: bad index ${JSON.stringify(index)}`);
    }
    const source = move.from === 'column' ? `stack ${move.fromIndex}` : move.from === 'cell' ? `freecell ${move.fromIndex}` : null;
    if (source === null) throw new SolverError('illegal_move', `move ${i}: unknown source ${JSON.stringify(move.from)}`);
    if (move.to === 'foundation') return `Move a card from ${source} to the foundations`;
    if (move.to === 'cell') return `Move a card from ${source} to freecell ${move.toIndex}`;
    if (move.to !== 'column') throw new SolverError('illegal_move', `move ${i}: unknown destination ${JSON.stringify(move.to)}`);
    if (move.from === 'cell') return `Move a card from ${source} to stack ${move.toIndex}`;
    return `Move ${move.count} cards from ${source} to stack ${move.toIndex}`;
  });
}

/**
 * Replaces every sequence move (column to column, count n > 1) by single-card
 * moves through free cells and empty columns, each legal on its own (docs/rules.md
 * "Sequence-move capacity": a sequence move is a shortcut for such moves).
 *
 * Method, with f empty free cells (none when they are a reserve,
 * `rules.emptyCell: 'none'`) and e usable empty columns (columns other than
 * the destination, and only when `rules.emptyColumn` is `any`):
 * - n ≤ f + 1: the top n − 1 cards go to free cells (lowest-numbered first),
 *   the deepest moved card goes to the destination, then the parked cards come
 *   back in reverse order: 2n − 1 moves;
 * - otherwise: park the top k = min(n − 1, (f + 1) · 2^(e−1)) cards in the first
 *   usable empty column (recursively), move the other n − k (recursively), then
 *   move the k parked cards onto them (recursively).
 * This works whenever n ≤ (f + 1) · 2^e, which every legal `supermove` and
 * `cells_plus_one` move satisfies, so the result is accepted by
 * `checkSolution({...rules, sequenceMove: 'none'}, start, result)` whenever
 * the input is accepted with `rules` (moves of one card are copied unchanged).
 *
 * Under `unlimited`, a move longer than (f + 1) · 2^e cannot be made from
 * single-card moves; it is kept as it is (one entry with its count), so the
 * result then still needs the `unlimited` rule.
 *
 * New moves have `auto: false` and `count: 1`. `start` and `moves` are not changed.
 *
 * @throws SolverError `illegal_move` (message `move i: reason`, reason as in
 *   `checkMove`) when a move of the input is illegal under `rules`.
 * @throws SolverError `internal_error` if an expansion step were ever illegal
 *   (a bug, never expected).
 */
export function expandSequenceMoves(rules: Rules, start: Layout, moves: Move[]): Move[] {
  const singleCardRules: Rules = { ...rules, sequenceMove: 'none' };
  const out: Move[] = [];
  let layout = cloneLayout(start);

  /** One single-card move of the top card of `from` (read from the layout), played at once. */
  const step = (from: 'column' | 'cell', fromIndex: number, to: 'column' | 'cell', toIndex: number): void => {
    const held = from === 'column' ? layout.columns[fromIndex][layout.columns[fromIndex].length - 1] : layout.freeCells[fromIndex];
    if (held === null || held === undefined) throw new SolverError('internal_error', `expansion: ${from} ${fromIndex} is empty`);
    const move: Move = { from, fromIndex, to, toIndex, count: 1, card: cardToString(held), auto: false };
    try {
      layout = applyMove(singleCardRules, layout, move);
    } catch (err) {
      throw new SolverError('internal_error', `expansion produced an illegal move: ${(err as Error).message}`);
    }
    out.push(move);
  };

  /** Moves the top n cards of column `src` onto column `dst` one card at a time. */
  const moveRun = (n: number, src: number, dst: number): void => {
    const cells: number[] = [];
    if (rules.emptyCell !== 'none') {
      layout.freeCells.forEach((c, i) => {
        if (c === null) cells.push(i);
      });
    }
    if (n <= cells.length + 1) {
      const used = cells.slice(0, n - 1);
      for (const c of used) step('column', src, 'cell', c);
      step('column', src, 'column', dst);
      for (const c of used.slice().reverse()) step('cell', c, 'column', dst);
      return;
    }
    const empties: number[] = [];
    if (rules.emptyColumn === 'any') {
      layout.columns.forEach((col, i) => {
        if (i !== dst && col.length === 0) empties.push(i);
      });
    }
    if (empties.length === 0) throw new SolverError('internal_error', `expansion: ${n} cards need an empty column`);
    const park = empties[0];
    const k = Math.min(n - 1, (cells.length + 1) * 2 ** (empties.length - 1));
    moveRun(k, src, park);
    moveRun(n - k, src, dst);
    moveRun(k, park, dst);
  };

  moves.forEach((move, i) => {
    const reason = checkMove(rules, layout, move);
    if (reason !== null) throw new SolverError('illegal_move', `move ${i}: ${reason}`);
    const expandable =
      move.from === 'column' &&
      move.to === 'column' &&
      move.count > 1 &&
      move.count <= sequenceCapacity({ ...rules, sequenceMove: 'supermove' }, layout, move.toIndex);
    if (expandable) {
      moveRun(move.count, move.fromIndex, move.toIndex);
    } else {
      out.push({ ...move });
      layout = applyMove(rules, layout, move);
    }
  });
  return out;
}
