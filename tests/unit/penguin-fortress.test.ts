/**
 * Penguin (wrapping ranks, the beak's foundation base and empty-column rule)
 * and Fortress (building up or down in suit): the engine's solutions replayed
 * by the independent checker, and the special moves of these games seen in
 * real solutions.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { rankOf, parseCard, suitOf } from '../../client-sdk/core/cards.js';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal, Layout } from '../../client-sdk/core/rules.js';
import type { Move } from '../../client-sdk/core/moves.js';
import { applyMove, checkSolution } from '../../client-sdk/core/verify.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

/** Replays a solution, calling `look` with each move and the position before it. */
function replay(deal: Deal, moves: Move[], look: (move: Move, before: Layout) => void): void {
  let layout = deal.layout;
  for (const move of moves) {
    look(move, layout);
    layout = applyMove(deal.rules, layout, move);
  }
}

describe('Penguin', () => {
  it('deals the beak: foundation base = beak rank, the other three of its rank on the foundations', () => {
    const deal = resolveDeal({ game: 'penguin', deal: 1, numbering: 'pysolfc' });
    const beak = deal.layout.columns[0][0];
    expect(deal.rules.foundationBase).toBe(rankOf(beak));
    expect(deal.layout.foundations.filter((n) => n === 1)).toHaveLength(3);
    expect(deal.layout.foundations[suitOf(beak)]).toBe(0);
  });

  it('refuses a foundation base that contradicts the beak, and takes one that agrees', () => {
    const base = resolveDeal({ game: 'penguin', deal: 1 }).rules.foundationBase;
    const other = (base % 13) + 1;
    expect(() => resolveDeal({ game: 'penguin', deal: 1, rules: { foundationBase: other } })).toThrow(
      expect.objectContaining({ code: 'bad_rules', location: { path: 'rules.foundationBase' } }),
    );
    expect(resolveDeal({ game: 'penguin', deal: 1, rules: { foundationBase: base } }).rules.foundationBase).toBe(base);
  });

  it('a foundation base that breaks a dealt position is bad_rules at rules.foundationBase, not a fault of a layout never sent', () => {
    // Beleaguered Castle deals its aces to the foundations: with a base of 7 they would be the 7s, dealt twice
    const refusal = expect.objectContaining({ code: 'bad_rules', location: { path: 'rules.foundationBase' } });
    expect(() => resolveDeal({ game: 'beleaguered_castle', deal: 3, rules: { foundationBase: 7, wrap: true } })).toThrow(refusal);
    expect(() => resolveDeal({ game: 'beleaguered_castle', deal: 3, rules: { foundationBase: 7, wrap: true } })).toThrow(/^this deal cannot be played under these rules: card 7. appears twice/);
    // a deal with nothing on its foundations takes the same base
    expect(resolveDeal({ game: 'freecell', deal: 3, rules: { foundationBase: 7, wrap: true } }).rules.foundationBase).toBe(7);
  });

  it('solves deals 1..40 with checked solutions, using wrap-around builds and the beak rule for empty columns', () => {
    let solved = 0;
    let wrapBuilds = 0;
    let emptyColumnFills = 0;
    for (let n = 1; n <= 40; n++) {
      const deal = resolveDeal({ game: 'penguin', deal: n, numbering: 'pysolfc' });
      const outcome = engine.solve(deal, { limits: { maxStates: 2_000_000, timeoutMs: 60_000 } });
      expect(outcome.verdict, `deal ${n}`).not.toBe('unknown');
      if (outcome.verdict !== 'solved') continue;
      solved++;
      expect(checkSolution(deal.rules, deal.layout, outcome.moves)).toMatchObject({ ok: true });
      const belowBeak = ((deal.rules.foundationBase + 11) % 13) + 1;
      replay(deal, outcome.moves, (move, before) => {
        if (move.to !== 'column') return;
        const card = parseCard(move.card)!;
        const target = before.columns[move.toIndex];
        if (target.length === 0) {
          emptyColumnFills++;
          expect(rankOf(card), `deal ${n}: only the rank below the beak fills a column`).toBe(belowBeak);
        } else if (rankOf(card) === 13 && rankOf(target[target.length - 1]) === 1) {
          wrapBuilds++; // a King on an Ace: building down wraps A→K
        }
      });
    }
    expect(solved).toBeGreaterThan(30);
    expect(emptyColumnFills).toBeGreaterThan(0);
    expect(wrapBuilds).toBeGreaterThan(0);
  });
});

describe('Fortress', () => {
  it('solves some of deals 1..150 with checked solutions that build both up and down in suit', () => {
    let solved = 0;
    let unsolvable = 0;
    let up = 0;
    let down = 0;
    for (let n = 1; n <= 150; n++) {
      const deal = resolveDeal({ game: 'fortress', deal: n, numbering: 'pysolfc' });
      const outcome = engine.solve(deal, { limits: { maxStates: 2_000_000, timeoutMs: 60_000 } });
      if (outcome.verdict === 'unsolvable') unsolvable++;
      if (outcome.verdict !== 'solved') continue;
      solved++;
      expect(checkSolution(deal.rules, deal.layout, outcome.moves)).toMatchObject({ ok: true });
      replay(deal, outcome.moves, (move, before) => {
        if (move.to !== 'column') return;
        const target = before.columns[move.toIndex];
        if (target.length === 0) return;
        const below = target[target.length - 1];
        const card = parseCard(move.card)!;
        expect(suitOf(card)).toBe(suitOf(below));
        if (rankOf(card) === rankOf(below) + 1) up++;
        if (rankOf(card) === rankOf(below) - 1) down++;
      });
    }
    // Politaire reports about 20 % of Fortress deals winnable (docs/rules.md)
    expect(solved).toBeGreaterThan(10);
    expect(unsolvable).toBeGreaterThan(60);
    expect(up).toBeGreaterThan(0);
    expect(down).toBeGreaterThan(0);
  });
});
