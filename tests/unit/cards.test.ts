import { describe, expect, it } from 'vitest';
import { cardToString, fullDeck, makeCard, parseCard } from '../../client-sdk/core/cards.js';
import { packMoves, unpackMoves, type Move } from '../../client-sdk/core/moves.js';

describe('parseCard', () => {
  it('reads every standard form back to its card', () => {
    for (const card of fullDeck()) expect(parseCard(cardToString(card))).toBe(card);
  });

  it('reads the other accepted spellings: lower case, 10, 1, surrounding spaces', () => {
    expect(parseCard('th')).toBe(makeCard(10, 2));
    expect(parseCard('10H')).toBe(makeCard(10, 2));
    expect(parseCard('1s')).toBe(makeCard(1, 3));
    expect(parseCard(' KD ')).toBe(makeCard(13, 1));
    expect(parseCard('qC')).toBe(makeCard(12, 0));
  });

  it('refuses what is not a card', () => {
    for (const token of ['', 'A', 'AX', 'XS', 'S9', '0S', '11C', 'ÁS', 'A\u0100', '\u0141S', 'KDD']) expect(parseCard(token), JSON.stringify(token)).toBeNull();
  });
});

describe('packed moves', () => {
  it('unpack every card text they packed, standard or not', () => {
    const moves: Move[] = fullDeck().map((card, i) => ({ from: 'column', fromIndex: i % 8, to: 'foundation', toIndex: card & 3, count: 1, card: cardToString(card), auto: i % 2 === 0 }));
    moves.push({ from: 'cell', fromIndex: 0, to: 'column', toIndex: 1, count: 1, card: 'th', auto: false });
    moves.push({ from: 'cell', fromIndex: 0, to: 'column', toIndex: 1, count: 1, card: 'é9', auto: false });
    expect(unpackMoves(packMoves(moves))).toEqual(moves);
  });
});
