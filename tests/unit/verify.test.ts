import { describe, expect, it } from 'vitest';
import { cards, layout, mv, rulesOf } from '../helpers/positions.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { Move } from '../../client-sdk/core/moves.js';
import type { Layout, Rules } from '../../client-sdk/core/rules.js';
import { applyMove, checkMove, checkPackedSolution, checkSolution, isWon, moveFault, sequenceCapacity } from '../../client-sdk/core/verify.js';
import { packMoves, readPackedMove } from '../../client-sdk/core/moves.js';
import { cardToString } from '../../client-sdk/core/cards.js';
import { generateDeal } from '../../client-sdk/core/deals/index.js';

const cardText = (card: number | undefined): string => (card === undefined ? '' : cardToString(card));
const KA_CELLS = [0, 1, 2, 3, 4, 5, 6];

// ---------------------------------------------------------------------------
// Helpers: layouts from card text, moves from short place names.
// ---------------------------------------------------------------------------

const FREECELL = rulesOf('freecell');
const FORECELL = rulesOf('forecell'); // alternate_color, kings, cells_plus_one
const BAKERS = rulesOf('bakers_game'); // suit, any, supermove

/**
 * P1: all four suits up to 9 on the foundations; the 16 cards T..K are out.
 * Column 6 is empty; free cells 0 and 2 are occupied.
 */
function p1(): Layout {
  return layout(
    ['KS QH JC', 'KH QS JD TC', 'TH', 'TD', 'KC', 'JH QD', '', 'KD QC'],
    ['JS', null, 'TS', null],
    [9, 9, 9, 9],
  );
}

/** A winning solution from P1 (17 moves, some marked auto). */
function p1Win(): Move[] {
  return [
    mv('c1', 'h0', 'TC', 1, true),
    mv('c3', 'h1', 'TD', 1, true),
    mv('c2', 'h2', 'TH'),
    mv('f2', 'h3', 'TS'),
    mv('c0', 'h0', 'JC'),
    mv('c1', 'h1', 'JD'),
    mv('c5', 'f1', 'QD'),
    mv('c5', 'h2', 'JH'),
    mv('f0', 'h3', 'JS'),
    mv('c0', 'h2', 'QH'),
    mv('c1', 'h3', 'QS'),
    mv('f1', 'h1', 'QD'),
    mv('c7', 'h0', 'QC'),
    mv('c0', 'h3', 'KS'),
    mv('c1', 'h2', 'KH'),
    mv('c4', 'h0', 'KC'),
    mv('c7', 'h1', 'KD'),
  ];
}

function reasonOf(rules: Rules, l: Layout, m: Move): string | null {
  return checkMove(rules, l, m);
}

// ---------------------------------------------------------------------------

describe('checkMove / applyMove: single legal moves', () => {
  it('plays a card onto a column and leaves the input untouched', () => {
    const start = p1();
    const next = applyMove(FREECELL, start, mv('c2', 'c0', 'TH'));
    expect(next.columns[0]).toEqual(cards('KS QH JC TH'));
    expect(next.columns[2]).toEqual([]);
    expect(start).toEqual(p1());
  });

  it('plays to a free cell, from a free cell, to an empty column and to a foundation', () => {
    let l = applyMove(FREECELL, p1(), mv('c0', 'f1', 'JC'));
    expect(l.freeCells).toEqual([cards('JS')[0], cards('JC')[0], cards('TS')[0], null]);
    l = applyMove(FREECELL, l, mv('f1', 'c6', 'JC'));
    expect(l.columns[6]).toEqual(cards('JC'));
    expect(l.freeCells[1]).toBeNull();
    l = applyMove(FREECELL, l, mv('c3', 'h1', 'TD', 1, true));
    expect(l.foundations).toEqual([9, 10, 9, 9]);
    expect(l.columns[3]).toEqual([]);
  });

  it('accepts a lower-case or "10" card token for the named card', () => {
    expect(reasonOf(FREECELL, p1(), mv('c2', 'c0', 'th'))).toBeNull();
    expect(reasonOf(FREECELL, p1(), mv('c2', 'c0', '10H'))).toBeNull();
  });
});

describe('checkMove: illegal moves of every kind, exact reasons', () => {
  const l = p1();

  it('wrong colour (alternate_color)', () => {
    expect(reasonOf(FREECELL, l, mv('f2', 'c0', 'TS'))).toBe('TS cannot go on JC in column 0 (build alternate_color)');
    expect(reasonOf(FREECELL, l, mv('c3', 'c0', 'TD'))).toBeNull();
  });

  it('wrong rank', () => {
    expect(reasonOf(FREECELL, l, mv('c5', 'c0', 'QD'))).toBe('QD cannot go on JC in column 0 (build alternate_color)');
  });

  it('wrong suit (suit build), any suit allowed under rank build', () => {
    expect(reasonOf(BAKERS, l, mv('c2', 'c0', 'TH'))).toBe('TH cannot go on JC in column 0 (build suit)');
    expect(reasonOf({ ...FREECELL, build: 'rank' }, l, mv('f2', 'c0', 'TS'))).toBeNull();
    expect(reasonOf({ ...FREECELL, build: 'rank' }, l, mv('c5', 'c0', 'QD'))).toBe('QD cannot go on JC in column 0 (build rank)');
  });

  it('suit_up_or_down: one rank up or down in suit', () => {
    const fortress = { ...FREECELL, build: 'suit_up_or_down' as const, sequenceMove: 'unlimited' as const };
    const ud = layout(['KS QS JS', 'TS', 'QH JH', 'KH', '', 'KD QD JD TD', 'KC QC JC TC', ''], ['9S', '9H', '9D', '9C'], [8, 8, 8, 8]);
    expect(reasonOf(fortress, ud, mv('c1', 'c0', 'TS'))).toBeNull(); // down
    expect(reasonOf(fortress, ud, mv('c0', 'c1', 'JS'))).toBeNull(); // up
    expect(reasonOf(fortress, ud, mv('c2', 'c3', 'QH', 2))).toBeNull(); // QH JH on KH, all down
    expect(reasonOf(fortress, ud, mv('c2', 'c3', 'JH'))).toBe('JH cannot go on KH in column 3 (build suit_up_or_down)');
    expect(reasonOf(fortress, ud, mv('c1', 'c2', 'TS'))).toBe('TS cannot go on JH in column 2 (build suit_up_or_down)');
    expect(reasonOf(fortress, ud, mv('f1', 'c1', '9H'))).toBe('9H cannot go on TS in column 1 (build suit_up_or_down)');
  });

  it('card not at the source', () => {
    expect(reasonOf(FREECELL, l, mv('c0', 'f1', 'QH'))).toBe('column 0: card 1 from the top is JC, not QH');
    expect(reasonOf(FREECELL, l, mv('c0', 'c6', 'JC', 2))).toBe('column 0: card 2 from the top is QH, not JC');
    expect(reasonOf(FREECELL, l, mv('c2', 'c6', 'TH', 2))).toBe('column 2 holds 1 card, cannot move 2');
    expect(reasonOf(FREECELL, l, mv('c6', 'f1', 'TH'))).toBe('column 6 is empty');
    expect(reasonOf(FREECELL, l, mv('f0', 'c6', 'TS'))).toBe('free cell 0 holds JS, not TS');
    expect(reasonOf(FREECELL, l, mv('f1', 'c6', 'TS'))).toBe('free cell 1 is empty');
  });

  it('free cell occupied, and one card at a time to and from cells', () => {
    expect(reasonOf(FREECELL, l, mv('c0', 'f0', 'JC'))).toBe('free cell 0 is occupied by JS');
    expect(reasonOf(FREECELL, l, mv('c0', 'f1', 'QH', 2))).toBe('a free cell takes one card; count must be 1, got 2');
    expect(reasonOf(FREECELL, l, mv('f0', 'c6', 'JS', 2))).toBe('a free cell holds one card; count must be 1, got 2');
  });

  it('foundation out of order, wrong suit, one card at a time', () => {
    expect(reasonOf(FREECELL, l, mv('c5', 'h1', 'QD'))).toBe('foundation D takes TD next, not QD');
    expect(reasonOf(FREECELL, l, mv('c3', 'h2', 'TD'))).toBe('TD is not of suit H (foundation 2)');
    expect(reasonOf(FREECELL, l, mv('c0', 'h0', 'QH', 2))).toBe('cards go to the foundations one at a time; count must be 1, got 2');
  });

  it('an auto move must be a legal foundation move', () => {
    expect(reasonOf(FREECELL, l, mv('c2', 'c0', 'TH', 1, true))).toBe('an auto move must go to a foundation');
    expect(reasonOf(FREECELL, l, mv('c5', 'h1', 'QD', 1, true))).toBe('foundation D takes TD next, not QD');
    expect(reasonOf(FREECELL, l, mv('c3', 'h1', 'TD', 1, true))).toBeNull();
  });

  it('malformed moves', () => {
    expect(reasonOf(FREECELL, l, mv('c0', 'c0', 'JC'))).toBe('source and destination are the same column 0');
    expect(reasonOf(FREECELL, l, mv('c8', 'c0', 'JC'))).toBe('no column 8 (8 columns)');
    expect(reasonOf(FREECELL, l, mv('c0', 'f4', 'JC'))).toBe('no free cell 4 (4 free cells)');
    expect(reasonOf(FREECELL, l, mv('c0', 'h4', 'JC'))).toBe('no foundation 4 (foundations are 0..3: C, D, H, S)');
    expect(reasonOf(FREECELL, l, mv('c0', 'f1', 'ZZ'))).toBe('"ZZ" is not a card');
    expect(reasonOf(FREECELL, l, mv('c0', 'f1', 'JC', 0))).toBe('count must be a positive integer, got 0');
    expect(reasonOf(FREECELL, l, { ...mv('c0', 'f1', 'JC'), from: 'foundation' as never })).toBe('unknown source "foundation"');
    expect(reasonOf({ ...FREECELL, build: 'diagonal' as never }, l, mv('c2', 'c0', 'TH'))).toBe('invalid rules: build "diagonal"');
  });

  it('applyMove throws SolverError illegal_move with the reason', () => {
    let caught: unknown;
    try {
      applyMove(FREECELL, l, mv('c0', 'f0', 'JC'));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SolverError);
    expect((caught as SolverError).code).toBe('illegal_move');
    expect((caught as SolverError).message).toBe('free cell 0 is occupied by JS');
  });
});

describe('sequence moves', () => {
  it('a run within the supermove capacity; the destination is not counted', () => {
    // f = 2 (cells 1, 3), e = 0 (column 6 is the destination) -> 3
    expect(reasonOf(FREECELL, p1(), mv('c1', 'c6', 'QS', 3))).toBeNull();
    expect(reasonOf(FREECELL, p1(), mv('c1', 'c6', 'KH', 4))).toBe(
      '4 cards exceed the sequence-move capacity 3 (sequenceMove supermove: (f + 1) * 2^e with f = 2, e = 0)',
    );
  });

  it('an empty column other than the destination doubles the capacity', () => {
    const l = applyMove(FREECELL, p1(), mv('c3', 'h1', 'TD')); // column 3 empties: f = 2, e = 1 -> 6
    expect(reasonOf(FREECELL, l, mv('c1', 'c6', 'KH', 4))).toBeNull();
    const moved = applyMove(FREECELL, l, mv('c1', 'c6', 'KH', 4));
    expect(moved.columns[6]).toEqual(cards('KH QS JD TC'));
    expect(moved.columns[1]).toEqual([]);
  });

  it('a moved run must be a sequence', () => {
    expect(reasonOf(FREECELL, p1(), mv('c5', 'c6', 'JH', 2))).toBe(
      'moved run JH QD is not a sequence: QD cannot go on JH (build alternate_color)',
    );
  });

  it('sequenceMove none allows single cards only', () => {
    const none = { ...FREECELL, sequenceMove: 'none' as const };
    expect(reasonOf(FREECELL, p1(), mv('c0', 'c4', 'QH', 2))).toBeNull();
    expect(reasonOf(none, p1(), mv('c0', 'c4', 'QH', 2))).toBe(
      '2 cards exceed the sequence-move capacity 1 (sequenceMove none: single cards only)',
    );
  });

  it('cells_plus_one ignores empty columns', () => {
    const l = applyMove(FORECELL, p1(), mv('c3', 'h1', 'TD')); // f = 2, one empty column besides 6
    expect(reasonOf(FORECELL, l, mv('c1', 'c6', 'KH', 4))).toBe(
      '4 cards exceed the sequence-move capacity 3 (sequenceMove cells_plus_one: f + 1 with f = 2)',
    );
    expect(reasonOf(FORECELL, l, mv('c0', 'c4', 'QH', 2))).toBeNull();
  });

  it('moveFault names the check a move failed, with the same reason as checkMove', () => {
    const cases: [Rules, Layout, Move, string | null][] = [
      [FREECELL, p1(), mv('c5', 'c6', 'JH', 2), 'run_not_a_sequence'],
      [FREECELL, p1(), mv('c1', 'c6', 'KH', 4), 'over_capacity'],
      [FREECELL, p1(), mv('c5', 'c0', 'QD'), 'destination_refuses'],
      [FREECELL, p1(), mv('c5', 'c5', 'QD'), 'same_place'],
      [FREECELL, p1(), mv('c5', 'c0', 'JH'), 'card_not_there'],
      [FREECELL, p1(), mv('c1', 'c6', 'QS', 3), null],
    ];
    for (const [rules, l, move, check] of cases) {
      const fault = moveFault(rules, l, move);
      expect(fault?.check ?? null).toBe(check);
      expect(fault?.reason ?? null).toBe(checkMove(rules, l, move));
    }
  });
});

describe('sequenceCapacity formula', () => {
  /** A shape-only layout: `cols` is a string of '#' (occupied) and '.' (empty) columns, `freeCells` empty cells of 4. */
  function shape(cols: string, emptyCells: number): Layout {
    const card = cards('AS')[0];
    return {
      columns: [...cols].map((c) => (c === '#' ? [card] : [])),
      freeCells: [0, 1, 2, 3].map((i) => (i < emptyCells ? null : card)),
      foundations: [0, 0, 0, 0],
    };
  }
  const sm = FREECELL;
  it.each([
    ['########', 4, 0, 5],
    ['##..####', 4, 0, 20], // dest non-empty, e = 2
    ['##..####', 4, 2, 10], // dest is one of the empties, e = 1
    ['#...####', 1, 0, 16], // (1 + 1) * 2^3
    ['########', 0, 0, 1],
    ['........', 0, 0, 128], // 2^7, destination excluded
    ['........', 4, 7, 640],
  ])('supermove %s with %i empty cells to column %i: %i', (cols, cells, to, expected) => {
    expect(sequenceCapacity(sm, shape(cols, cells), to)).toBe(expected);
  });
  it('cells_plus_one, none, unlimited, and supermove with kings-only empty columns', () => {
    const l = shape('##..####', 3);
    expect(sequenceCapacity(FORECELL, l, 0)).toBe(4);
    expect(sequenceCapacity({ ...FREECELL, sequenceMove: 'none' }, l, 0)).toBe(1);
    expect(sequenceCapacity({ ...FREECELL, sequenceMove: 'unlimited' }, l, 0)).toBe(Infinity);
    expect(sequenceCapacity({ ...FREECELL, emptyColumn: 'kings' }, l, 0)).toBe(4);
    expect(sequenceCapacity({ ...FREECELL, emptyColumn: 'none' }, l, 0)).toBe(4);
    expect(sequenceCapacity(FREECELL, l, 0)).toBe(16);
  });
});

describe('empty columns', () => {
  it('kings only', () => {
    expect(reasonOf(FORECELL, p1(), mv('c2', 'c6', 'TH'))).toBe('empty column 6 takes only Ks (emptyColumn kings), not TH');
    expect(reasonOf(FORECELL, p1(), mv('c1', 'c6', 'QS', 3))).toBe('empty column 6 takes only Ks (emptyColumn kings), not QS');
    expect(reasonOf(FORECELL, p1(), mv('c4', 'c6', 'KC'))).toBeNull();
    expect(reasonOf(FORECELL, p1(), mv('c0', 'c6', 'KS', 3))).toBeNull();
  });
  it('none', () => {
    expect(reasonOf({ ...FREECELL, emptyColumn: 'none' }, p1(), mv('c4', 'c6', 'KC'))).toBe(
      'empty column 6 takes no cards (emptyColumn none)',
    );
  });
  it('any', () => {
    expect(reasonOf(FREECELL, p1(), mv('c2', 'c6', 'TH'))).toBeNull();
  });
});

describe('checkSolution', () => {
  it('accepts a winning solution and returns the won layout', () => {
    const start = p1();
    const result = checkSolution(FREECELL, start, p1Win());
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(isWon(result.final)).toBe(true);
      expect(result.final.foundations).toEqual([13, 13, 13, 13]);
    }
    expect(start).toEqual(p1());
  });

  it('reports the first illegal move by index', () => {
    const moves = p1Win();
    [moves[7], moves[9]] = [moves[9], moves[7]];
    expect(checkSolution(FREECELL, p1(), moves)).toEqual({ ok: false, moveIndex: 7, reason: 'foundation H takes JH next, not QH' });
  });

  it('rejects a solution that does not win', () => {
    const moves = p1Win().slice(0, 15);
    expect(checkSolution(FREECELL, p1(), moves)).toEqual({
      ok: false,
      moveIndex: 15,
      reason: 'not won: 2 cards are not on the foundations (2 in columns, 0 in free cells)',
    });
    expect(checkSolution(FREECELL, p1(), [])).toEqual({
      ok: false,
      moveIndex: 0,
      reason: 'not won: 16 cards are not on the foundations (14 in columns, 2 in free cells)',
    });
  });

  it('rejects an invalid start layout or rules with moveIndex -1', () => {
    const dup = p1();
    dup.columns[6] = cards('KS');
    expect(checkSolution(FREECELL, dup, p1Win())).toEqual({ ok: false, moveIndex: -1, reason: 'invalid start layout: duplicate card KS (column 6)' });
    const missing = p1();
    missing.columns[7] = cards('KD');
    expect(checkSolution(FREECELL, missing, p1Win())).toEqual({ ok: false, moveIndex: -1, reason: 'invalid start layout: missing card QC' });
    const onFoundation = p1();
    onFoundation.columns[6] = cards('9C');
    expect(checkSolution(FREECELL, onFoundation, p1Win())).toEqual({
      ok: false,
      moveIndex: -1,
      reason: 'invalid start layout: duplicate card 9C (column 6)',
    });
    const short = p1();
    short.columns.pop();
    expect(checkSolution(FREECELL, short, p1Win())).toEqual({ ok: false, moveIndex: -1, reason: 'invalid start layout: 7 columns, the rules have 8' });
    expect(checkSolution({ ...FREECELL, freeCells: 3 }, p1(), p1Win())).toEqual({
      ok: false,
      moveIndex: -1,
      reason: 'invalid start layout: 4 free cells, the rules have 3',
    });
    expect(checkSolution({ ...FREECELL, foundationBase: 0 }, p1(), p1Win())).toEqual({
      ok: false,
      moveIndex: -1,
      reason: 'invalid rules: foundationBase 0 (1..13)',
    });
  });

  it('the same solution fails under stricter rules at the exact move', () => {
    // Baker's Game: the start is the same, but QD to a free cell then JH... all are foundation/cell moves,
    // so insert a column move that is only legal in alternate colours.
    const moves = [mv('c2', 'c0', 'TH'), mv('c0', 'h2', 'TH'), ...p1Win().filter((m) => m.card !== 'TH')];
    expect(checkSolution(FREECELL, p1(), moves).ok).toBe(true);
    expect(checkSolution(BAKERS, p1(), moves)).toEqual({ ok: false, moveIndex: 0, reason: 'TH cannot go on JC in column 0 (build suit)' });
  });
});

describe('checkPackedSolution (a solution as packMoves bytes, as the pool\'s workers check)', () => {
  it('gives the same answer as checkSolution: a win, the first illegal move, not won, a bad start', () => {
    const swapped = p1Win();
    [swapped[7], swapped[9]] = [swapped[9], swapped[7]];
    const dup = p1();
    dup.columns[0][0] = dup.columns[6][dup.columns[6].length - 1];
    for (const [start, moves] of [[p1(), p1Win()], [p1(), swapped], [p1(), p1Win().slice(0, 15)], [p1(), []], [dup, p1Win()]] as const) {
      expect(checkPackedSolution(FREECELL, start, packMoves([...moves]))).toEqual(checkSolution(FREECELL, start, [...moves]));
    }
    expect(checkPackedSolution(BAKERS, p1(), packMoves(p1Win()))).toEqual(checkSolution(BAKERS, p1(), p1Win()));
  });

  it('refuses bytes that are not whole moves, and a move byte that names no place', () => {
    expect(checkPackedSolution(FREECELL, p1(), new Uint8Array(12))).toEqual({ ok: false, moveIndex: -1, reason: '12 bytes are not a whole number of packed moves' });
    const bytes = packMoves(p1Win());
    bytes[8 * 2] = 7; // move 3's source kind: no such kind
    expect(checkPackedSolution(FREECELL, p1(), bytes)).toEqual({ ok: false, moveIndex: 2, reason: 'unknown source undefined' });
    expect(checkPackedSolution(FREECELL, p1(), undefined as unknown as Uint8Array)).toEqual({ ok: false, moveIndex: -1, reason: 'moves is not a byte array' });
  });

  it('readPackedMove reads each move as unpackMoves does, into the object it is given', () => {
    const moves = p1Win();
    const bytes = packMoves(moves);
    const into: Move = { from: 'cell', fromIndex: 9, to: 'cell', toIndex: 9, count: 9, card: '', auto: true };
    moves.forEach((move, i) => expect(readPackedMove(bytes, i, into)).toEqual(move));
    expect(() => readPackedMove(bytes, moves.length, into)).toThrow(RangeError);
  });
});

describe('wrapping ranks (Penguin-like rules)', () => {
  const PENGUIN: Rules = {
    columns: 7,
    freeCells: 7,
    build: 'suit',
    emptyColumn: 'kings',
    sequenceMove: 'unlimited',
    foundationBase: 5,
    wrap: true,
  };
  /** Foundations hold 5..Q of every suit; A..4 and the kings are out. */
  function pw(): Layout {
    return layout(
      ['4S 3S 2S AS KS', '4H 3H 2H AH', 'KH', '4D 3D 2D AD KD', '4C 3C 2C', 'AC', ''],
      ['KC', null, null, null, null, null, null],
      [8, 8, 8, 8],
    );
  }

  it('a King builds on an Ace on the tableau only with wrap', () => {
    expect(reasonOf(PENGUIN, pw(), mv('c2', 'c1', 'KH'))).toBeNull();
    expect(reasonOf({ ...PENGUIN, wrap: false }, pw(), mv('c2', 'c1', 'KH'))).toBe('KH cannot go on AH in column 1 (build suit)');
    expect(reasonOf(PENGUIN, pw(), mv('c0', 'c6', '4S', 5))).toBeNull();
    expect(reasonOf({ ...PENGUIN, wrap: false }, pw(), mv('c0', 'c6', '4S', 5))).toBe(
      'moved run 4S 3S 2S AS KS is not a sequence: KS cannot go on AS (build suit)',
    );
  });

  it('an empty column takes only the rank below the beak', () => {
    expect(reasonOf(PENGUIN, pw(), mv('c0', 'c6', 'KS'))).toBe('empty column 6 takes only 4s (emptyColumn kings), not KS');
    expect(reasonOf(PENGUIN, pw(), mv('c1', 'c6', '4H', 4))).toBeNull();
    // Without wrap the top rank is the King again.
    expect(reasonOf({ ...PENGUIN, wrap: false }, pw(), mv('c0', 'c6', 'KS'))).toBeNull();
  });

  it('foundations continue K -> A with wrap, and are complete after K without it', () => {
    expect(reasonOf(PENGUIN, pw(), mv('c5', 'h0', 'AC'))).toBe('foundation C takes KC next, not AC');
    expect(reasonOf(PENGUIN, pw(), mv('f0', 'h0', 'KC'))).toBeNull();
    const afterKing = applyMove(PENGUIN, pw(), mv('f0', 'h0', 'KC'));
    expect(reasonOf(PENGUIN, afterKing, mv('c5', 'h0', 'AC'))).toBeNull();
    expect(reasonOf({ ...PENGUIN, wrap: false }, afterKing, mv('c5', 'h0', 'AC'))).toBe('foundation C is complete');
  });

  it('replays a whole wrapping solution', () => {
    const moves = [
      mv('c2', 'h2', 'KH'),
      mv('c1', 'h2', 'AH'),
      mv('c1', 'h2', '2H'),
      mv('c1', 'h2', '3H'),
      mv('c1', 'h2', '4H'),
      mv('f0', 'h0', 'KC'),
      mv('c5', 'h0', 'AC'),
      mv('c4', 'h0', '2C'),
      mv('c4', 'h0', '3C'),
      mv('c4', 'h0', '4C'),
      mv('c3', 'h1', 'KD'),
      mv('c3', 'h1', 'AD'),
      mv('c3', 'h1', '2D'),
      mv('c3', 'h1', '3D'),
      mv('c3', 'h1', '4D'),
      mv('c0', 'h3', 'KS'),
      mv('c0', 'h3', 'AS'),
      mv('c0', 'h3', '2S'),
      mv('c0', 'h3', '3S'),
      mv('c0', 'h3', '4S'),
    ];
    const result = checkSolution(PENGUIN, pw(), moves);
    expect(result.ok).toBe(true);
    // With base Ace the foundations would hold A..8, which the columns also hold.
    expect(checkSolution({ ...PENGUIN, foundationBase: 1 }, pw(), moves)).toEqual({
      ok: false,
      moveIndex: -1,
      reason: 'invalid start layout: duplicate card 4S (column 0)',
    });
    // Without wrap, foundations from base 5 stop at K: the next card is refused as complete.
    expect(checkSolution({ ...PENGUIN, wrap: false }, pw(), moves)).toEqual({ ok: false, moveIndex: 1, reason: 'foundation H is complete' });
    const wrong = moves.slice();
    wrong.splice(1, 1);
    expect(checkSolution(PENGUIN, pw(), wrong)).toEqual({ ok: false, moveIndex: 1, reason: 'column 1: card 1 from the top is AH, not 2H' });
  });
});

describe('isWon', () => {
  it('needs 13 cards on every foundation and nothing left', () => {
    expect(isWon(layout(['', '', '', ''], [null], [13, 13, 13, 13]))).toBe(true);
    expect(isWon(layout(['', 'KS', '', ''], [null], [13, 13, 13, 12]))).toBe(false);
    expect(isWon(layout(['', '', '', ''], ['KS'], [13, 13, 13, 12]))).toBe(false);
  });
});

// ---------------------------------------------------------------------------
// The games of issue 40 (docs/rules.md "Presets"): more than 10 columns,
// empty columns that are never filled, a reserve that is never filled, one
// free cell for the Castle games.
// ---------------------------------------------------------------------------

describe("Baker's Dozen and Good Measure: rank build, single cards, an emptied column stays empty", () => {
  const BD = rulesOf('bakers_dozen');
  // 13 columns; column 12 is empty; hearts and spades up to 9, clubs and diamonds up to 8.
  const end = (): Layout =>
    layout(['KC QD', 'KH QS JH', 'KS', 'KD TC', 'QC', 'JC', 'QH', 'JS TD', 'TH 9C', 'TS', 'JD', '9D', ''], [], [8, 8, 9, 9]);

  it('builds down regardless of suit, one card at a time, onto any of 13 columns', () => {
    expect(reasonOf(BD, end(), mv('c8', 'c10', '9C'))).toBe('9C cannot go on JD in column 10 (build rank)');
    expect(reasonOf(BD, end(), mv('c8', 'c7', '9C'))).toBeNull(); // 9C on TD
    expect(reasonOf(BD, end(), mv('c11', 'c3', '9D'))).toBeNull(); // 9D on TC, column 11 empties
    expect(reasonOf(BD, end(), mv('c5', 'c1', 'JC'))).toBe('JC cannot go on JH in column 1 (build rank)');
    expect(reasonOf(BD, end(), mv('c7', 'c9', 'JS', 2))).toBe('2 cards exceed the sequence-move capacity 1 (sequenceMove none: single cards only)');
  });

  it('an empty column takes nothing, and there are no free cells', () => {
    expect(reasonOf(BD, end(), mv('c4', 'c12', 'QC'))).toBe('empty column 12 takes no cards (emptyColumn none)');
    expect(reasonOf(BD, end(), mv('c2', 'c12', 'KS'))).toBe('empty column 12 takes no cards (emptyColumn none)');
    expect(reasonOf(BD, end(), mv('c4', 'f0', 'QC'))).toBe('no free cell 0 (0 free cells)');
    expect(reasonOf(BD, end(), mv('c4', 'c13', 'QC'))).toBe('no column 13 (13 columns)');
  });

  it('replays a win of 13 columns', () => {
    const win = [
      mv('c8', 'c7', '9C'), mv('c8', 'h2', 'TH'), mv('c9', 'h3', 'TS'), mv('c7', 'h0', '9C'), mv('c11', 'h1', '9D'),
      mv('c7', 'h1', 'TD'), mv('c3', 'h0', 'TC'), mv('c5', 'h0', 'JC'), mv('c4', 'h0', 'QC'), mv('c10', 'h1', 'JD'),
      mv('c0', 'h1', 'QD'), mv('c0', 'h0', 'KC'), mv('c3', 'h1', 'KD'), mv('c1', 'h2', 'JH'), mv('c6', 'h2', 'QH'),
      mv('c1', 'h3', 'QS', 1, true), mv('c7', 'h3', 'JS'), mv('c1', 'h3', 'QS'), mv('c1', 'h2', 'KH'), mv('c2', 'h3', 'KS'),
    ];
    // JS must go home before QS: the auto move of QS at 15 is out of order
    expect(checkSolution(BD, end(), win)).toEqual({ ok: false, moveIndex: 15, reason: 'foundation S takes JS next, not QS' });
    const fixed = win.filter((_, i) => i !== 15);
    expect(checkSolution(BD, end(), fixed)).toMatchObject({ ok: true });
  });

  it('Good Measure: the same rules on 10 columns; its dealt positions are valid starts', () => {
    const GM = rulesOf('good_measure');
    expect({ ...GM, columns: 13 }).toEqual(BD);
    for (const game of ['bakers_dozen', 'good_measure']) {
      const rules = rulesOf(game);
      const start = generateDeal(game, 'pysolfc', 5).layout;
      // a valid start (not -1), not won before any move
      expect(checkSolution(rules, start, [])).toMatchObject({ ok: false, moveIndex: 0 });
    }
  });
});

describe('Fan: 18 columns, suit build, kings only to an empty column', () => {
  const FAN = rulesOf('fan');
  const deal = (): Layout => generateDeal('fan', 'pysolfc', 1).layout; // column 17 is 6H, column 5 ends 7D

  it('knows columns 0..17 and no more; builds down in suit', () => {
    const start = deal();
    expect(start.columns[17]).toEqual(cards('6H'));
    expect(checkSolution(FAN, start, [])).toMatchObject({ ok: false, moveIndex: 0 });
    expect(reasonOf(FAN, start, mv('c17', 'c18', '6H'))).toBe('no column 18 (18 columns)');
    expect(reasonOf(FAN, start, mv('c17', 'c5', '6H'))).toBe('6H cannot go on 7D in column 5 (build suit)');
  });

  it('an emptied column takes only a king', () => {
    const l = layout([...new Array<string>(17).fill(''), ''], [], [13, 13, 13, 13]);
    // a hand-made end: the four kings left, column 0..3 hold them, column 4 empty
    l.columns[0] = cards('KC');
    l.columns[1] = cards('KD');
    l.columns[2] = cards('KH QH');
    l.columns[3] = cards('KS');
    l.foundations = [12, 12, 11, 12];
    expect(reasonOf(FAN, l, mv('c2', 'c4', 'QH'))).toBe('empty column 4 takes only Ks (emptyColumn kings), not QH');
    expect(reasonOf(FAN, l, mv('c3', 'c17', 'KS'))).toBeNull();
    expect(reasonOf(FAN, l, mv('c2', 'c1', 'QH'))).toBe('QH cannot go on KD in column 1 (build suit)');
    expect(checkSolution(FAN, l, [mv('c2', 'h2', 'QH'), mv('c2', 'h2', 'KH'), mv('c0', 'h0', 'KC'), mv('c1', 'h1', 'KD'), mv('c3', 'h3', 'KS')]).ok).toBe(true);
  });
});

describe('King Albert: a reserve that is played from and never filled', () => {
  const KA = rulesOf('king_albert');
  // Near the end: KC and KH in the reserve, KD in column 0, QD on KS in column 8.
  const end = (): Layout => layout(['KD', '', '', '', '', '', '', '', 'KS QD'], ['KC', null, null, 'KH', null, null, null], [12, 11, 12, 12]);

  it('a reserve card goes to a column or a foundation, and no card enters a reserve cell', () => {
    expect(reasonOf(KA, end(), mv('f0', 'h0', 'KC'))).toBeNull();
    expect(reasonOf(KA, end(), mv('f3', 'c1', 'KH'))).toBeNull(); // any card to an empty column
    expect(reasonOf(KA, end(), mv('c8', 'f1', 'QD'))).toBe('free cell 1 is a reserve cell: no card enters it (emptyCell none)');
    expect(reasonOf(KA, end(), mv('f0', 'f1', 'KC'))).toBe('free cell 1 is a reserve cell: no card enters it (emptyCell none)');
    expect(reasonOf(KA, end(), mv('c8', 'c1', 'QD'))).toBeNull();
    expect(reasonOf(KA, end(), mv('c8', 'c0', 'QD'))).toBe('QD cannot go on KD in column 0 (build alternate_color)');
  });

  it('an emptied reserve cell stays empty', () => {
    const after = applyMove(KA, end(), mv('f0', 'h0', 'KC'));
    expect(after.freeCells[0]).toBeNull();
    expect(reasonOf(KA, after, mv('c0', 'f0', 'KD'))).toBe('free cell 0 is a reserve cell: no card enters it (emptyCell none)');
    const win = [mv('f0', 'h0', 'KC'), mv('c8', 'h1', 'QD'), mv('c0', 'h1', 'KD'), mv('f3', 'h2', 'KH'), mv('c8', 'h3', 'KS')];
    expect(checkSolution(KA, end(), win).ok).toBe(true);
    expect(checkSolution({ ...KA, emptyCell: 'any' }, end(), [mv('c8', 'f1', 'QD'), ...win.slice(0, 1), mv('f1', 'h1', 'QD'), ...win.slice(2)]).ok).toBe(true);
    expect(checkSolution(KA, end(), [mv('c8', 'f1', 'QD'), ...win.slice(0, 1), mv('f1', 'h1', 'QD'), ...win.slice(2)])).toEqual({
      ok: false,
      moveIndex: 0,
      reason: 'free cell 1 is a reserve cell: no card enters it (emptyCell none)',
    });
  });

  it('empty reserve cells are no room for a sequence move', () => {
    const l = layout(['KD', '', 'KS QD', '', '', '', '', '', ''], ['KC', null, null, 'KH', null, null, null], [12, 11, 12, 12]);
    // f = 0 though five reserve cells are empty; e = 7 empty columns (the target, column 0, is not one)
    expect(sequenceCapacity({ ...KA, sequenceMove: 'supermove' }, l, 0)).toBe(2 ** 7);
    expect(sequenceCapacity({ ...KA, sequenceMove: 'cells_plus_one' }, l, 0)).toBe(1);
    expect(sequenceCapacity({ ...KA, sequenceMove: 'cells_plus_one', emptyCell: 'any' }, l, 0)).toBe(6);
  });

  it('its deals are valid starts: 9 columns of 1..9 and 7 reserve cards', () => {
    const start = generateDeal('king_albert', 'pysolfc', 1).layout;
    expect(checkSolution(KA, start, [])).toMatchObject({ ok: false, moveIndex: 0 });
    const toCell = start.columns.flatMap((col, c) => KA_CELLS.map((t) => mv(`c${c}`, `f${t}`, cardText(col[col.length - 1]))));
    expect(toCell.filter((m) => reasonOf(KA, start, m) === null)).toEqual([]);
  });

  it('rules must name a known emptyCell', () => {
    expect(checkSolution({ ...KA, emptyCell: 'some' as 'any' }, end(), [])).toEqual({ ok: false, moveIndex: -1, reason: 'invalid rules: emptyCell "some"' });
  });
});

describe('Siegecraft and Stronghold: the Castle games with one free cell', () => {
  it('one card to the free cell, a second refused; single cards between columns', () => {
    for (const game of ['siegecraft', 'stronghold']) {
      const rules = rulesOf(game);
      const start = generateDeal(game, 'pysolfc', 1).layout;
      const tops = start.columns.map((col) => cardText(col[col.length - 1]));
      // every exposed card may go to the empty cell
      tops.forEach((card, c) => expect(reasonOf(rules, start, mv(`c${c}`, 'f0', card)), `${game} ${card}`).toBeNull());
      const parked = applyMove(rules, start, mv('c0', 'f0', tops[0]));
      expect(reasonOf(rules, parked, mv('c1', 'f0', tops[1]))).toBe(`free cell 0 is occupied by ${tops[0]}`);
      expect(reasonOf(rules, parked, mv('c1', 'f1', tops[1]))).toBe('no free cell 1 (1 free cells)');
      expect(sequenceCapacity(rules, parked, 1)).toBe(1);
    }
  });
});
