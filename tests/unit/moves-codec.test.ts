import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MOVE_SOURCES, MOVE_TARGETS, PACKED_MOVE_BYTES, packMoves, unpackMoves, type Move } from '../../client-sdk/core/moves.js';
import { cardToString, fullDeck } from '../../client-sdk/core/cards.js';

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
});

