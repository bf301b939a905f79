/**
 * The fc-solve board text format, in and out (`docs/rules.md`, section
 * "Board text format"; the test vectors in `tests/fixtures/data/deals/*.jsonl` use it).
 *
 * ```
 * Foundations: H-5 C-A D-0 S-K      optional, any order of suits, missing suits empty
 * Freecells: - 2H 6H                optional, one token per cell, "-" empty, missing trailing cells empty
 * Reserve: 3D 8C TC 6S 9C 2H 6H     the same line for a reserve (King Albert): our extension
 * JD KD 2S 4C 3S 6D 6S              one line per column, deepest card first
 * : 5H 4C                           a leading ":" is allowed
 *                                   an empty line (or ":") is an empty column
 * ```
 *
 * Decisions beyond docs/rules.md:
 * - `FC:` and `Founds:` are aliases; header keywords are case-insensitive; the
 *   two header lines may come in either order, each at most once, and only
 *   before the first column line (a leading blank line is already an empty
 *   first column).
 * - `Reserve:` is one more alias of `Freecells:`, our extension for the cells
 *   of a game whose cells take no card (`rules.emptyCell: 'none'`, King
 *   Albert's reserve: docs/rules.md "Board text format"); fc-solve has no such
 *   game. Either keyword is read under any rules; {@link formatBoard} writes
 *   `Reserve:` for those games, `Freecells:` otherwise.
 * - Any number of columns up to the rules' (13 for Baker's Dozen, 18 for
 *   Fan): one line each, as fc-solve writes them.
 * - Column lines: exactly `rules.columns` lines are read; blank lines count as
 *   (empty) columns up to that number. Blank lines after the last column are
 *   ignored; a non-blank line beyond the column count is `wrong_column_count`.
 * - **Fewer column lines than columns**: the missing trailing columns are taken
 *   as empty, but only when all 52 cards are accounted for without them (so a
 *   truncated paste is reported as `wrong_column_count`, not as missing cards).
 *   A solved position can therefore be written as just
 *   `Foundations: H-K C-K D-K S-K`.
 * - Foundation tokens name the top card's rank (`A 2-9 T J Q K`, also `10`/`1`,
 *   or `0` for empty). With `rules.foundationBase` = b the count is derived by
 *   wrapping: top rank r → ((r - b + 13) mod 13) + 1 cards.
 * - Line breaks are `\n`, `\r\n` and a lone `\r` (old Mac files): all three
 *   end a line, so CR-only text reads as the same position as LF text. A
 *   leading byte-order mark is ignored.
 * - Only space and tab separate tokens within a line. Any other control,
 *   format or separator character (`\v`, `\f`, NUL, U+0085, U+00A0,
 *   U+2028, U+2029, U+200B, a byte-order mark after the start, ...) is
 *   `malformed_board` at its line and column: JavaScript's `\s` would read
 *   U+2028 or `\f` between two columns as a space and so a different
 *   position, with no word to the user.
 * - Input longer than {@link MAX_BOARD_TEXT_LENGTH} characters is rejected
 *   before parsing (`malformed_board`).
 */
import { type Card, RANK_LETTERS, SUIT_LETTERS, type Suit, cardToString, isCard, parseCard } from './cards.js';
import { type ErrorLocation, SolverError } from './errors.js';
import { type LayoutPlace, validateLayout } from './layout.js';
import type { Layout, Rules } from './rules.js';

/** Longest board text accepted, in characters (a full board is about 200). */
export const MAX_BOARD_TEXT_LENGTH = 16_384;

/** Options of {@link formatBoard}. */
export interface FormatBoardOptions {
  /**
   * How many tokens the `Freecells:` line lists:
   * - `'all'`: one per cell of the game (`rules.freeCells`, or the layout's cell count without rules);
   * - `'trim'`: up to the last filled cell (trailing empty cells left out, as docs/rules.md allows).
   *
   * Default: for a layout returned by {@link parseBoard}, as many tokens as its
   * `Freecells:` line had (so formatting reproduces the input), otherwise `'all'`.
   * A filled cell is never left out.
   */
  cells?: 'all' | 'trim';
}

/** Token count of the `Freecells:` line of each layout made by parseBoard (for exact round trips). */
const cellTokenCounts = new WeakMap<Layout, number>();

/** A token of the text and where it is. */
interface Token {
  text: string;
  line: number;
  column: number;
}

/** Tokens of a line: runs of characters other than space and tab (the only separators). */
function tokenize(text: string, line: number, offset: number): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(/[^ \t]+/g)) tokens.push({ text: m[0], line, column: offset + (m.index ?? 0) + 1 });
  return tokens;
}

function at(token: Token): ErrorLocation {
  return { line: token.line, column: token.column, token: token.text };
}

const HEADER_RE = /^([ \t]*)(freecells|fc|reserve|foundations|founds)([ \t]*):/i;

/**
 * A line break of the board text: `\r\n`, `\n`, or a lone `\r` (CR-only
 * files, classic Mac OS). `\r\n` comes first so that it is one break.
 */
const LINE_BREAK_RE = /\r\n|\n|\r/;

/**
 * Characters refused inside a line: Unicode controls (Cc) but tab, format
 * characters (Cf: U+200B, U+FEFF, ...), separators (Z: U+00A0, U+2028,
 * U+2029, ...) but space, and lone surrogates (Cs). `\n` and `\r` never
 * reach it (they split the lines).
 */
const FORBIDDEN_CHAR_RE = /(?![ \t])[\p{Cc}\p{Cf}\p{Z}\p{Cs}]/u;

/** Names of the refused characters a paste most often carries (others are named by code point only). */
const CHAR_NAMES: Record<number, string> = {
  0x00: 'NUL',
  0x0b: 'vertical tab, \\v',
  0x0c: 'form feed, \\f',
  0x1c: 'file separator',
  0x1d: 'group separator',
  0x1e: 'record separator',
  0x1f: 'unit separator',
  0x85: 'next line',
  0xa0: 'no-break space',
  0x200b: 'zero width space',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x3000: 'ideographic space',
  0xfeff: 'byte-order mark',
};

/** `U+2028 (line separator)`: a refused character as the error message names it. */
function describeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = CHAR_NAMES[cp];
  return name ? `${hex} (${name})` : hex;
}
const FOUNDATION_RE = /^([cdhs])-(0|10|[1-9atjqk])$/i;

/** Rank 0..13 of a foundation token's rank part (0 = empty). */
function foundationTokenRank(text: string): number {
  const r = text.toUpperCase();
  if (r === '0') return 0;
  if (r === '1') return 1;
  if (r === '10') return 10;
  return RANK_LETTERS.indexOf(r as (typeof RANK_LETTERS)[number]);
}

/**
 * Parses a board in the fc-solve text format (docs/rules.md, "Board text format";
 * see this module's header for the decisions it documents) and checks it with
 * {@link validateLayout}.
 *
 * @param text the board text: optional `Freecells:`/`FC:`/`Reserve:` and
 *   `Foundations:`/`Founds:` lines, then one line per column, deepest card first.
 * @param rules the game's rules: `columns`, `freeCells` and `foundationBase` are used.
 * @returns the layout: `columns[i]` deepest card first, `freeCells` padded with
 *   `null` to `rules.freeCells`, `foundations` as counts in suit order C, D, H, S.
 * @throws {SolverError} every error carries `{line, column, token}` (1-based)
 *   where a place in the text is at fault:
 *   - `malformed_board`: text too long ({@link MAX_BOARD_TEXT_LENGTH}; no
 *     location), empty text, a character other than space and tab that is a
 *     control, format or separator character (at it; token = the character),
 *     a token that is not a card, a bad `Freecells:` or
 *     `Foundations:` token, a repeated suit or header, a header after the columns;
 *   - `duplicate_card`: at the second occurrence (token = the card as written),
 *     the message names both places;
 *   - `missing_card`: the message lists every missing card (no location);
 *   - `wrong_column_count`: at the first non-blank line beyond `rules.columns`,
 *     or, when there are fewer column lines and cards are missing, at the line
 *     after the last one;
 *   - `wrong_cell_count`: more `Freecells:` tokens than `rules.freeCells`, at
 *     the first token too many.
 */
export function parseBoard(text: string, rules: Rules): Layout {
  if (typeof text !== 'string') throw new SolverError('malformed_board', 'the board must be a text');
  if (text.length > MAX_BOARD_TEXT_LENGTH) {
    throw new SolverError('malformed_board', `the board text is ${text.length} characters long; at most ${MAX_BOARD_TEXT_LENGTH} are accepted`);
  }
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const lines = text.split(LINE_BREAK_RE);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop(); // the final line break ends the last line
  for (let i = 0; i < lines.length; i++) {
    const bad = FORBIDDEN_CHAR_RE.exec(lines[i]);
    if (bad) {
      const column = bad.index + 1;
      throw new SolverError(
        'malformed_board',
        `line ${i + 1}, column ${column}: ${describeChar(bad[0])} is not allowed in a board; ` +
          'only space and tab separate cards, and a line ends with \\n, \\r\\n or \\r',
        { line: i + 1, column, token: bad[0] },
      );
    }
  }
  if (lines.every((l) => l.trim() === '')) throw new SolverError('malformed_board', 'the board text is empty');

  const base = rules.foundationBase ?? 1;
  let cellTokens: Token[] | null = null;
  let cellHeaderLine = 0;
  let foundationTokens: (Token | null)[] = [null, null, null, null];
  let foundationHeaderLine = 0;
  const foundations: [number, number, number, number] = [0, 0, 0, 0];
  const columnLines: { line: number; raw: string; tokens: Token[]; blank: boolean }[] = [];

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const lineNo = i + 1;
    const header = HEADER_RE.exec(raw);
    if (header) {
      const keyword = header[2].toLowerCase();
      const headerToken: Token = { text: `${header[2]}:`, line: lineNo, column: header[1].length + 1 };
      const rest = raw.slice(header[0].length);
      const tokens = tokenize(rest, lineNo, header[0].length);
      if (columnLines.length > 0) {
        throw new SolverError(
          'malformed_board',
          `line ${lineNo}: the "${headerToken.text}" line must come before the column lines (line ${columnLines[0].line} is already a column)`,
          at(headerToken),
        );
      }
      if (keyword === 'freecells' || keyword === 'fc' || keyword === 'reserve') {
        if (cellTokens !== null) {
          throw new SolverError('malformed_board', `line ${lineNo}: a second free-cell line (the first is line ${cellHeaderLine})`, at(headerToken));
        }
        cellTokens = tokens;
        cellHeaderLine = lineNo;
        for (const t of tokens) {
          if (t.text !== '-' && parseCard(t.text) === null) {
            throw new SolverError('malformed_board', `line ${lineNo}, column ${t.column}: "${t.text}" is neither a card nor "-" (empty cell)`, at(t));
          }
        }
      } else {
        if (foundationHeaderLine !== 0) {
          throw new SolverError('malformed_board', `line ${lineNo}: a second foundations line (the first is line ${foundationHeaderLine})`, at(headerToken));
        }
        foundationHeaderLine = lineNo;
        foundationTokens = [null, null, null, null];
        for (const t of tokens) {
          const m = FOUNDATION_RE.exec(t.text);
          if (!m) {
            throw new SolverError(
              'malformed_board',
              `line ${lineNo}, column ${t.column}: "${t.text}" is not a foundation such as H-5, C-A, D-0 or S-K`,
              at(t),
            );
          }
          const suit = SUIT_LETTERS.indexOf(m[1].toUpperCase() as (typeof SUIT_LETTERS)[number]) as Suit;
          if (foundationTokens[suit] !== null) {
            throw new SolverError('malformed_board', `line ${lineNo}, column ${t.column}: the ${SUIT_LETTERS[suit]} foundation is given twice`, at(t));
          }
          foundationTokens[suit] = t;
          const top = foundationTokenRank(m[2]);
          foundations[suit] = top === 0 ? 0 : ((top - base + 13) % 13) + 1;
        }
      }
      continue;
    }
    // A column line: optional leading ":", then cards.
    const lead = /^[ \t]*:?/.exec(raw)![0].length;
    const tokens = tokenize(raw.slice(lead), lineNo, lead);
    columnLines.push({ line: lineNo, raw, tokens, blank: raw.trim() === '' });
  }

  // Column count: lines beyond rules.columns must be blank.
  for (let c = rules.columns; c < columnLines.length; c++) {
    const extra = columnLines[c];
    if (!extra.blank) {
      const where: ErrorLocation = extra.tokens.length > 0 ? at(extra.tokens[0]) : { line: extra.line, column: extra.raw.indexOf(':') + 1, token: ':' };
      throw new SolverError(
        'wrong_column_count',
        `line ${extra.line}: the game has ${rules.columns} columns, this would be column ${c + 1}`,
        where,
      );
    }
  }
  const used = columnLines.slice(0, rules.columns);
  const givenColumns = used.length;

  const columns: Card[][] = used.map(({ tokens }) =>
    tokens.map((t) => {
      const card = parseCard(t.text);
      if (card === null) {
        throw new SolverError('malformed_board', `line ${t.line}, column ${t.column}: "${t.text}" is not a card (rank A 2-9 T J Q K, suit C D H S)`, at(t));
      }
      return card;
    }),
  );
  while (columns.length < rules.columns) columns.push([]);

  const cellTokenList: Token[] = cellTokens ?? [];
  const freeCells: (Card | null)[] = cellTokenList.map((t) => (t.text === '-' ? null : parseCard(t.text)));
  const layout: Layout = { columns, freeCells, foundations };

  const locate = (place: LayoutPlace): ErrorLocation => {
    switch (place.kind) {
      case 'column': {
        const t = used[place.column]?.tokens[place.index];
        return t ? at(t) : {};
      }
      case 'cell': {
        const t = cellTokenList[place.cell];
        return t ? at(t) : cellHeaderLine ? { line: cellHeaderLine } : {};
      }
      case 'cells':
        return cellHeaderLine ? { line: cellHeaderLine } : {};
      case 'foundation': {
        const t = foundationTokens[place.suit];
        return t ? at(t) : foundationHeaderLine ? { line: foundationHeaderLine } : {};
      }
      case 'foundations':
        return foundationHeaderLine ? { line: foundationHeaderLine } : {};
      default:
        return {};
    }
  };

  try {
    validateLayout(layout, rules, locate);
  } catch (err) {
    if (givenColumns < rules.columns && err instanceof SolverError && err.code === 'missing_card') {
      const lastLine = used.length > 0 ? used[used.length - 1].line : Math.max(cellHeaderLine, foundationHeaderLine);
      throw new SolverError(
        'wrong_column_count',
        `the game has ${rules.columns} columns, the board gives ${givenColumns} column line${givenColumns === 1 ? '' : 's'} and cards are missing (${err.message}); ` +
          'missing trailing columns are taken as empty only when every card is accounted for',
        { line: lastLine + 1 },
      );
    }
    throw err;
  }
  if (cellTokens !== null) cellTokenCounts.set(layout, cellTokenList.length);
  return layout;
}

/** Text of a foundation: `0` when empty, else the rank letter of its top card. */
function foundationTopText(count: number, base: number): string {
  if (count === 0) return '0';
  return RANK_LETTERS[((base - 1 + count - 1) % 13) + 1];
}

/**
 * Writes a layout in the fc-solve board text format (docs/rules.md, "Board text
 * format"), reproducing the strings of `tests/fixtures/data/deals/*.jsonl` exactly.
 *
 * Output, each line ending with `\n`:
 * 1. `Foundations: H-x C-x D-x S-x` (order H C D S as fc-solve; x = top card's
 *    rank or `0`), only when some foundation is non-empty;
 * 2. `Freecells: ...` (one token per cell, `-` when empty; how many tokens: see
 *    {@link FormatBoardOptions.cells}), only when some cell is filled;
 *    `Reserve: ...` instead when `rules.emptyCell` is `none` (King Albert);
 * 3. one line per column, deepest card first, cards as `TH`, `AS`; an empty
 *    column is written as `:` (unambiguous even at the end of the text).
 *
 * @param layout a valid position (see {@link validateLayout}).
 * @param rules optional: `foundationBase` (default Ace) names the foundation
 *   top cards, `freeCells` is the cell count listed under `cells: 'all'`,
 *   `emptyCell: 'none'` names the cells line `Reserve:`.
 * @param options see {@link FormatBoardOptions}.
 * @throws {SolverError} `invalid_layout` when a card code is not a card.
 */
export function formatBoard(layout: Layout, rules?: Rules, options: FormatBoardOptions = {}): string {
  const base = rules?.foundationBase ?? 1;
  const text = (card: Card | null, where: string): string => {
    if (card === null || !isCard(card)) throw new SolverError('invalid_layout', `${where}: ${String(card)} is not a card`);
    return cardToString(card);
  };
  const out: string[] = [];

  if (layout.foundations.some((n) => n > 0)) {
    const order: Suit[] = [2, 0, 1, 3];
    out.push(`Foundations: ${order.map((s) => `${SUIT_LETTERS[s]}-${foundationTopText(layout.foundations[s], base)}`).join(' ')}`);
  }

  let lastFilled = -1;
  layout.freeCells.forEach((card, i) => {
    if (card !== null) lastFilled = i;
  });
  if (lastFilled >= 0) {
    const all = rules ? rules.freeCells : layout.freeCells.length;
    const remembered = cellTokenCounts.get(layout);
    const wanted = options.cells === 'trim' ? 0 : options.cells === 'all' ? all : (remembered ?? all);
    const count = Math.max(wanted, lastFilled + 1);
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) {
      const card = layout.freeCells[i] ?? null;
      tokens.push(card === null ? '-' : text(card, `free cell ${i + 1}`));
    }
    out.push(`${rules?.emptyCell === 'none' ? 'Reserve' : 'Freecells'}: ${tokens.join(' ')}`);
  }

  layout.columns.forEach((column, c) => {
    out.push(column.length === 0 ? ':' : column.map((card, i) => text(card, `column ${c + 1}, position ${i + 1}`)).join(' '));
  });
  return out.map((l) => `${l}\n`).join('');
}
