import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GAME_SHAPE, rulesWith } from '../helpers/positions.js';
import { formatBoard, MAX_BOARD_TEXT_LENGTH, parseBoard } from '../../client-sdk/core/board.js';
import { parseCard } from '../../client-sdk/core/cards.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { REFERENCE_DEALS } from '../helpers/paths.js';

const DEALS_DIR = REFERENCE_DEALS;

interface Vector {
  game: string;
  deal: number;
  numbering: string;
  board: string;
}

function readVectors(): { file: string; v: Vector }[] {
  const out: { file: string; v: Vector }[] = [];
  for (const file of readdirSync(DEALS_DIR).filter((f) => f.endsWith('.jsonl')).sort()) {
    for (const line of readFileSync(join(DEALS_DIR, file), 'utf8').split('\n')) {
      if (line.trim() !== '') out.push({ file, v: JSON.parse(line) as Vector });
    }
  }
  return out;
}



const FC8 = rulesWith(8, 4);

/** Deal #1 (Microsoft) as a board. */
const MS1 = 'JD KD 2S 4C 3S 6D 6S\n2D KC KS 5C TD 8S 9C\n9H 9S 9D TS 4S 8D 2H\nJC 5S QD QH TH QS 6H\n5D AD JS 4H 8H 6C\n7H QC AS AC 2C 3D\n7C KH AH 4D JH 8C\n5H 3H 3C 7S 7D TC\n';

/** Runs fn and returns the SolverError it throws. */
function caught(fn: () => unknown): SolverError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SolverError);
    return err as SolverError;
  }
  throw new Error('expected a SolverError');
}

const c = (t: string): number => parseCard(t)!;

describe('test vectors', () => {
  const vectors = readVectors();

  it('reads every file', () => {
    expect(vectors.length).toBeGreaterThan(1400);
  });

  it('round-trips every reference board (tests/fixtures/data/deals) exactly', () => {
    let n = 0;
    for (const { file, v } of vectors) {
      const shape = GAME_SHAPE[v.game];
      expect(shape, `${file}: unknown game ${v.game}`).toBeDefined();
      const rules = rulesWith(shape[0], shape[1], 1, shape[2]);
      const layout = parseBoard(v.board, rules);
      expect(layout.columns.length).toBe(shape[0]);
      expect(layout.freeCells.length).toBe(shape[1]);
      expect(formatBoard(layout, rules), `${file} ${v.game} #${v.deal}`).toBe(v.board);
      n++;
    }
    expect(n).toBe(vectors.length);
  });

  it('also round-trips with generous rules (more cells than the game)', () => {
    for (const { v } of vectors) {
      const rules = rulesWith(GAME_SHAPE[v.game][0], 8, 1, GAME_SHAPE[v.game][2]);
      expect(formatBoard(parseBoard(v.board, rules), rules)).toBe(v.board);
    }
  });

  it('parses MS deal 1 into the right columns', () => {
    const layout = parseBoard(MS1, FC8);
    expect(layout.columns[0]).toEqual(['JD', 'KD', '2S', '4C', '3S', '6D', '6S'].map(c));
    expect(layout.columns[7]).toEqual(['5H', '3H', '3C', '7S', '7D', 'TC'].map(c));
    expect(layout.freeCells).toEqual([null, null, null, null]);
    expect(layout.foundations).toEqual([0, 0, 0, 0]);
  });

  it('reads the Foundations line of Citadel (counts in C D H S order)', () => {
    const v = vectors.find(({ v }) => v.game === 'citadel' && v.deal === 1)!.v;
    expect(v.board.startsWith('Foundations: H-2 C-2 D-3 S-4\n')).toBe(true);
    expect(parseBoard(v.board, rulesWith(8, 0)).foundations).toEqual([2, 3, 2, 4]);
  });
});

describe('free cells', () => {
  const seahaven = readVectors().find(({ v }) => v.game === 'seahaven_towers' && v.deal === 1)!.v.board;
  const SEA = rulesWith(10, 4);

  it('reads the short form "Freecells: - 2H 6H" with the missing cell empty', () => {
    expect(seahaven.startsWith('Freecells: - 2H 6H\n')).toBe(true);
    const layout = parseBoard(seahaven, SEA);
    expect(layout.freeCells).toEqual([null, c('2H'), c('6H'), null]);
    expect(formatBoard(layout, SEA)).toBe(seahaven);
  });

  it('lists every cell or trims trailing empty ones on request', () => {
    const layout = parseBoard(seahaven, SEA);
    expect(formatBoard(layout, SEA, { cells: 'all' }).split('\n')[0]).toBe('Freecells: - 2H 6H -');
    expect(formatBoard(layout, SEA, { cells: 'trim' }).split('\n')[0]).toBe('Freecells: - 2H 6H');
    // A layout not made by parseBoard lists every cell by default.
    const copy = structuredClone(layout);
    expect(formatBoard(copy, SEA).split('\n')[0]).toBe('Freecells: - 2H 6H -');
    expect(formatBoard(copy).split('\n')[0]).toBe('Freecells: - 2H 6H -');
  });

  it('never drops a filled cell', () => {
    const layout = parseBoard(seahaven, SEA);
    layout.freeCells[3] = layout.freeCells[1];
    layout.freeCells[1] = null;
    expect(formatBoard(layout, SEA, { cells: 'trim' }).split('\n')[0]).toBe('Freecells: - - 6H 2H');
  });

  it('accepts the FC: alias and lower case', () => {
    const text = seahaven.replace('Freecells: - 2H 6H', 'fc: - 2h 6H');
    expect(parseBoard(text, SEA).freeCells).toEqual([null, c('2H'), c('6H'), null]);
  });

  it('omits the Freecells line when every cell is empty', () => {
    const layout = parseBoard(`Freecells: - - - -\n${MS1}`, FC8);
    expect(formatBoard(layout, FC8)).toBe(MS1);
  });

  it('moving a card to a cell shows up in the output', () => {
    const layout = parseBoard(MS1, FC8);
    layout.freeCells[2] = layout.columns[0].pop()!;
    expect(formatBoard(layout, FC8)).toBe(`Freecells: - - 6S -\n${MS1.replace('6D 6S\n', '6D\n')}`);
  });

  it('rejects more cells than the rules allow (wrong_cell_count at the first token too many)', () => {
    const err = caught(() => parseBoard(seahaven.replace('Freecells: - 2H 6H', 'Freecells: - 2H 6H - -'), SEA));
    expect(err.code).toBe('wrong_cell_count');
    expect(err.location).toEqual({ line: 1, column: 22, token: '-' });
    const err3 = caught(() => parseBoard(seahaven, rulesWith(10, 2)));
    expect(err3.code).toBe('wrong_cell_count');
    expect(err3.location).toEqual({ line: 1, column: 17, token: '6H' });
  });

  it('rejects a bad cell token', () => {
    const err = caught(() => parseBoard(seahaven.replace('Freecells: - 2H 6H', 'Freecells: - 2X 6H'), SEA));
    expect(err.code).toBe('malformed_board');
    expect(err.location).toEqual({ line: 1, column: 14, token: '2X' });
  });
});

describe('foundations', () => {
  it('reads H-5 C-A D-0 S-K style tokens, missing suits empty', () => {
    const body = MS1.replace('AD ', '').replace('AS AC 2C ', '').replace('AH ', '');
    const layout = parseBoard(`Foundations: H-A C-2 D-A S-A\n${body}`, FC8);
    expect(layout.foundations).toEqual([2, 1, 1, 1]);
    const partial = parseBoard(`Foundations: C-2\n${MS1.replace('AS AC 2C ', 'AS ')}`, FC8);
    expect(partial.foundations).toEqual([2, 0, 0, 0]);
    expect(formatBoard(partial, FC8).split('\n')[0]).toBe('Foundations: H-0 C-2 D-0 S-0');
  });

  it('accepts the Founds: alias, lower case, 10 and 0', () => {
    const all = 'Founds: h-k c-K D-10 s-0\n';
    // Spades on the tableau, diamonds J Q K on the tableau.
    const text = `${all}AS 2S 3S 4S 5S 6S 7S\n8S 9S TS JS QS KS\nJD QD KD\n`;
    const layout = parseBoard(text, FC8);
    expect(layout.foundations).toEqual([13, 10, 13, 0]);
    expect(formatBoard(layout, FC8)).toBe(`Foundations: H-K C-K D-T S-0\nAS 2S 3S 4S 5S 6S 7S\n8S 9S TS JS QS KS\nJD QD KD\n:\n:\n:\n:\n:\n`);
  });

  it('a solved position needs no column lines', () => {
    const layout = parseBoard('Foundations: H-K C-K D-K S-K\n', FC8);
    expect(layout.columns).toEqual([[], [], [], [], [], [], [], []]);
    expect(formatBoard(layout, FC8)).toBe('Foundations: H-K C-K D-K S-K\n:\n:\n:\n:\n:\n:\n:\n:\n');
  });

  it('names the top card when the foundation base is not the Ace (wrapping)', () => {
    // Base 5: the foundation of hearts holding 5H..KH, AH, 2H (top card 2H) has 11 cards.
    const rules = rulesWith(7, 7, 5);
    const hearts = 'Foundations: H-2\n';
    const rest = ['3H 4H', 'AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC', 'AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD', 'AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS'];
    const layout = parseBoard(hearts + rest.join('\n') + '\n', rules);
    expect(layout.foundations).toEqual([0, 0, 11, 0]);
    expect(formatBoard(layout, rules)).toBe(`Foundations: H-2 C-0 D-0 S-0\n${rest.join('\n')}\n:\n:\n:\n`);
    // Full foundation with base 5 is named by its top card, the 4.
    const full = parseBoard('Foundations: H-4 C-4 D-4 S-4\n', rules);
    expect(full.foundations).toEqual([13, 13, 13, 13]);
  });

  it('rejects bad foundation tokens and repeated suits', () => {
    let err = caught(() => parseBoard(`Foundations: H-5 X-2\n${MS1}`, FC8));
    expect(err.code).toBe('malformed_board');
    expect(err.location).toEqual({ line: 1, column: 18, token: 'X-2' });
    err = caught(() => parseBoard(`Foundations: H5\n${MS1}`, FC8));
    expect(err.code).toBe('malformed_board');
    expect(err.location).toEqual({ line: 1, column: 14, token: 'H5' });
    err = caught(() => parseBoard(`Foundations: H-A H-2\n${MS1}`, FC8));
    expect(err.code).toBe('malformed_board');
    expect(err.location).toEqual({ line: 1, column: 18, token: 'H-2' });
  });

  it('a card both on a foundation and in a column is a duplicate', () => {
    const err = caught(() => parseBoard(`Foundations: D-A\n${MS1}`, FC8));
    expect(err.code).toBe('duplicate_card');
    // AD is on line 6 (column 5 of the board), token 4.
    expect(err.location).toEqual({ line: 6, column: 4, token: 'AD' });
    expect(err.message).toContain('AD');
    expect(err.message).toContain('line 1, column 14');
    expect(err.message).toContain('line 6, column 4');
  });
});

describe('column lines', () => {
  it('accepts 10 for T, lower case and leading ":"', () => {
    const text = MS1.replace('TD 8S', '10d 8s').replace('JC 5S', ': jc 5S').replace('5H 3H', ':5H 3H');
    const layout = parseBoard(text, FC8);
    expect(formatBoard(layout, FC8)).toBe(MS1);
  });

  it('accepts CRLF line ends and trailing blank lines', () => {
    expect(formatBoard(parseBoard(MS1.replace(/\n/g, '\r\n'), FC8), FC8)).toBe(MS1);
    expect(formatBoard(parseBoard(`${MS1}\n\n  \n`, FC8), FC8)).toBe(MS1);
    expect(formatBoard(parseBoard(MS1.slice(0, -1), FC8), FC8)).toBe(MS1);
  });

  it('reads empty columns in the middle as empty lines or ":" lines', () => {
    const lines = MS1.trimEnd().split('\n');
    // 7 columns of cards + an empty third column; the third column's cards move to the last column.
    const moved = [lines[0], lines[1], '', lines[3], lines[4], lines[5], lines[6], `${lines[7]} ${lines[2]}`];
    const layout = parseBoard(moved.join('\n') + '\n', FC8);
    expect(layout.columns[2]).toEqual([]);
    const out = formatBoard(layout, FC8);
    expect(out.split('\n')[2]).toBe(':');
    expect(parseBoard(out, FC8)).toEqual(layout);
    const colon = moved.map((l, i) => (i === 2 ? ':' : l)).join('\n');
    expect(parseBoard(colon, FC8)).toEqual(layout);
  });

  it('takes missing trailing column lines as empty when every card is present', () => {
    const lines = MS1.trimEnd().split('\n');
    const seven = [...lines.slice(0, 6), `${lines[6]} ${lines[7]}`].join('\n') + '\n';
    const layout = parseBoard(seven, FC8);
    expect(layout.columns[7]).toEqual([]);
    expect(formatBoard(layout, FC8)).toBe(seven + ':\n');
  });

  it('reports wrong_column_count when column lines are missing and cards with them', () => {
    const lines = MS1.trimEnd().split('\n');
    const err = caught(() => parseBoard(lines.slice(0, 7).join('\n') + '\n', FC8));
    expect(err.code).toBe('wrong_column_count');
    expect(err.location).toEqual({ line: 8 });
    expect(err.message).toMatch(/6 cards are missing/);
  });

  it('reports wrong_column_count at the first non-blank line beyond the column count', () => {
    const err = caught(() => parseBoard(MS1, rulesWith(7, 4)));
    expect(err.code).toBe('wrong_column_count');
    expect(err.location).toEqual({ line: 8, column: 1, token: '5H' });
    const err2 = caught(() => parseBoard(`${MS1}\n:\n`, FC8));
    expect(err2.code).toBe('wrong_column_count');
    expect(err2.location).toEqual({ line: 10, column: 1, token: ':' });
  });

  it('reports an unknown token with line, column and token', () => {
    const err = caught(() => parseBoard(MS1.replace('9S 9D', '9S 1X'), FC8));
    expect(err.code).toBe('malformed_board');
    expect(err.location).toEqual({ line: 3, column: 7, token: '1X' });
    const err2 = caught(() => parseBoard(MS1.replace('9S 9D', '9S 11D'), FC8));
    expect(err2.location).toEqual({ line: 3, column: 7, token: '11D' });
  });

  it('reports a duplicate card at its second place, naming both lines', () => {
    const err = caught(() => parseBoard(MS1.replace('2H\n', 'JD\n'), FC8));
    expect(err.code).toBe('duplicate_card');
    expect(err.location).toEqual({ line: 3, column: 19, token: 'JD' });
    expect(err.message).toMatch(/JD appears twice: at line 1, column 1 and at line 3, column 19/);
  });

  it('reports missing cards, listing them', () => {
    const err = caught(() => parseBoard(MS1.replace(' 2H\n', '\n').replace(' TC\n', '\n'), FC8));
    expect(err.code).toBe('missing_card');
    expect(err.message).toContain('2 cards are missing: 2H TC');
    expect(err.location).toBeUndefined();
  });

  it('reports a duplicate between a free cell and a column', () => {
    const err = caught(() => parseBoard(`Freecells: - 6S\n${MS1}`, FC8));
    expect(err.code).toBe('duplicate_card');
    expect(err.location).toEqual({ line: 2, column: 19, token: '6S' });
    expect(err.message).toContain('line 1, column 14');
  });
});

describe('line breaks and separators', () => {
  it('reads CR-only line ends (old Mac files) as the same position as LF', () => {
    const withHeaders = `Foundations: H-0 C-0 D-A S-0\nFreecells: 6S\n${MS1.replace('6D 6S\n', '6D\n').replace('AD ', '')}`;
    for (const lf of [MS1, withHeaders, MS1.replace('JC 5S QD QH TH QS 6H', ':')]) {
      let layout: ReturnType<typeof parseBoard> | undefined;
      try {
        layout = parseBoard(lf, FC8);
      } catch {
        layout = undefined; // the third board lacks a column's cards: CR must give the same error as LF
      }
      const cr = lf.replace(/\n/g, '\r');
      if (layout) {
        expect(parseBoard(cr, FC8)).toEqual(layout);
        expect(formatBoard(parseBoard(cr, FC8), FC8)).toBe(formatBoard(layout, FC8));
      } else {
        const a = caught(() => parseBoard(lf, FC8));
        const b = caught(() => parseBoard(cr, FC8));
        expect([b.code, b.location]).toEqual([a.code, a.location]);
      }
    }
    // \r\n is one line break, not two (no empty column in between); mixed ends are fine
    const mixed = MS1.split('\n').map((l, i) => (i % 3 === 0 ? `${l}\r\n` : i % 3 === 1 ? `${l}\r` : `${l}\n`)).join('');
    expect(formatBoard(parseBoard(mixed, FC8), FC8)).toBe(MS1);
    // a blank CR-only line is an empty column, as a blank LF line
    const blank = (sep: string) => ['JD KD 2S 4C 3S 6D 6S', '', ...MS1.trimEnd().split('\n').slice(1)].join(sep);
    expect(() => parseBoard(blank('\n'), FC8)).toThrow(SolverError);
    const e1 = caught(() => parseBoard(blank('\n'), FC8));
    const e2 = caught(() => parseBoard(blank('\r'), FC8));
    expect([e2.code, e2.location]).toEqual([e1.code, e1.location]);
  });

  it('refuses columns joined by a separator other than a line break, at its line and column', () => {
    // Columns 5 and 6 joined: "5D AD JS 4H 8H 6C" + sep + "7H QC ...": with `\s` splitting, this
    // read as one column of 12 cards and an empty last column, a different, legal position.
    for (const sep of ['\u2028', '\u2029', '\v', '\f', '\u0085', '\u00a0', '\u200b', '\u3000', '\u0000', '\u001e', '\ufeff']) {
      const err = caught(() => parseBoard(MS1.replace('6C\n7H', `6C${sep}7H`), FC8));
      expect(err.code).toBe('malformed_board');
      expect(err.location).toEqual({ line: 5, column: 18, token: sep });
      expect(err.message).toContain(`U+${sep.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
      expect(err.message).toMatch(/^line 5, column 18: /);
    }
    // the place is found in header lines and in the leading whitespace of a column too
    expect(caught(() => parseBoard(`Freecells:\u00a0-\n${MS1}`, FC8)).location).toEqual({ line: 1, column: 11, token: '\u00a0' });
    expect(caught(() => parseBoard(MS1.replace('2D KC', '\f2D KC'), FC8)).location).toEqual({ line: 2, column: 1, token: '\f' });
    // a lone surrogate (from a JSON "\ud800" escape) is refused too
    expect(caught(() => parseBoard(MS1.replace('KD', 'KD \ud800'), FC8)).location).toEqual({ line: 1, column: 7, token: '\ud800' });
  });

  it('still takes spaces and tabs, runs of them, and a leading byte-order mark', () => {
    const spaced = `\uFEFF${MS1.replace(/ /g, ' \t  ').replace(/\n/g, ' \t\n')}`;
    expect(formatBoard(parseBoard(spaced, FC8), FC8)).toBe(MS1);
  });
});

describe('headers', () => {
  it('accepts Freecells and Foundations in either order', () => {
    const body = MS1.replace('6D 6S\n', '6D\n').replace('AD ', '');
    const a = parseBoard(`Foundations: D-A\nFreecells: 6S\n${body}`, FC8);
    const b = parseBoard(`Freecells: 6S\nFoundations: D-A\n${body}`, FC8);
    expect(a).toEqual(b);
    expect(formatBoard(a, FC8)).toBe(`Foundations: H-0 C-0 D-A S-0\nFreecells: 6S\n${body}`);
  });

  it('rejects a header after the columns and a repeated header', () => {
    let err = caught(() => parseBoard(`${MS1}Freecells: -\n`, FC8));
    expect(err.code).toBe('malformed_board');
    expect(err.location).toEqual({ line: 9, column: 1, token: 'Freecells:' });
    err = caught(() => parseBoard(`FC: -\nFreecells: -\n${MS1}`, FC8));
    expect(err.code).toBe('malformed_board');
    expect(err.location).toEqual({ line: 2, column: 1, token: 'Freecells:' });
  });
});

describe('size guard and empty input', () => {
  it('rejects absurdly long input quickly', () => {
    const huge = 'AS '.repeat(2_000_000);
    // CPU time of this process, not wall time: a busy CI machine stalls the
    // clock, not the work the bound is about (reading the 2,000,000 tokens)
    const t0 = process.cpuUsage();
    const err = caught(() => parseBoard(huge, FC8));
    const cpu = process.cpuUsage(t0);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(200);
    expect(err.code).toBe('malformed_board');
    expect(err.message).toContain(String(MAX_BOARD_TEXT_LENGTH));
  });

  it('rejects empty text', () => {
    expect(caught(() => parseBoard('', FC8)).code).toBe('malformed_board');
    expect(caught(() => parseBoard('\n \n', FC8)).code).toBe('malformed_board');
  });

  it('errors are SolverErrors with HTTP status 400 and a JSON body', () => {
    const err = caught(() => parseBoard(MS1.replace('9S 9D', '9S ZZ'), FC8));
    expect(err.status).toBe(400);
    expect(err.toJSON()).toEqual({ error: { code: 'malformed_board', message: err.message, line: 3, column: 7, token: 'ZZ' } });
  });
});

describe("wide games and King Albert's reserve (docs/rules.md \"Board text format\")", () => {
  const FAN = rulesWith(18, 0);
  const KA = rulesWith(9, 7, 1, 'none');
  const fan1 = readVectors().find(({ v }) => v.game === 'fan' && v.deal === 1)!.v.board;
  const ka1 = readVectors().find(({ v }) => v.game === 'king_albert' && v.deal === 1)!.v.board;

  it('reads 18 columns, one line each, and names a 19th at its line', () => {
    const layout = parseBoard(fan1, FAN);
    expect(layout.columns.map((col) => col.length)).toEqual([...new Array(17).fill(3), 1]);
    expect(formatBoard(layout, FAN)).toBe(fan1);
    const err = caught(() => parseBoard(`${fan1}AS\n`, FAN));
    expect(err.code).toBe('wrong_column_count');
    expect(err.location).toEqual({ line: 19, column: 1, token: 'AS' });
    expect(err.message).toBe('line 19: the game has 18 columns, this would be column 19');
    // a Fan board read as a 13-column game: its 14th line is the fault
    expect(caught(() => parseBoard(fan1, rulesWith(13, 0))).location).toEqual({ line: 14, column: 1, token: 'QC' });
  });

  it('reads a truncated wide board as missing columns, at the line after the last', () => {
    const lines = fan1.trimEnd().split('\n');
    const err = caught(() => parseBoard(lines.slice(0, 16).join('\n') + '\n', FAN));
    expect(err.code).toBe('wrong_column_count');
    expect(err.location).toEqual({ line: 17 });
  });

  it('writes a reserve as Reserve: and reads it back; Freecells: and FC: are the same line', () => {
    const layout = parseBoard(ka1, KA);
    expect(ka1.startsWith('Reserve: 3D 8C TC 6S 9C 2H 6H\n')).toBe(true);
    expect(layout.freeCells.map((c) => c !== null)).toEqual(new Array(7).fill(true));
    expect(formatBoard(layout, KA)).toBe(ka1);
    expect(formatBoard(layout)).toBe(ka1.replace('Reserve:', 'Freecells:')); // without rules nothing says it is a reserve
    expect(parseBoard(ka1.replace('Reserve:', 'Freecells:'), KA)).toEqual(layout);
    expect(parseBoard(ka1.replace('Reserve:', 'reserve :'), KA)).toEqual(layout);
  });

  it('reports reserve faults at their token, and a second cells line', () => {
    const eight = caught(() => parseBoard(ka1.replace('Reserve: 3D', 'Reserve: - 3D'), KA));
    expect(eight.code).toBe('wrong_cell_count');
    expect(eight.location).toEqual({ line: 1, column: 30, token: '6H' });
    const bad = caught(() => parseBoard(ka1.replace('Reserve: 3D', 'Reserve: 3X'), KA));
    expect(bad.code).toBe('malformed_board');
    expect(bad.location).toEqual({ line: 1, column: 10, token: '3X' });
    const twice = caught(() => parseBoard(`FC: -\n${ka1}`, KA));
    expect(twice.code).toBe('malformed_board');
    expect(twice.message).toBe('line 2: a second free-cell line (the first is line 1)');
    expect(twice.location).toEqual({ line: 2, column: 1, token: 'Reserve:' });
  });
});
