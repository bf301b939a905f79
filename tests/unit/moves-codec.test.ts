import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MOVE_SOURCES, MOVE_TARGETS, PACKED_MOVE_BYTES, packMoves, unpackMoves, type Move } from '../../client-sdk/core/moves.js';
import { cardToString, fullDeck } from '../../client-sdk/core/cards.js';
import { answerFor, outcomeOf, packDeals, unpackDeals } from '../../server/worker-protocol.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal } from '../../client-sdk/core/rules.js';

const cards = fullDeck().map(cardToString);
const move: fc.Arbitrary<Move> = fc.record({
  from: fc.constantFrom(...MOVE_SOURCES),
  fromIndex: fc.integer({ min: 0, max: 9 }),
  to: fc.constantFrom(...MOVE_TARGETS),
  toIndex: fc.integer({ min: 0, max: 9 }),
  count: fc.integer({ min: 1, max: 52 }),
  card: fc.constantFrom(...cards),
  auto: fc.boolean(),
});

describe('packed moves (batch stores, worker answers)', () => {
  it('unpack(pack(moves)) gives the same moves, 8 bytes each', () => {
    fc.assert(
      fc.property(fc.array(move, { maxLength: 200 }), (moves) => {
        const bytes = packMoves(moves);
        expect(bytes.length).toBe(moves.length * PACKED_MOVE_BYTES);
        expect(unpackMoves(bytes)).toEqual(moves);
      }),
    );
  });

  it('a worker answer carries the moves packed and the pool gets the same outcome back', () => {
    const moves: Move[] = [
      { from: 'column', fromIndex: 3, to: 'cell', toIndex: 0, count: 1, card: 'KS', auto: false },
      { from: 'cell', fromIndex: 0, to: 'foundation', toIndex: 3, count: 1, card: 'AS', auto: true },
    ];
    const outcome = { verdict: 'solved' as const, moves, stats: { statesExpanded: 5, statesStored: 6, elapsedMs: 1, memoryBytes: 2 } };
    const answer = answerFor(outcome);
    if (!answer.ok) throw new Error('expected a successful answer');
    expect(answer.outcome.moves).toEqual([]);
    expect(answer.moves).toBeInstanceOf(Uint8Array);
    expect(outcomeOf(structuredClone(answer))).toEqual(outcome);
  });
});

describe('packed deals (pool → worker)', () => {
  const dealOf = (game: string, numbering: 'ms' | 'pysolfc', n: number): Deal => resolveDeal({ game, numbering, deal: n });

  it('unpackDeals(packDeals(deals)) gives the same deals, in order, rules shared by text', () => {
    const deals = [dealOf('freecell', 'ms', 1), dealOf('seahaven_towers', 'pysolfc', 7), dealOf('eight_off', 'pysolfc', 3), dealOf('citadel', 'pysolfc', 5), dealOf('freecell', 'ms', 11982)];
    const packed = packDeals(deals, true)!;
    expect(packed).toMatchObject({ count: 5, many: true });
    expect(packed.rules.length).toBeLessThanOrEqual(5);
    expect(unpackDeals(packed)).toEqual(deals);
    // a board position: cards in cells, foundations begun, an empty column
    const mid: Deal = {
      rules: deals[0].rules,
      layout: { columns: [[], ...deals[0].layout.columns.slice(1).map((c) => c.slice(0, 3))], freeCells: [null, 12, null, 40], foundations: [1, 0, 2, 0] },
    };
    expect(unpackDeals(packDeals([mid], false)!)).toEqual([mid]);
  });

  it('a deal that does not fit the format is left to be sent as it is (undefined)', () => {
    const plain = dealOf('freecell', 'ms', 1);
    expect(packDeals([{ ...plain, extra: 1 } as Deal], false)).toBeUndefined();
    expect(packDeals([{ ...plain, layout: { ...plain.layout, freeCells: [300, null, null, null] } }], false)).toBeUndefined();
    expect(packDeals([{ ...plain, layout: { ...plain.layout, foundations: [0.5, 0, 0, 0] } }], false)).toBeUndefined();
    expect(packDeals([plain, { ...plain, layout: { ...plain.layout, columns: [[...plain.layout.columns[0], -1]] } }], true)).toBeUndefined();
  });
});
