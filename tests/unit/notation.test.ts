import { describe, expect, it } from 'vitest';
import { cards, layout, mv, rulesOf } from '../helpers/positions.js';
import { cardToString, type Card } from '../../client-sdk/core/cards.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { Move } from '../../client-sdk/core/moves.js';
import { expandSequenceMoves, toFcsMoves, toStandardNotation } from '../../client-sdk/core/notation.js';
import type { Layout, Rules } from '../../client-sdk/core/rules.js';
import { applyMove, checkMove, checkSolution } from '../../client-sdk/core/verify.js';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import { replayMoveList } from '../../client-sdk/core/move-list.js';

const FREECELL = rulesOf('freecell');
const RELAXED = rulesOf('relaxed_freecell');
const FORECELL = rulesOf('forecell');
const SEAHAVEN = rulesOf('seahaven_towers');
const EIGHT_OFF = rulesOf('eight_off');

function thrown(fn: () => unknown): SolverError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SolverError) return err;
    throw err;
  }
  throw new Error('did not throw');
}

describe('toStandardNotation', () => {
  it('8 columns, 4 cells', () => {
    const moves = [
      mv('c2', 'f0', '5H'),
      mv('f0', 'c3', '5H'),
      mv('c2', 'h1', 'AD'),
      mv('c2', 'c7', '9C'),
      mv('f3', 'h2', 'AH'),
      mv('c0', 'c7', 'QH', 3),
      mv('f1', 'f2', '7C'),
    ];
    expect(toStandardNotation(moves, FREECELL)).toEqual(['3a', 'a4', '3h', '38', 'dh', '18', 'bc']);
  });

  it('10 columns: the tenth column is 0', () => {
    const moves = [mv('c9', 'h0', 'AC'), mv('c0', 'c9', 'KS'), mv('c9', 'c0', 'QS'), mv('c8', 'f3', '2D'), mv('f0', 'c9', 'JS')];
    expect(toStandardNotation(moves, SEAHAVEN)).toEqual(['0h', '10', '01', '9d', 'a0']);
  });

  it('8 cells: e, f, g, i (h is the foundations)', () => {
    const moves = [mv('c0', 'f4', '5H'), mv('f5', 'c1', '5H'), mv('f6', 'h3', 'AS'), mv('f7', 'c7', 'KD'), mv('c7', 'f7', 'KD')];
    expect(toStandardNotation(moves, EIGHT_OFF)).toEqual(['1e', 'f2', 'gh', 'i8', '8i']);
  });

  it('rejects places the rules do not have', () => {
    const e1 = thrown(() => toStandardNotation([mv('c0', 'h0', 'AC'), mv('c8', 'h0', 'AC')], FREECELL));
    expect(e1.code).toBe('illegal_move');
    expect(e1.message).toBe('move 1: no column 8 (8 columns)');
    const e2 = thrown(() => toStandardNotation([mv('c0', 'f4', 'AC')], FREECELL));
    expect(e2.message).toBe('move 0: no free cell 4 (4 free cells)');
  });
});

describe('toFcsMoves', () => {
  it('prints fc-solve lines, 0-based', () => {
    const moves = [
      mv('c3', 'f0', '5H'),
      mv('c2', 'c5', '9C', 3),
      mv('c2', 'c5', '9C'),
      mv('f0', 'h2', 'AH', 1, true),
      mv('c3', 'h0', 'AC'),
      mv('f1', 'c4', '7C'),
      mv('f1', 'f2', '7C'),
      mv('c9', 'c0', 'KS'),
    ];
    expect(toFcsMoves(moves)).toEqual([
      'Move a card from stack 3 to freecell 0',
      'Move 3 cards from stack 2 to stack 5',
      'Move 1 cards from stack 2 to stack 5',
      'Move a card from freecell 0 to the foundations',
      'Move a card from stack 3 to the foundations',
      'Move a card from freecell 1 to stack 4',
      'Move a card from freecell 1 to freecell 2',
      'Move 1 cards from stack 9 to stack 0',
    ]);
  });

  it('rejects malformed moves', () => {
    expect(thrown(() => toFcsMoves([{ ...mv('c0', 'h0', 'AC'), fromIndex: -1 }])).message).toBe('move 0: bad index -1');
  });
});

// ---------------------------------------------------------------------------
// Expansion of sequence moves
// ---------------------------------------------------------------------------

/** P1 of the checker tests: foundations up to 9; free cells 1 and 3 empty; column 6 empty. */
function p1(): Layout {
  return layout(
    ['KS QH JC', 'KH QS JD TC', 'TH', 'TD', 'KC', 'JH QD', '', 'KD QC'],
    ['JS', null, 'TS', null],
    [9, 9, 9, 9],
  );
}

/** The rest of a win from P1 after the cards of column 1 moved to column 6 (`KH` says whether KH moved too). */
function finishAfterRunToColumn6(khMoved: boolean): Move[] {
  return [
    mv('c6', 'h0', 'TC'),
    mv('c3', 'h1', 'TD'),
    mv('c2', 'h2', 'TH'),
    mv('f2', 'h3', 'TS'),
    mv('c0', 'h0', 'JC'),
    mv('c6', 'h1', 'JD'),
    mv('c5', 'f1', 'QD'),
    mv('c5', 'h2', 'JH'),
    mv('f0', 'h3', 'JS'),
    mv('c0', 'h2', 'QH'),
    mv('c6', 'h3', 'QS'),
    mv('f1', 'h1', 'QD'),
    mv('c7', 'h0', 'QC'),
    mv('c0', 'h3', 'KS'),
    mv(khMoved ? 'c6' : 'c1', 'h2', 'KH'),
    mv('c4', 'h0', 'KC'),
    mv('c7', 'h1', 'KD'),
  ];
}

const singleCards = (rules: Rules): Rules => ({ ...rules, sequenceMove: 'none' });

describe('expandSequenceMoves', () => {
  it('cells only: n cards take 2n - 1 moves, exact sequence', () => {
    const moves = [mv('c1', 'c6', 'QS', 3), ...finishAfterRunToColumn6(false)];
    expect(checkSolution(FREECELL, p1(), moves).ok).toBe(true);
    expect(checkSolution(singleCards(FREECELL), p1(), moves)).toEqual({
      ok: false,
      moveIndex: 0,
      reason: '3 cards exceed the sequence-move capacity 1 (sequenceMove none: single cards only)',
    });
    const expanded = expandSequenceMoves(FREECELL, p1(), moves);
    expect(expanded.slice(0, 5)).toEqual([
      mv('c1', 'f1', 'TC'),
      mv('c1', 'f3', 'JD'),
      mv('c1', 'c6', 'QS'),
      mv('f3', 'c6', 'JD'),
      mv('f1', 'c6', 'TC'),
    ]);
    expect(expanded.slice(5)).toEqual(moves.slice(1));
    expect(checkSolution(singleCards(FREECELL), p1(), expanded).ok).toBe(true);
  });

  it('uses an empty column when the cells are not enough', () => {
    const moves = [mv('c3', 'h1', 'TD'), mv('c1', 'c6', 'KH', 4), ...finishAfterRunToColumn6(true).filter((m) => m.card !== 'TD')];
    expect(checkSolution(FREECELL, p1(), moves).ok).toBe(true);
    const expanded = expandSequenceMoves(FREECELL, p1(), moves);
    // 3 cards via the cells into column 3 (5 moves), KH to column 6 (1), 3 cards back (5).
    expect(expanded.length).toBe(moves.length - 1 + 11);
    expect(toStandardNotation(expanded.slice(1, 12), FREECELL)).toEqual([
      '2b', '2d', '24', 'd4', 'b4', '27', '4b', '4d', '47', 'd7', 'b7',
    ]);
    expect(checkSolution(singleCards(FREECELL), p1(), expanded).ok).toBe(true);
  });

  it('cells_plus_one (kings-only empty columns) expands through cells', () => {
    const moves = [mv('c0', 'c6', 'KS', 3)];
    const expanded = expandSequenceMoves(FORECELL, p1(), moves);
    expect(toStandardNotation(expanded, FORECELL)).toEqual(['1b', '1d', '17', 'd7', 'b7']);
    let l = p1();
    for (const m of expanded) l = applyMove(singleCards(FORECELL), l, m);
    expect(l).toEqual(applyMove(FORECELL, p1(), moves[0]));
  });

  it('unlimited: expands within (f + 1) * 2^e, keeps longer moves as they are', () => {
    const within = [mv('c1', 'c6', 'QS', 3), ...finishAfterRunToColumn6(false)];
    const expandedWithin = expandSequenceMoves(RELAXED, p1(), within);
    expect(expandedWithin.length).toBe(within.length + 4);
    expect(checkSolution(singleCards(RELAXED), p1(), expandedWithin).ok).toBe(true);

    // f = 2, no empty column besides the destination: 4 cards cannot be made of single moves.
    const beyond = [mv('c1', 'c6', 'KH', 4), ...finishAfterRunToColumn6(true)];
    expect(checkSolution(RELAXED, p1(), beyond).ok).toBe(true);
    expect(checkSolution(FREECELL, p1(), beyond)).toEqual({
      ok: false,
      moveIndex: 0,
      reason: '4 cards exceed the sequence-move capacity 3 (sequenceMove supermove: (f + 1) * 2^e with f = 2, e = 0)',
    });
    const kept = expandSequenceMoves(RELAXED, p1(), beyond);
    expect(kept).toEqual(beyond);
    expect(checkSolution(singleCards(RELAXED), p1(), kept)).toEqual({
      ok: false,
      moveIndex: 0,
      reason: '4 cards exceed the sequence-move capacity 1 (sequenceMove none: single cards only)',
    });
  });

  it('throws illegal_move for an illegal input move', () => {
    const err = thrown(() => expandSequenceMoves(FREECELL, p1(), [mv('c0', 'f1', 'JC'), mv('c1', 'c6', 'KH', 4)]));
    expect(err.code).toBe('illegal_move');
    expect(err.message).toBe('move 1: 4 cards exceed the sequence-move capacity 2 (sequenceMove supermove: (f + 1) * 2^e with f = 1, e = 0)');
  });

  /**
   * Clubs and diamonds on the foundations; two 13-card alternating runs of hearts
   * and spades. `f` empty free cells and `e` empty columns besides the
   * destination (column 2), made by moving cards from the top of column 1.
   * With `onto`, column 0 holds QH..AS and column 2 holds KS, so the run goes onto a card.
   */
  function runLayout(f: number, e: number, onto: boolean): Layout {
    const run0 = 'KS QH JS TH 9S 8H 7S 6H 5S 4H 3S 2H AS';
    const col1 = cards('KH QS JH TS 9H 8S 7H 6S 5H 4S 3H 2S AH');
    const columns: Card[][] = [cards(run0), col1, [], [], [], [], [], []];
    if (onto) {
      columns[0] = cards(run0).slice(1);
      columns[2] = cards('KS');
    }
    const freeCells: (Card | null)[] = [null, null, null, null];
    for (let i = 0; i < 4 - f; i++) freeCells[i] = col1.pop() as Card;
    for (let i = 0; i < 5 - e; i++) columns[3 + i] = [col1.pop() as Card];
    return { columns, freeCells, foundations: [13, 13, 0, 0] };
  }

  for (let f = 0; f <= 4; f++) {
    for (let e = 0; e <= 5; e++) {
      const capacity = (f + 1) * 2 ** e;
      it(`f = ${f}, e = ${e}: moves of up to ${capacity} cards expand to legal single moves`, () => {
        for (const onto of [false, true]) {
          const start = runLayout(f, e, onto);
          expect(checkSolution(FREECELL, start, [])).toMatchObject({ ok: false, moveIndex: 0 }); // a valid, unwon start
          const runLength = onto ? 12 : 13;
          const sizes = onto ? [12] : [...new Set([1, 2, Math.min(capacity, runLength)])];
          for (const n of sizes) {
            if (n > capacity) continue;
            const col = start.columns[0];
            const move = mv('c0', 'c2', cardToString(col[col.length - n]), n);
            expect(checkMove(FREECELL, start, move)).toBeNull();
            const expanded = expandSequenceMoves(FREECELL, start, [move]);
            if (n <= f + 1) expect(expanded.length).toBe(2 * n - 1);
            let l = start;
            for (const m of expanded) l = applyMove(singleCards(FREECELL), l, m);
            expect(l).toEqual(applyMove(FREECELL, start, move));
          }
          if (!onto && capacity < runLength) {
            const n = capacity + 1;
            const move = mv('c0', 'c2', cardToString(start.columns[0][13 - n]), n);
            expect(checkMove(FREECELL, start, move)).toBe(
              `${n} cards exceed the sequence-move capacity ${capacity} (sequenceMove supermove: (f + 1) * 2^e with f = ${f}, e = ${e})`,
            );
          }
        }
      });
    }
  }
});

describe('wide games and reserves (docs/rules.md "Move notation")', () => {
  const BAKERS_DOZEN = rulesOf('bakers_dozen');
  const FAN = rulesOf('fan');
  const KING_ALBERT = rulesOf('king_albert');

  it('columns 11..18 are j..q, after 1..9 and 0', () => {
    const moves = [mv('c10', 'h0', 'AC'), mv('c12', 'c0', 'QS'), mv('c9', 'c11', '5D'), mv('c17', 'c16', 'KH'), mv('c13', 'c14', '2S')];
    expect(toStandardNotation(moves.slice(0, 3), BAKERS_DOZEN)).toEqual(['jh', 'l1', '0k']);
    expect(toStandardNotation(moves, FAN)).toEqual(['jh', 'l1', '0k', 'qp', 'mn']);
    expect(thrown(() => toStandardNotation([mv('c13', 'h0', 'AC')], BAKERS_DOZEN)).message).toBe('move 0: no column 13 (13 columns)');
  });

  it('reads j..q back, and refuses a column the game lacks', () => {
    const e = thrown(() => replayMoveList(BAKERS_DOZEN, generateDeal('bakers_dozen', 'pysolfc', 1).layout, ['nh']));
    expect(e.message).toContain('"n" is no column or free cell of this game (13 columns, 0 free cells)');
    const won = replayMoveList(FAN, FAN_END, ['qh', 'jh', 'kh', 'lh']);
    expect(won.moves.map((m) => [m.fromIndex, m.card])).toEqual([[17, 'KH'], [10, 'KC'], [11, 'KD'], [12, 'KS']]);
    expect(toStandardNotation(won.moves, FAN)).toEqual(['qh', 'jh', 'kh', 'lh']);
  });

  it('a reserve cell is a source only: a7 plays, 7a is refused', () => {
    const start = generateDeal('king_albert', 'pysolfc', 1).layout; // reserve 3D 8C TC 6S 9C 2H 6H
    expect(toStandardNotation([mv('f6', 'h2', '6H'), mv('f0', 'c8', '3D')], KING_ALBERT)).toEqual(['gh', 'a9']);
    const e = thrown(() => replayMoveList(KING_ALBERT, start, ['1a']));
    expect(e.message).toBe('move 0 "1a" is illegal: free cell a is a reserve cell: no card enters it (emptyCell none)');
  });

  it('expansion of a sequence move never parks a card in a reserve cell', () => {
    // King Albert with supermoves (an override): empty reserve cells are no room, an empty column is
    const rules: Rules = { ...KING_ALBERT, sequenceMove: 'supermove' };
    const l = layout(['KD QS JH', 'QC', '', 'KS', 'KC', 'KH', '', '', ''], [null, null, 'QH', null, null, null, null], [11, 12, 10, 11]);
    // e = 4 empty columns (2, 6, 7, 8), f = 0: four empty reserve cells make no room
    expect(checkMove(rules, l, mv('c0', 'c5', 'QS', 2))).toBeNull();
    expect(checkMove({ ...rules, sequenceMove: 'cells_plus_one' }, l, mv('c0', 'c5', 'QS', 2))).toBe(
      '2 cards exceed the sequence-move capacity 1 (sequenceMove cells_plus_one: f + 1 with f = 0)',
    );
    const run = [mv('c0', 'c5', 'QS', 2)];
    const single = expandSequenceMoves(rules, l, run);
    expect(single.every((m) => m.to !== 'cell')).toBe(true);
    expect(single.map((m) => [m.card, m.toIndex])).toEqual([['JH', 2], ['QS', 5], ['JH', 5]]);
    expect(checkSolution({ ...rules, sequenceMove: 'none' }, l, single)).toMatchObject({ ok: false, moveIndex: 3 });
  });
});

/** Fan, the four kings left: KC in column 10, KD in 11, KS in 12, KH in 17. */
const FAN_END: Layout = layout(
  ['', '', '', '', '', '', '', '', '', '', 'KC', 'KD', 'KS', '', '', '', '', 'KH'],
  [],
  [12, 12, 12, 12],
);
