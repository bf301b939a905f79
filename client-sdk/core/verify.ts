/**
 * The independent solution checker.
 *
 * Every solution the search engine returns is replayed here, move by move,
 * before the service may answer "solved". This file is written from the rules
 * text only (`docs/rules.md` and the seed rule pages) and shares no
 * code with the engine in `assembly/`. It aims to be obviously correct, not
 * fast: every rule is one small, separately readable check.
 *
 * Conventions used in every `reason` text:
 * - columns, free cells and foundations are named by their 0-based index, as
 *   in {@link Move} (`column 3`, `free cell 0`, `foundation 2`), foundations
 *   also by suit letter (`foundation H`);
 * - cards are written in the fc-solve form (`TH`, `AS`).
 *
 * Rule interpretations (all from docs/rules.md, "Rule parameters"):
 * - `supermove` capacity (f + 1) · 2^e counts empty columns (e) only when
 *   empty columns take any card (`emptyColumn: 'any'`); docs/rules.md defines the
 *   formula for that case ("`supermove` (empty columns take any card)"), and
 *   with `kings`/`none` an empty column cannot park an arbitrary part of a
 *   run, so counting it would change which deals are solvable. With
 *   `kings`/`none`, a `supermove` rule therefore allows f + 1 cards.
 * - `suit_up_or_down` (Fortress): a moved run, together with the card it is
 *   placed on, must be one same-suit chain going in one direction (all up or
 *   all down), as PySolFC's up-or-down row stacks require. A single card may
 *   go one rank up or down in suit. (With one deck a same-suit chain cannot
 *   turn back without repeating a card, so this only guards malformed input.)
 * - With `wrap`, ranks are cyclic everywhere: on the tableau a King builds
 *   on an Ace (down) and an Ace on a King (up); the foundations continue
 *   K → A ("Penguin's beak").
 * - Foundation-to-tableau moves do not exist in {@link Move}, so they are never
 *   legal here (docs/rules.md: a house rule, only as an explicit option).
 * - `emptyCell: 'none'` (King Albert's reserve): a card may leave a cell, to a
 *   column or a foundation, but no card enters one, so an empty cell is no
 *   room for a sequence move either (f counts the empty cells that take a
 *   card). Absent `emptyCell` is `any`.
 */
import {
  DECK_SIZE,
  RANK_LETTERS,
  SUIT_LETTERS,
  cardToString,
  fullDeck,
  isCard,
  isRed,
  parseCard,
  rankOf,
  suitOf,
  type Card,
} from './cards.js';
import { SolverError } from './errors.js';
import { PACKED_MOVE_BYTES, readPackedMove, type Move } from './moves.js';
import {
  BUILD_RULES,
  EMPTY_CELL_RULES,
  EMPTY_COLUMN_RULES,
  MAX_COLUMNS,
  MAX_FREE_CELLS,
  SEQUENCE_MOVE_RULES,
  type Layout,
  type Rules,
} from './rules.js';

/**
 * The checker's verdict on a solution.
 * - `ok: true`: every move was legal and the final layout is won; `final` is that layout.
 * - `ok: false`: `moveIndex` is the 0-based index of the first illegal move,
 *   `moves.length` when all moves were legal but the game is not won at the
 *   end, or `-1` when the rules or the start layout themselves are invalid;
 *   `reason` says why in plain words.
 */
export type CheckResult = { ok: true; final: Layout } | { ok: false; moveIndex: number; reason: string };

// ---------------------------------------------------------------------------
// Ranks (docs/rules.md, "Rule parameters": foundation base, wrapping K→A)
// ---------------------------------------------------------------------------

/** The rank one below `rank`, or null (below an Ace only with `wrap`: King). */
function rankBelow(rules: Rules, rank: number): number | null {
  if (rank > 1) return rank - 1;
  return rules.wrap ? 13 : null;
}

/** The rank one above `rank`, or null (above a King only with `wrap`: Ace). */
function rankAbove(rules: Rules, rank: number): number | null {
  if (rank < 13) return rank + 1;
  return rules.wrap ? 1 : null;
}

/**
 * Rank of the i-th card (0-based) of a foundation: foundationBase, base + 1, …,
 * wrapping K → A when `rules.wrap`; null past the end of the pile.
 */
function foundationRank(rules: Rules, i: number): number | null {
  if (i < 0 || i >= 13) return null;
  const rank = rules.foundationBase + i;
  if (rank <= 13) return rank;
  return rules.wrap ? rank - 13 : null;
}

/**
 * The rank an empty column takes under `emptyColumn: 'kings'`: the King, or
 * with a wrapping deck the rank below the foundation base (docs/rules.md, "Rule
 * parameters" and "Penguin's beak").
 */
function topRank(rules: Rules): number {
  if (!rules.wrap) return 13;
  return rules.foundationBase === 1 ? 13 : rules.foundationBase - 1;
}

// ---------------------------------------------------------------------------
// Building on the tableau (docs/rules.md, "tableau build")
// ---------------------------------------------------------------------------

/** True when `card` may lie directly on `base` in a column under `rules.build`. */
function fitsOn(rules: Rules, base: Card, card: Card): boolean {
  const down = rankOf(card) === rankBelow(rules, rankOf(base));
  const up = rankOf(card) === rankAbove(rules, rankOf(base));
  const sameSuit = suitOf(card) === suitOf(base);
  switch (rules.build) {
    case 'alternate_color':
      return down && isRed(card) !== isRed(base);
    case 'suit':
      return down && sameSuit;
    case 'rank':
      return down;
    case 'suit_up_or_down':
      return sameSuit && (down || up);
  }
}

/**
 * Index j of the first card of the chain (deepest first) that does not fit
 * on chain[j - 1], or -1 when the whole chain is one tableau sequence; the
 * chain is `under` (when not null) followed by `cards[from..to)`, read in
 * place (no array is built). For `suit_up_or_down` the chain must also keep
 * one direction.
 */
function firstBreakIn(rules: Rules, under: Card | null, cards: Card[], from: number, to: number): number {
  const offset = under === null ? -from : 1 - from;
  let direction = 0;
  let prev = under === null ? cards[from] : under;
  for (let i = under === null ? from + 1 : from; i < to; i++) {
    const card = cards[i];
    if (!fitsOn(rules, prev, card)) return i + offset;
    if (rules.build === 'suit_up_or_down') {
      const d = rankOf(card) === rankAbove(rules, rankOf(prev)) ? 1 : -1;
      if (direction !== 0 && d !== direction) return i + offset;
      direction = d;
    }
    prev = card;
  }
  return -1;
}

// ---------------------------------------------------------------------------
// Sequence-move capacity (docs/rules.md, "Sequence-move capacity")
// ---------------------------------------------------------------------------

/**
 * Empty free cells of `layout` that take a card (counted in a loop: the
 * checker asks once per sequence move); none when the cells are a reserve
 * (`emptyCell: 'none'`).
 */
function emptyFreeCells(rules: Rules, layout: Layout): number {
  if (rules.emptyCell === 'none') return 0;
  let n = 0;
  for (const c of layout.freeCells) if (c === null) n++;
  return n;
}

/** Empty columns other than `toColumn`, counted only when empty columns take any card. */
function usableEmptyColumns(rules: Rules, layout: Layout, toColumn: number): number {
  if (rules.emptyColumn !== 'any') return 0;
  let n = 0;
  for (let i = 0; i < layout.columns.length; i++) if (i !== toColumn && layout.columns[i].length === 0) n++;
  return n;
}

/**
 * The most cards one column-to-column move may carry in `layout` to column
 * `toColumn` (0-based), per docs/rules.md "Rule parameters" / "Sequence-move
 * capacity":
 * - `none`: 1;
 * - `supermove`: (f + 1) · 2^e, f = empty free cells (0 when they are a
 *   reserve, `emptyCell: 'none'`), e = empty columns not counting the
 *   destination (counted only when `emptyColumn` is `any`, see the file
 *   comment);
 * - `cells_plus_one`: f + 1 (Seahaven seed: "(free cells + 1) cards per move");
 * - `unlimited`: `Infinity`.
 * Does not check that the move is otherwise legal. Never throws.
 */
export function sequenceCapacity(rules: Rules, layout: Layout, toColumn: number): number {
  const f = emptyFreeCells(rules, layout);
  switch (rules.sequenceMove) {
    case 'none':
      return 1;
    case 'supermove':
      return (f + 1) * 2 ** usableEmptyColumns(rules, layout, toColumn);
    case 'cells_plus_one':
      return f + 1;
    case 'unlimited':
      return Infinity;
  }
}

function capacityDetail(rules: Rules, layout: Layout, toColumn: number): string {
  const f = emptyFreeCells(rules, layout);
  switch (rules.sequenceMove) {
    case 'none':
      return 'sequenceMove none: single cards only';
    case 'supermove':
      return `sequenceMove supermove: (f + 1) * 2^e with f = ${f}, e = ${usableEmptyColumns(rules, layout, toColumn)}`;
    case 'cells_plus_one':
      return `sequenceMove cells_plus_one: f + 1 with f = ${f}`;
    case 'unlimited':
      return 'sequenceMove unlimited';
  }
}

// ---------------------------------------------------------------------------
// One move
// ---------------------------------------------------------------------------

function cardsText(cards: Card[]): string {
  return cards.map(cardToString).join(' ');
}

function isIndex(i: unknown, size: number): i is number {
  return typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < size;
}

/**
 * Which check of {@link moveFault} a move failed (the numbers are those of
 * its list): 0 `invalid_rules`, 1 `bad_shape`, 2 `auto_not_to_foundation`,
 * 3 `same_place`, 4 `one_card_only`, 5 `card_not_there`,
 * 6 `run_not_a_sequence`, 7 `over_capacity`, 8 `destination_refuses`.
 */
export type MoveCheck =
  | 'invalid_rules'
  | 'bad_shape'
  | 'auto_not_to_foundation'
  | 'same_place'
  | 'one_card_only'
  | 'card_not_there'
  | 'run_not_a_sequence'
  | 'over_capacity'
  | 'destination_refuses';

/** Why a move is illegal: the check it failed, and the reason in words (the conventions of this file's comment). */
export interface MoveFault {
  check: MoveCheck;
  reason: string;
}

function fault(check: MoveCheck, reason: string): MoveFault {
  return { check, reason };
}

/**
 * How a fault's reason names a column or a free cell (index 0-based), so
 * that it reads in the user's own terms: JSON moves count from 0
 * ({@link INDEX_PLACE_NAMES}: `column 5`, `free cell 0`); standard notation
 * numbers columns from 1 and letters cells (move-list.ts: `column 6`, `free
 * cell a`; docs/rules.md "Move notation").
 */
export interface PlaceNames {
  column(index: number): string;
  cell(index: number): string;
}

/** Places by their 0-based indices, as JSON moves give them (`column 5`, `free cell 0`). */
export const INDEX_PLACE_NAMES: PlaceNames = { column: (i) => `column ${i}`, cell: (i) => `free cell ${i}` };

/**
 * Why `move` is illegal in `layout` under `rules`, or `null` when it is legal.
 * Never throws and never changes its arguments.
 *
 * Checks, in this order (the first failure is reported, with its
 * {@link MoveCheck} code):
 * 0. the rules are valid (else the reason starts `invalid rules:`);
 * 1. the move's shape: `from`, `to`, `count` (positive integer), `auto`
 *    (boolean), `card` (a card token, see `parseCard`), indices in range
 *    (columns `0..rules.columns-1`, cells `0..rules.freeCells-1`,
 *    foundations `0..3` = suits C, D, H, S);
 * 2. an `auto` move must go to a foundation (auto-moves are ordinary
 *    foundation moves);
 * 3. source and destination differ;
 * 4. one card at a time from or to a free cell (a cell holds one card: FreeCell
 *    seed) and to a foundation (docs/rules.md: foundations built up in suit);
 * 5. the source holds `card` at the right depth: for `count` n from a column,
 *    the n-th card from the top; for a cell, the card in it;
 * 6. a run of n > 1 cards is one tableau sequence under `rules.build`
 *    (docs/rules.md "tableau build");
 * 7. n does not exceed {@link sequenceCapacity} (docs/rules.md "Sequence-move capacity");
 * 8. the destination accepts the card(s): an empty cell, unless the cells are
 *    a reserve (`emptyCell: 'none'`: no cell takes a card); the foundation of the
 *    card's suit whose next rank it is (from `foundationBase`, wrapping K→A
 *    with `wrap`); a non-empty column whose top card the run continues; an
 *    empty column under `emptyColumn` (`any`: any card; `kings`: only the top
 *    rank, see docs/rules.md "Rule parameters"; `none`: nothing).
 */
export function moveFault(rules: Rules, layout: Layout, move: Move, names: PlaceNames = INDEX_PLACE_NAMES): MoveFault | null {
  const badRules = rulesProblem(rules);
  if (badRules !== null) return fault('invalid_rules', badRules);
  return moveFaultUnderValidRules(rules, layout, move, names);
}

/**
 * {@link moveFault} from its check 1 on, for rules already found valid (check
 * 0): {@link checkSolution} validates the rules once, not once per move.
 */
function moveFaultUnderValidRules(rules: Rules, layout: Layout, move: Move, names: PlaceNames): MoveFault | null {
  if (move === null || typeof move !== 'object') return fault('bad_shape', 'move is not an object');
  const { from, fromIndex, to, toIndex, count, auto } = move;
  if (from !== 'column' && from !== 'cell') return fault('bad_shape', `unknown source ${JSON.stringify(from)}`);
  if (to !== 'column' && to !== 'cell' && to !== 'foundation') return fault('bad_shape', `unknown destination ${JSON.stringify(to)}`);
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) return fault('bad_shape', `count must be a positive integer, got ${JSON.stringify(count)}`);
  if (typeof auto !== 'boolean') return fault('bad_shape', 'auto must be true or false');
  const card = typeof move.card === 'string' ? parseCard(move.card) : null;
  if (card === null) return fault('bad_shape', `${JSON.stringify(move.card)} is not a card`);

  const columns = Math.min(rules.columns, layout.columns.length);
  const cells = Math.min(rules.freeCells, layout.freeCells.length);
  if (from === 'column' && !isIndex(fromIndex, columns)) return fault('bad_shape', `no column ${JSON.stringify(fromIndex)} (${rules.columns} columns)`);
  if (from === 'cell' && !isIndex(fromIndex, cells)) return fault('bad_shape', `no free cell ${JSON.stringify(fromIndex)} (${rules.freeCells} free cells)`);
  if (to === 'column' && !isIndex(toIndex, columns)) return fault('bad_shape', `no column ${JSON.stringify(toIndex)} (${rules.columns} columns)`);
  if (to === 'cell' && !isIndex(toIndex, cells)) return fault('bad_shape', `no free cell ${JSON.stringify(toIndex)} (${rules.freeCells} free cells)`);
  if (to === 'foundation' && !isIndex(toIndex, 4)) return fault('bad_shape', `no foundation ${JSON.stringify(toIndex)} (foundations are 0..3: C, D, H, S)`);

  if (auto && to !== 'foundation') return fault('auto_not_to_foundation', 'an auto move must go to a foundation');
  if (from === to && fromIndex === toIndex) return fault('same_place', `source and destination are the same ${from === 'cell' ? names.cell(fromIndex) : names.column(fromIndex)}`);
  if (count > 1 && from === 'cell') return fault('one_card_only', `a free cell holds one card; count must be 1, got ${count}`);
  if (count > 1 && to === 'cell') return fault('one_card_only', `a free cell takes one card; count must be 1, got ${count}`);
  if (count > 1 && to === 'foundation') return fault('one_card_only', `cards go to the foundations one at a time; count must be 1, got ${count}`);

  // The source holds the named card at the right depth. The moved run is
  // `runCards[runFrom..runFrom + count)`: the top of the source column, or
  // the card of the free cell (no array is built unless a fault is reported).
  let runCards: Card[];
  let runFrom: number;
  if (from === 'column') {
    const col = layout.columns[fromIndex];
    if (col.length === 0) return fault('card_not_there', `${names.column(fromIndex)} is empty`);
    if (col.length < count) return fault('card_not_there', `${names.column(fromIndex)} holds ${col.length} card${col.length === 1 ? '' : 's'}, cannot move ${count}`);
    const found = col[col.length - count];
    if (found !== card) return fault('card_not_there', `${names.column(fromIndex)}: card ${count} from the top is ${cardToString(found)}, not ${cardToString(card)}`);
    runCards = col;
    runFrom = col.length - count;
  } else {
    const held = layout.freeCells[fromIndex];
    if (held === null) return fault('card_not_there', `${names.cell(fromIndex)} is empty`);
    if (held !== card) return fault('card_not_there', `${names.cell(fromIndex)} holds ${cardToString(held)}, not ${cardToString(card)}`);
    runCards = layout.freeCells as Card[]; // only the checked card at fromIndex is read
    runFrom = fromIndex;
  }
  const runTo = runFrom + count;

  // The moved run is one tableau sequence.
  const brk = firstBreakIn(rules, null, runCards, runFrom, runTo);
  if (brk >= 0) {
    const run = runCards.slice(runFrom, runTo);
    return fault('run_not_a_sequence', `moved run ${cardsText(run)} is not a sequence: ${cardToString(run[brk])} cannot go on ${cardToString(run[brk - 1])} (build ${rules.build})`);
  }

  // Sequence-move capacity (only column-to-column moves carry more than one card).
  if (count > 1) {
    const capacity = sequenceCapacity(rules, layout, toIndex);
    if (count > capacity) return fault('over_capacity', `${count} cards exceed the sequence-move capacity ${capacity} (${capacityDetail(rules, layout, toIndex)})`);
  }

  // The destination accepts the card(s).
  if (to === 'cell') {
    if (rules.emptyCell === 'none') return fault('destination_refuses', `${names.cell(toIndex)} is a reserve cell: no card enters it (emptyCell none)`);
    const held = layout.freeCells[toIndex];
    if (held !== null) return fault('destination_refuses', `${names.cell(toIndex)} is occupied by ${cardToString(held)}`);
    return null;
  }
  if (to === 'foundation') {
    const suitLetter = SUIT_LETTERS[toIndex];
    if (suitOf(card) !== toIndex) return fault('destination_refuses', `${cardToString(card)} is not of suit ${suitLetter} (foundation ${toIndex})`);
    const next = foundationRank(rules, layout.foundations[toIndex]);
    if (next === null) return fault('destination_refuses', `foundation ${suitLetter} is complete`);
    if (rankOf(card) !== next) return fault('destination_refuses', `foundation ${suitLetter} takes ${RANK_LETTERS[next]}${suitLetter} next, not ${cardToString(card)}`);
    return null;
  }
  const dest = layout.columns[toIndex];
  if (dest.length > 0) {
    const top = dest[dest.length - 1];
    if (firstBreakIn(rules, top, runCards, runFrom, runTo) >= 0) {
      return fault('destination_refuses', `${cardsText(runCards.slice(runFrom, runTo))} cannot go on ${cardToString(top)} in ${names.column(toIndex)} (build ${rules.build})`);
    }
    return null;
  }
  switch (rules.emptyColumn) {
    case 'any':
      return null;
    case 'none':
      return fault('destination_refuses', `empty ${names.column(toIndex)} takes no cards (emptyColumn none)`);
    case 'kings': {
      const r = topRank(rules);
      if (rankOf(card) !== r) return fault('destination_refuses', `empty ${names.column(toIndex)} takes only ${RANK_LETTERS[r]}s (emptyColumn kings), not ${cardToString(card)}`);
      return null;
    }
  }
}

/**
 * Every legal move in `layout` under `rules`: each candidate {@link Move}
 * (every source, every card count, every destination) is put to
 * {@link moveFault}, and the ones it accepts are returned, so this list and
 * the checker can never disagree. Candidates, in this order (which is the
 * order of the result):
 * - from each column (0..), each run of n = 1..length top cards: to every
 *   other column; with n = 1 also to every free cell and to the foundation
 *   of the card's suit;
 * - from each occupied free cell: to every column, every other free cell and
 *   the foundation of the card's suit.
 * Moves are `auto: false`. With c columns of at most k cards and f free
 * cells that is at most c·k·(c − 1) + c·(f + 1) + f·(c + f) candidates (432
 * at FreeCell's start). Never throws; invalid rules give an empty list.
 */
export function legalMoves(rules: Rules, layout: Layout): Move[] {
  if (rulesProblem(rules) !== null) return [];
  const columns = Math.min(rules.columns, layout.columns.length);
  const cells = Math.min(rules.freeCells, layout.freeCells.length);
  const found: Move[] = [];
  const consider = (move: Move): void => {
    if (moveFaultUnderValidRules(rules, layout, move, INDEX_PLACE_NAMES) === null) found.push(move);
  };
  for (let c = 0; c < columns; c++) {
    const col = layout.columns[c];
    for (let n = 1; n <= col.length; n++) {
      const card = cardToString(col[col.length - n]);
      for (let to = 0; to < columns; to++) {
        if (to !== c) consider({ from: 'column', fromIndex: c, to: 'column', toIndex: to, count: n, card, auto: false });
      }
      if (n > 1) continue;
      for (let cell = 0; cell < cells; cell++) consider({ from: 'column', fromIndex: c, to: 'cell', toIndex: cell, count: 1, card, auto: false });
      consider({ from: 'column', fromIndex: c, to: 'foundation', toIndex: suitOf(col[col.length - 1]), count: 1, card, auto: false });
    }
  }
  for (let cell = 0; cell < cells; cell++) {
    const held = layout.freeCells[cell];
    if (held === null) continue;
    const card = cardToString(held);
    for (let to = 0; to < columns; to++) consider({ from: 'cell', fromIndex: cell, to: 'column', toIndex: to, count: 1, card, auto: false });
    for (let to = 0; to < cells; to++) {
      if (to !== cell) consider({ from: 'cell', fromIndex: cell, to: 'cell', toIndex: to, count: 1, card, auto: false });
    }
    consider({ from: 'cell', fromIndex: cell, to: 'foundation', toIndex: suitOf(held), count: 1, card, auto: false });
  }
  return found;
}

/**
 * The reason of {@link moveFault} in words, or `null` when the move is legal.
 * Never throws and never changes its arguments.
 */
export function checkMove(rules: Rules, layout: Layout, move: Move, names: PlaceNames = INDEX_PLACE_NAMES): string | null {
  return moveFault(rules, layout, move, names)?.reason ?? null;
}

/**
 * Carries out a move already found legal by {@link checkMove}; mutates
 * `layout`. The moved cards are copied over one by one (no array is built
 * for them: the checker replays every move of every solution).
 */
function performMove(layout: Layout, move: Move): void {
  let first: Card;
  let source: Card[] | null = null;
  let start = 0;
  if (move.from === 'column') {
    source = layout.columns[move.fromIndex];
    start = source.length - move.count;
    first = source[start];
  } else {
    first = layout.freeCells[move.fromIndex] as Card;
    layout.freeCells[move.fromIndex] = null;
  }
  if (move.to === 'column') {
    const dest = layout.columns[move.toIndex];
    if (source === null) dest.push(first);
    else for (let i = start; i < source.length; i++) dest.push(source[i]);
  } else if (move.to === 'cell') {
    layout.freeCells[move.toIndex] = first;
  } else {
    layout.foundations[move.toIndex] += 1;
  }
  // pop() rather than `length = start`: shrinking an array through its length is a runtime call in V8 (a sixth of the replay)
  if (source !== null) while (source.length > start) source.pop();
}

/** A deep copy of a layout (columns, free cells and foundations are new arrays). */
export function cloneLayout(layout: Layout): Layout {
  return {
    columns: layout.columns.map((col) => col.slice()),
    freeCells: layout.freeCells.slice(),
    foundations: [layout.foundations[0], layout.foundations[1], layout.foundations[2], layout.foundations[3]],
  };
}

/**
 * Plays one move: returns the new layout; `layout` itself is left unchanged.
 * Legality as in {@link checkMove}. Does not validate the layout as a whole
 * (use {@link checkSolution} for a full replay from a validated start).
 *
 * @throws SolverError with code `illegal_move` and the reason as message when the move is illegal.
 */
export function applyMove(rules: Rules, layout: Layout, move: Move): Layout {
  const reason = checkMove(rules, layout, move);
  if (reason !== null) throw new SolverError('illegal_move', reason);
  const next = cloneLayout(layout);
  performMove(next, move);
  return next;
}

/**
 * True when the game is won: all four foundations hold 13 cards and no card is
 * left in a column or a free cell (docs/rules.md: "foundations built up in suit";
 * seeds: the game is won when all 52 cards are on the foundations). Never throws.
 */
export function isWon(layout: Layout): boolean {
  return (
    layout.foundations.every((n) => n === 13) &&
    layout.columns.every((col) => col.length === 0) &&
    layout.freeCells.every((c) => c === null)
  );
}

// ---------------------------------------------------------------------------
// Whole solutions
// ---------------------------------------------------------------------------

/** Why `rules` are not a valid rule set (docs/rules.md "Rule parameters"), or null. */
function rulesProblem(rules: Rules): string | null {
  if (rules === null || typeof rules !== 'object') return 'invalid rules: not an object';
  if (!Number.isInteger(rules.columns) || rules.columns < 1 || rules.columns > MAX_COLUMNS) return `invalid rules: columns ${JSON.stringify(rules.columns)} (1..${MAX_COLUMNS})`;
  if (!Number.isInteger(rules.freeCells) || rules.freeCells < 0 || rules.freeCells > MAX_FREE_CELLS) return `invalid rules: freeCells ${JSON.stringify(rules.freeCells)} (0..${MAX_FREE_CELLS})`;
  if (!BUILD_RULES.includes(rules.build)) return `invalid rules: build ${JSON.stringify(rules.build)}`;
  if (!EMPTY_COLUMN_RULES.includes(rules.emptyColumn)) return `invalid rules: emptyColumn ${JSON.stringify(rules.emptyColumn)}`;
  if (rules.emptyCell !== undefined && !EMPTY_CELL_RULES.includes(rules.emptyCell)) return `invalid rules: emptyCell ${JSON.stringify(rules.emptyCell)}`;
  if (!SEQUENCE_MOVE_RULES.includes(rules.sequenceMove)) return `invalid rules: sequenceMove ${JSON.stringify(rules.sequenceMove)}`;
  if (!Number.isInteger(rules.foundationBase) || rules.foundationBase < 1 || rules.foundationBase > 13) return `invalid rules: foundationBase ${JSON.stringify(rules.foundationBase)} (1..13)`;
  if (typeof rules.wrap !== 'boolean') return 'invalid rules: wrap must be true or false';
  return null;
}

/**
 * Counts `card` (found at `where`) in `seen` (layoutProblem's table: seen[code]
 * is 1 for a card code met, seen[0] the number met), or says why it is not a
 * card code or is met twice.
 */
function addCard(seen: Uint8Array, card: unknown, where: string): string | null {
  if (typeof card !== 'number' || !isCard(card)) return `invalid start layout: ${where} holds ${JSON.stringify(card)}, not a card code`;
  if (seen[card] === 1) return `invalid start layout: duplicate card ${cardToString(card)} (${where})`;
  seen[card] = 1;
  seen[0]++;
  return null;
}

/**
 * Why `layout` is not a valid position for `rules`, or null: the column and
 * cell counts match the rules, and every one of the 52 cards appears exactly
 * once, counting the foundations (docs/rules.md "Board text format": "Every card
 * exactly once, counting foundations"). Foundation s with n cards holds the
 * ranks foundationBase, foundationBase + 1, … (wrapping with `wrap`).
 */
function layoutProblem(rules: Rules, layout: Layout): string | null {
  const bad = (text: string) => `invalid start layout: ${text}`;
  if (layout === null || typeof layout !== 'object') return bad('not an object');
  if (!Array.isArray(layout.columns) || layout.columns.length !== rules.columns) {
    return bad(`${Array.isArray(layout.columns) ? layout.columns.length : 'no'} columns, the rules have ${rules.columns}`);
  }
  if (!Array.isArray(layout.freeCells) || layout.freeCells.length !== rules.freeCells) {
    return bad(`${Array.isArray(layout.freeCells) ? layout.freeCells.length : 'no'} free cells, the rules have ${rules.freeCells}`);
  }
  if (!Array.isArray(layout.foundations) || layout.foundations.length !== 4) return bad('foundations must list 4 counts');
  // seen[code] for the card codes met so far (4..55); seen[0] counts them
  const seen = new Uint8Array(56);
  const add = (card: unknown, where: string): string | null => addCard(seen, card, where);
  for (let s = 0; s < 4; s++) {
    const n = layout.foundations[s];
    if (!Number.isInteger(n) || n < 0 || n > 13) return bad(`foundation ${SUIT_LETTERS[s]} holds ${JSON.stringify(n)} cards (0..13)`);
    for (let i = 0; i < n; i++) {
      const rank = foundationRank(rules, i);
      if (rank === null) return bad(`foundation ${SUIT_LETTERS[s]} cannot hold ${n} cards from base ${RANK_LETTERS[rules.foundationBase]} without wrap`);
      const problem = add(rank * 4 + s, `foundation ${SUIT_LETTERS[s]}`);
      if (problem) return problem;
    }
  }
  for (let c = 0; c < layout.columns.length; c++) {
    const col = layout.columns[c];
    if (!Array.isArray(col)) return bad(`column ${c} is not a list`);
    for (const card of col) {
      const problem = add(card, `column ${c}`);
      if (problem) return problem;
    }
  }
  for (let i = 0; i < layout.freeCells.length; i++) {
    const card = layout.freeCells[i];
    if (card === null) continue;
    const problem = add(card, `free cell ${i}`);
    if (problem) return problem;
  }
  if (seen[0] !== DECK_SIZE) {
    const missing = fullDeck().find((card) => seen[card] !== 1) as Card;
    return bad(`missing card ${cardToString(missing)}`);
  }
  return null;
}

/**
 * Replays a whole solution from `start` and says whether it wins the game.
 *
 * - Validates the rules (docs/rules.md "Rule parameters") and the start layout (shape
 *   per the rules, every card exactly once counting foundations); a failure
 *   gives `moveIndex: -1` with a reason starting `invalid rules:` or
 *   `invalid start layout:`.
 * - Plays every move on a copy of `start` (never changes `start` or `moves`);
 *   the first illegal move gives `{ok: false, moveIndex: i, reason}`, reason as
 *   in {@link checkMove}. Auto-moves are checked like any other move.
 * - After the last move every card must be on the foundations ({@link isWon}),
 *   else `{ok: false, moveIndex: moves.length, reason: 'not won: …'}`.
 *
 * Never throws for bad input: everything wrong is a `{ok: false}` answer.
 */
export function checkSolution(rules: Rules, start: Layout, moves: Move[]): CheckResult {
  const invalid = rulesProblem(rules) ?? layoutProblem(rules, start);
  if (invalid !== null) return { ok: false, moveIndex: -1, reason: invalid };
  if (!Array.isArray(moves)) return { ok: false, moveIndex: -1, reason: 'moves is not a list' };
  return replay(rules, start, moves.length, (i) => moves[i]);
}

/**
 * {@link checkSolution} of a solution packed by `packMoves`
 * (client-sdk/core/moves.ts, 8 bytes a move): the same replay and the same
 * checks, each move read in turn into one reused move object, so that no
 * object is made a move (the pool's workers check every solution this way:
 * their answers cross packed). Never throws.
 * @returns as `checkSolution`; a length that is not a whole number of moves
 *   is `ok: false` at `moveIndex` -1.
 */
export function checkPackedSolution(rules: Rules, start: Layout, packed: Uint8Array): CheckResult {
  const invalid = rulesProblem(rules) ?? layoutProblem(rules, start);
  if (invalid !== null) return { ok: false, moveIndex: -1, reason: invalid };
  if (!(packed instanceof Uint8Array)) return { ok: false, moveIndex: -1, reason: 'moves is not a byte array' };
  if (packed.length % PACKED_MOVE_BYTES !== 0) return { ok: false, moveIndex: -1, reason: `${packed.length} bytes are not a whole number of packed moves` };
  const move: Move = { from: 'column', fromIndex: 0, to: 'column', toIndex: 0, count: 1, card: '', auto: false };
  return replay(rules, start, packed.length / PACKED_MOVE_BYTES, (i) => readPackedMove(packed, i, move));
}

/** Replays moves 0..count-1 (`moveAt(i)`, read once each) from `start` under valid `rules` and a valid start: `checkSolution`'s loop. */
function replay(rules: Rules, start: Layout, count: number, moveAt: (i: number) => Move): CheckResult {
  const layout = cloneLayout(start);
  for (let i = 0; i < count; i++) {
    const move = moveAt(i);
    // the rules were validated by the caller; each move gets every other check of moveFault
    const reason = moveFaultUnderValidRules(rules, layout, move, INDEX_PLACE_NAMES)?.reason ?? null;
    if (reason !== null) return { ok: false, moveIndex: i, reason };
    performMove(layout, move);
  }
  if (!isWon(layout)) {
    const inColumns = layout.columns.reduce((sum, col) => sum + col.length, 0);
    const inCells = layout.freeCells.filter((c) => c !== null).length;
    return {
      ok: false,
      moveIndex: count,
      reason: `not won: ${inColumns + inCells} cards are not on the foundations (${inColumns} in columns, ${inCells} in free cells)`,
    };
  }
  return { ok: true, final: layout };
}
