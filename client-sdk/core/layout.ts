/**
 * The position ("layout") as the API carries it in JSON, and the one function
 * that checks a position: {@link validateLayout}.
 *
 * JSON shape (see {@link LayoutJsonSchema}):
 * `{ columns: string[][], freeCells?: (string|null)[], foundations?: {C?,D?,H?,S?} }`,
 * cards written as in the fc-solve board text format (`docs/rules.md`,
 * section "Board text format"): rank `A 2-9 T J Q K` (also `10`, lower case)
 * followed by the suit `C D H S`.
 *
 * Foundation counts: a foundation of count n holds the n ranks
 * `base, base+1, ..., base+n-1` of its suit, wrapping K→A, where `base` is
 * `rules.foundationBase` (1 = Ace; docs/rules.md, "Penguin's beak").
 */
import { z } from 'zod';
import { type Card, type Suit, SUIT_LETTERS, cardToString, fullDeck, isCard, makeCard, parseCard } from './cards.js';
import { type ErrorLocation, SolverError } from './errors.js';
import { type Layout, type Rules, MAX_COLUMNS, MAX_FREE_CELLS } from './rules.js';

// ---------------------------------------------------------------------------
// JSON schema
// ---------------------------------------------------------------------------

const CardTextSchema = z
  .string()
  .max(3)
  .describe('A card: rank A, 2-9, T, J, Q, K (10 and lower case accepted) followed by the suit C, D, H or S, e.g. "TH", "as", "10d".');

const FoundationCountSchema = z.number().int().min(0).max(13);

/**
 * zod 4 schema of the JSON layout the API accepts (appears in the OpenAPI
 * document). Unknown keys are rejected so that a typo such as `freecells`
 * cannot silently drop the cells. Structure only: card texts, card counts and
 * duplicates are checked by {@link layoutFromJson} / {@link validateLayout},
 * which report precise error codes and JSON paths.
 */
export const LayoutJsonSchema = z
  .strictObject({
    columns: z
      .array(
        z
          .array(CardTextSchema)
          .max(52)
          .describe('One tableau column, from the deepest card (first) to the exposed, movable card (last). An empty array is an empty column.'),
      )
      .min(1)
      .max(MAX_COLUMNS)
      .describe("The tableau columns, left to right; their number must equal the game's column count."),
    freeCells: z
      .array(CardTextSchema.nullable().describe('The card in this free cell, or null when the cell is empty ("-" is also read as empty).'))
      .max(MAX_FREE_CELLS)
      .optional()
      .describe("The free cells in order; at most the game's cell count; missing trailing cells are empty. Omit when all cells are empty."),
    foundations: z
      .strictObject({
        C: FoundationCountSchema.optional().describe('Number of clubs on the clubs foundation (0..13).'),
        D: FoundationCountSchema.optional().describe('Number of diamonds on the diamonds foundation (0..13).'),
        H: FoundationCountSchema.optional().describe('Number of hearts on the hearts foundation (0..13).'),
        S: FoundationCountSchema.optional().describe('Number of spades on the spades foundation (0..13).'),
      })
      .optional()
      .describe(
        "Cards already on the foundations, as a count per suit; missing suits are empty. A count n means the ranks base..base+n-1 of that suit (base = the game's foundation base, Ace unless the game says otherwise; ranks wrap K→A).",
      ),
  })
  .describe('A position: tableau columns, free cells and foundations. Every one of the 52 cards must appear exactly once, counting the foundations.');

/** The JSON layout accepted by the API (inferred from {@link LayoutJsonSchema}). */
export type LayoutJson = z.infer<typeof LayoutJsonSchema>;

// ---------------------------------------------------------------------------
// Locations
// ---------------------------------------------------------------------------

/** A place in a layout that an error can point at. Indices are 0-based. */
export type LayoutPlace =
  | { kind: 'layout' }
  | { kind: 'columns' }
  | { kind: 'column'; column: number; index: number }
  | { kind: 'cells' }
  | { kind: 'cell'; cell: number }
  | { kind: 'foundations' }
  | { kind: 'foundation'; suit: Suit };

/**
 * Maps a place in a layout to the {@link ErrorLocation} reported to the user:
 * a JSON path for JSON input ({@link jsonLocator}), a line/column/token for
 * board text (the board parser supplies its own).
 */
export type LayoutLocator = (place: LayoutPlace) => ErrorLocation;

/**
 * The locator for JSON input: paths under `prefix`, e.g. `layout.columns.3.2`,
 * `layout.freeCells.1`, `layout.foundations.H`.
 */
export function jsonLocator(prefix = 'layout'): LayoutLocator {
  return (place) => {
    switch (place.kind) {
      case 'layout':
        return { path: prefix };
      case 'columns':
        return { path: `${prefix}.columns` };
      case 'column':
        return { path: `${prefix}.columns.${place.column}.${place.index}` };
      case 'cells':
        return { path: `${prefix}.freeCells` };
      case 'cell':
        return { path: `${prefix}.freeCells.${place.cell}` };
      case 'foundations':
        return { path: `${prefix}.foundations` };
      case 'foundation':
        return { path: `${prefix}.foundations.${SUIT_LETTERS[place.suit]}` };
    }
  };
}

/** Human-readable text of a location, for error messages. */
function describeLocation(loc: ErrorLocation): string {
  const parts: string[] = [];
  if (loc.path !== undefined) parts.push(loc.path);
  if (loc.line !== undefined) parts.push(loc.column !== undefined ? `line ${loc.line}, column ${loc.column}` : `line ${loc.line}`);
  if (parts.length === 0) return 'the layout';
  return parts.join(' ');
}

// ---------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------

/** Rank (1..13) of the k-th card (0-based) of a foundation starting at `base`, wrapping K→A. */
function foundationRank(base: number, k: number): number {
  return ((base - 1 + k) % 13) + 1;
}

/**
 * Checks a position against the rules; the single place where a position is
 * checked (the board parser and {@link layoutFromJson} both call it).
 *
 * Checks, in this order:
 * 1. shape: `columns` an array of arrays, `freeCells` an array, `foundations`
 *    four integers 0..13, every card a valid code → `invalid_layout`;
 * 2. `columns.length === rules.columns` → `wrong_column_count` (at place `columns`);
 * 3. `freeCells.length <= rules.freeCells` → `wrong_cell_count` (at the first
 *    cell beyond the allowed count); shorter cell arrays are then padded
 *    **in place** with `null` up to `rules.freeCells`;
 * 4. every one of the 52 cards exactly once, counting the foundations (a
 *    foundation of count n holds ranks base..base+n-1 of its suit, wrapping) →
 *    `duplicate_card` (located at the second occurrence; the message names
 *    both), then `missing_card` (the message lists every missing card).
 *
 * @param layout the position; `freeCells` may be shorter than `rules.freeCells`.
 * @param rules the game's rules (`columns`, `freeCells`, `foundationBase`).
 * @param locate maps places to error locations; defaults to JSON paths under `layout`.
 * @throws {SolverError} with the codes above and the location from `locate`.
 */
export function validateLayout(layout: Layout, rules: Rules, locate: LayoutLocator = jsonLocator()): void {
  const base = rules.foundationBase ?? 1;

  // 1. Shape.
  if (layout === null || typeof layout !== 'object') {
    throw new SolverError('invalid_layout', 'the layout must be an object with columns, freeCells and foundations', locate({ kind: 'layout' }));
  }
  if (!Array.isArray(layout.columns)) {
    throw new SolverError('invalid_layout', 'the layout columns must be an array of columns', locate({ kind: 'columns' }));
  }
  if (layout.freeCells === undefined) layout.freeCells = [];
  if (!Array.isArray(layout.freeCells)) {
    throw new SolverError('invalid_layout', 'the free cells must be an array', locate({ kind: 'cells' }));
  }
  if (!Array.isArray(layout.foundations) || layout.foundations.length !== 4) {
    throw new SolverError('invalid_layout', 'the foundations must be four counts (clubs, diamonds, hearts, spades)', locate({ kind: 'foundations' }));
  }
  for (let s = 0; s < 4; s++) {
    const n = layout.foundations[s];
    if (!Number.isInteger(n) || n < 0 || n > 13) {
      throw new SolverError('invalid_layout', `the ${SUIT_LETTERS[s]} foundation count must be an integer 0..13, got ${String(n)}`, locate({ kind: 'foundation', suit: s as Suit }));
    }
  }
  layout.columns.forEach((column, c) => {
    if (!Array.isArray(column)) {
      throw new SolverError('invalid_layout', `column ${c + 1} must be an array of cards`, locate({ kind: 'column', column: c, index: 0 }));
    }
    column.forEach((card, i) => {
      if (!isCard(card)) {
        throw new SolverError('invalid_layout', `column ${c + 1}, position ${i + 1}: ${String(card)} is not a card`, locate({ kind: 'column', column: c, index: i }));
      }
    });
  });
  layout.freeCells.forEach((card, i) => {
    if (card !== null && !isCard(card)) {
      throw new SolverError('invalid_layout', `free cell ${i + 1}: ${String(card)} is not a card`, locate({ kind: 'cell', cell: i }));
    }
  });

  // 2. Column count.
  if (layout.columns.length !== rules.columns) {
    throw new SolverError(
      'wrong_column_count',
      `the game has ${rules.columns} columns, the position has ${layout.columns.length}`,
      locate({ kind: 'columns' }),
    );
  }

  // 3. Cell count, then pad.
  if (layout.freeCells.length > rules.freeCells) {
    throw new SolverError(
      'wrong_cell_count',
      `the game has ${rules.freeCells} free cell${rules.freeCells === 1 ? '' : 's'}, the position lists ${layout.freeCells.length}`,
      locate({ kind: 'cell', cell: rules.freeCells }),
    );
  }
  while (layout.freeCells.length < rules.freeCells) layout.freeCells.push(null);

  // 4. Every card exactly once: foundations, then cells, then columns.
  const seen = new Map<Card, LayoutPlace>();
  const visit = (card: Card, place: LayoutPlace): void => {
    const first = seen.get(card);
    if (first !== undefined) {
      const where = locate(place);
      throw new SolverError(
        'duplicate_card',
        `card ${cardToString(card)} appears twice: at ${describeLocation(locate(first))} and at ${describeLocation(where)}`,
        where,
      );
    }
    seen.set(card, place);
  };
  for (let s = 0; s < 4; s++) {
    for (let k = 0; k < layout.foundations[s]; k++) visit(makeCard(foundationRank(base, k), s), { kind: 'foundation', suit: s as Suit });
  }
  layout.freeCells.forEach((card, i) => {
    if (card !== null) visit(card, { kind: 'cell', cell: i });
  });
  layout.columns.forEach((column, c) => column.forEach((card, i) => visit(card, { kind: 'column', column: c, index: i })));

  if (seen.size !== 52) {
    const missing = fullDeck().filter((card) => !seen.has(card));
    throw new SolverError(
      'missing_card',
      `${missing.length} card${missing.length === 1 ? ' is' : 's are'} missing: ${missing.map(cardToString).join(' ')}`,
      locate({ kind: 'layout' }),
    );
  }
}

// ---------------------------------------------------------------------------
// JSON <-> Layout
// ---------------------------------------------------------------------------

const FOUNDATION_KEYS = ['C', 'D', 'H', 'S'] as const;

/**
 * Builds and checks a {@link Layout} from the API's JSON layout.
 *
 * - card texts as in docs/rules.md "Board text format" (`"TH"`, `"10h"`, `"as"`);
 * - `freeCells` entries `null` (or `"-"`) are empty; a shorter array is padded
 *   with empty cells up to `rules.freeCells`;
 * - `foundations` counts per suit (missing suits 0), relative to `rules.foundationBase`.
 *
 * @param json the JSON layout (normally already checked by {@link LayoutJsonSchema}).
 * @param rules the game's rules.
 * @param pathPrefix the JSON path of the layout in the request, used in error locations.
 * @returns a layout whose `freeCells` has exactly `rules.freeCells` entries.
 * @throws {SolverError} `invalid_layout` (a card text that is not a card, a bad
 *   count or structure), `wrong_column_count`, `wrong_cell_count`,
 *   `duplicate_card`, `missing_card`; every location carries a `path` such as
 *   `layout.columns.3.2`.
 */
export function layoutFromJson(json: LayoutJson, rules: Rules, pathPrefix = 'layout'): Layout {
  const locate = jsonLocator(pathPrefix);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new SolverError('invalid_layout', 'the layout must be an object with a "columns" array', locate({ kind: 'layout' }));
  }
  if (!Array.isArray(json.columns)) {
    throw new SolverError('invalid_layout', 'the layout needs a "columns" array of arrays of cards', locate({ kind: 'columns' }));
  }
  const cardAt = (text: unknown, where: ErrorLocation, what: string): Card => {
    const card = typeof text === 'string' ? parseCard(text) : null;
    if (card === null) {
      throw new SolverError('invalid_layout', `${what}: ${JSON.stringify(text)} is not a card (rank A 2-9 T J Q K, suit C D H S)`, {
        ...where,
        ...(typeof text === 'string' ? { token: text } : {}),
      });
    }
    return card;
  };

  const columns: Card[][] = json.columns.map((column, c) => {
    if (!Array.isArray(column)) {
      throw new SolverError('invalid_layout', `column ${c + 1} must be an array of cards`, { path: `${pathPrefix}.columns.${c}` });
    }
    return column.map((text, i) => cardAt(text, locate({ kind: 'column', column: c, index: i }), `column ${c + 1}, position ${i + 1}`));
  });

  const cellsJson = json.freeCells ?? [];
  if (!Array.isArray(cellsJson)) {
    throw new SolverError('invalid_layout', 'freeCells must be an array of cards or nulls', locate({ kind: 'cells' }));
  }
  const freeCells: (Card | null)[] = cellsJson.map((text, i) =>
    text === null || text === '-' ? null : cardAt(text, locate({ kind: 'cell', cell: i }), `free cell ${i + 1}`),
  );

  const foundations: [number, number, number, number] = [0, 0, 0, 0];
  const f = json.foundations;
  if (f !== undefined) {
    if (f === null || typeof f !== 'object' || Array.isArray(f)) {
      throw new SolverError('invalid_layout', 'foundations must be an object of counts keyed by suit letter C, D, H, S', locate({ kind: 'foundations' }));
    }
    for (const key of Object.keys(f)) {
      if (!(FOUNDATION_KEYS as readonly string[]).includes(key)) {
        throw new SolverError('invalid_layout', `unknown foundation "${key}": the keys are C, D, H, S`, { path: `${pathPrefix}.foundations.${key}`, token: key });
      }
    }
    FOUNDATION_KEYS.forEach((key, s) => {
      const n = f[key];
      if (n !== undefined) foundations[s] = n;
    });
  }

  const layout: Layout = { columns, freeCells, foundations };
  validateLayout(layout, rules, locate);
  return layout;
}

/**
 * The JSON form of a layout: card texts in the standard form (`"TH"`), every
 * free cell listed (`null` when empty), all four foundation counts.
 * Inverse of {@link layoutFromJson} for a valid layout.
 */
export function layoutToJson(layout: Layout): LayoutJson {
  return {
    columns: layout.columns.map((column) => column.map(cardToString)),
    freeCells: layout.freeCells.map((card) => (card === null ? null : cardToString(card))),
    foundations: { C: layout.foundations[0], D: layout.foundations[1], H: layout.foundations[2], S: layout.foundations[3] },
  };
}
