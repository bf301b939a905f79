import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MOVE_SOURCES, MOVE_TARGETS, PACKED_MOVE_BYTES, packMoves, unpackMoves, type Move } from '../../client-sdk/core/moves.js';
import { cardToString, fullDeck } from '../../client-sdk/core/cards.js';
import { answerFor, outcomeOf } from '../../server/worker-protocol.js';

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
