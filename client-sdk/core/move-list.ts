/**
 * A played game's move list, read and replayed: standard notation (`3a a4
 * 38 3h`, rules.md "Move notation", the notation `toStandardNotation`
 * writes) or JSON moves (`Move`), checked move by move with the independent
 * checker (`verify.ts` `checkMove`).
 *
 * Standard notation names only the source and the target, so the card and
 * the card count are read off the position the move is played in:
 * - from a free cell: the card in it;
 * - from a column to a free cell or the foundations: the column's top card;
 * - from a column to a column: the longest run that may legally go there
 *   (`checkMove` decides, sequence-move capacity included). Onto a card, a
 *   down-building game allows exactly one run length; onto an empty column,
 *   the longest movable run, as FreeCell Pro and Solitaire Laboratory play
 *   a `38` to an empty column, unless the rest of the list is legal only
 *   with a shorter one: then the longest such (a solution may move part of
 *   a run to an empty column, and its notation cannot say how many cards;
 *   `replayMoveList` tries the lengths, longest first, within
 *   MAX_REPLAYED_MOVES).
 */
import { cardToString } from './cards.js';
import { SolverError } from './errors.js';
import type { Move } from './moves.js';
import { CELL_SYMBOLS, COLUMN_SYMBOLS } from './notation.js';
import type { Layout, Rules } from './rules.js';
import { checkMove, cloneLayout, applyMove, INDEX_PLACE_NAMES, type PlaceNames } from './verify.js';

/**
 * Places as standard notation writes them (docs/rules.md "Move notation"),
 * for the checker's reasons about a notation token: columns from 1 (`66` is
 * "the same column 6"), free cells by letter (`free cell a`).
 */
export const NOTATION_PLACE_NAMES: PlaceNames = { column: (i) => `column ${i + 1}`, cell: (i) => `free cell ${CELL_SYMBOLS[i] ?? i}` };

/** One entry of a move list: a standard-notation token (`"3a"`) or a JSON move. */
export type MoveListEntry = string | Move;

/** A replayed move list: the moves as JSON and every position along the way. */
export interface ReplayedGame {
  /** The moves, with card and count filled in (for notation entries). */
  moves: Move[];
  /**
   * `positions[0]` is the start, `positions[i + 1]` the position after
   * `moves[i]`: `moves.length + 1` layouts.
   */
  positions: Layout[];
}

/**
 * Splits a move list written as one string into its tokens: separated by
 * white space or commas, move numbers such as `1.` or `12)` dropped.
 * Never throws.
 */
export function splitMoveText(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((t) => t.trim())
    .filter((t) => t !== '' && !/^\d+[.)]$/.test(t));
}

/** Place named by one notation symbol, or null when the symbol names none in these rules. */
function place(symbol: string, rules: Rules): { kind: 'column' | 'cell' | 'foundation'; index: number } | null {
  if (symbol === 'h') return { kind: 'foundation', index: 0 };
  const column = COLUMN_SYMBOLS.indexOf(symbol);
  if (column >= 0) return column < rules.columns ? { kind: 'column', index: column } : null;
  const cell = CELL_SYMBOLS.indexOf(symbol);
  return cell >= 0 && cell < rules.freeCells ? { kind: 'cell', index: cell } : null;
}

/**
 * Reads one standard-notation token as a move in `layout`.
 * @param index the token's 0-based place in the list (for messages and `path`).
 * @throws SolverError `illegal_move` (path `moves.<index>`, token the text)
 *   when the token is not two symbols, names a place the game lacks, or its
 *   source is empty.
 */
export function moveFromNotation(token: string, rules: Rules, layout: Layout, index: number): Move {
  return notationReadings(notationSingle(token, rules, layout, index), rules, layout)[0];
}

/**
 * The token's source, target and the card on top of its source, as a
 * one-card move (the run length is `notationReadings`' business).
 * @throws SolverError as {@link moveFromNotation}.
 */
function notationSingle(token: string, rules: Rules, layout: Layout, index: number): Move {
  const where = { path: `moves.${index}`, token };
  const text = token.trim().toLowerCase();
  if (!/^[0-9a-q]{2}$/.test(text)) {
    throw new SolverError(
      'illegal_move',
      `move ${index} "${token}": standard notation is a source and a target (columns 1-9, 0 and j-q, cells a-g and i, h the foundations)`,
      where,
    );
  }
  const from = place(text[0], rules);
  const to = place(text[1], rules);
  if (from === null || from.kind === 'foundation') {
    throw new SolverError('illegal_move', `move ${index} "${token}": "${text[0]}" is no column or free cell of this game (${rules.columns} columns, ${rules.freeCells} free cells)`, where);
  }
  if (to === null) {
    throw new SolverError('illegal_move', `move ${index} "${token}": "${text[1]}" is no place of this game (${rules.columns} columns, ${rules.freeCells} free cells, h the foundations)`, where);
  }
  let card: number;
  if (from.kind === 'cell') {
    const held = layout.freeCells[from.index];
    if (held === null) throw new SolverError('illegal_move', `move ${index} "${token}": free cell ${text[0]} is empty`, where);
    card = held;
  } else {
    const col = layout.columns[from.index];
    if (col.length === 0) throw new SolverError('illegal_move', `move ${index} "${token}": column ${text[0]} is empty`, where);
    card = col[col.length - 1];
  }
  return {
    from: from.kind,
    fromIndex: from.index,
    to: to.kind,
    toIndex: to.kind === 'foundation' ? card % 4 : to.index,
    count: 1,
    card: cardToString(card),
    auto: false,
  };
}

/**
 * Every move a notation token may mean in `layout`, longest run first: one
 * for anything but a column-to-column move; for that, each legal run length
 * (several only onto an empty column), or the single card when none is legal
 * (the checker then says why).
 */
function notationReadings(single: Move, rules: Rules, layout: Layout): Move[] {
  if (single.from !== 'column' || single.to !== 'column') return [single];
  const col = layout.columns[single.fromIndex];
  const legal: Move[] = [];
  for (let n = col.length; n > 1; n--) {
    const run: Move = { ...single, count: n, card: cardToString(col[col.length - n]) };
    if (checkMove(rules, layout, run) === null) legal.push(run);
  }
  if (checkMove(rules, layout, single) === null) legal.push(single);
  return legal.length > 0 ? legal : [single];
}

/**
 * Moves `replayMoveList` may check in all while it tries the run lengths of
 * ambiguous tokens (a 2,000-move list with a few ambiguous tokens takes a
 * few thousand); past it, the remaining ambiguous tokens take the longest run.
 */
const MAX_REPLAYED_MOVES = 200_000;

/**
 * Reads and replays a move list from `start`: every entry is turned into a
 * move (notation entries read off the position, see the file comment) and
 * checked legal with `checkMove` (verify.ts) before it is played.
 * @throws SolverError `illegal_move` naming the entry (`path: moves.<i>`,
 *   `token` the notation) and the checker's reason, for the first entry that
 *   is unreadable or illegal.
 */
export function replayMoveList(rules: Rules, start: Layout, entries: readonly MoveListEntry[]): ReplayedGame {
  const budget = { left: MAX_REPLAYED_MOVES };
  const moves: Move[] = [];
  const positions: Layout[] = [cloneLayout(start)];
  replayFrom(rules, entries, 0, moves, positions, budget);
  return { moves, positions };
}

/**
 * Replays `entries[i..]` from the last of `positions`, appending to `moves`
 * and `positions`. At a token with several readings it tries each (longest
 * first) on the rest of the list and keeps the first that replays to the end;
 * when none does, it throws the longest reading's failure.
 */
function replayFrom(rules: Rules, entries: readonly MoveListEntry[], first: number, moves: Move[], positions: Layout[], budget: { left: number }): void {
  for (let i = first; i < entries.length; i++) {
    const entry = entries[i];
    const layout = positions[positions.length - 1];
    budget.left--;
    const readings = typeof entry !== 'string' ? [entry] : notationReadings(notationSingle(entry, rules, layout, i), rules, layout);
    if (budget.left <= 0) readings.length = 1;
    if (readings.length > 1) {
      let firstFailure: unknown = null;
      for (const move of readings) {
        const tryMoves = [...moves, { ...move }];
        const tryPositions = [...positions, applyMove(rules, layout, move)];
        try {
          replayFrom(rules, entries, i + 1, tryMoves, tryPositions, budget);
        } catch (err) {
          if (!(err instanceof SolverError) || err.code !== 'illegal_move') throw err;
          firstFailure ??= err;
          continue;
        }
        moves.splice(0, moves.length, ...tryMoves);
        positions.splice(0, positions.length, ...tryPositions);
        return;
      }
      throw firstFailure;
    }
    const move = readings[0];
    const reason = checkMove(rules, layout, move, typeof entry === 'string' ? NOTATION_PLACE_NAMES : INDEX_PLACE_NAMES);
    if (reason !== null) {
      throw new SolverError('illegal_move', `move ${i}${typeof entry === 'string' ? ` "${entry}"` : ''} is illegal: ${reason}`, {
        path: `moves.${i}`,
        ...(typeof entry === 'string' ? { token: entry } : {}),
      });
    }
    moves.push({ ...move });
    positions.push(applyMove(rules, layout, move));
  }
}

/**
 * A string key of a position, equal for two layouts exactly when they hold
 * the same cards in the same columns and free cells and the same
 * foundations (no reordering: a move list played from one is played from
 * the other). Never throws.
 */
export function layoutKey(layout: Layout): string {
  return `${layout.foundations.join(',')}|${layout.freeCells.map((c) => (c === null ? '-' : c)).join(',')}|${layout.columns.map((c) => c.join(',')).join('/')}`;
}
