/**
 * The layered complete pass of the compact Castle layout (assembly/layers.ts,
 * docs/engine.md "The layered pass"): the measure M that orders it never
 * falls along a move (checked here with the checker's own moves, independent
 * of the engine), and the pass gives the full search's verdict and positions
 * count, with solutions the checker replays and fewer keys held than stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { applyMove, checkSolution } from '../../client-sdk/core/verify.js';
import { rankOf } from '../../client-sdk/core/cards.js';
import { solveWithProof } from '../../client-sdk/core/proof/writer.js';
import type { Deal, Layout } from '../../client-sdk/core/rules.js';
import { latePosition, legalSingleCardMoves, SMALL_UNSOLVABLE_CASTLE_DEALS } from '../helpers/positions.js';

interface Hooks {
  layeredInUse(): number;
  layeredPeakLive(): number;
  layeredViolations(): number;
  layerCount(layer: number): number;
}

let engine: Engine;
let hooks: Hooks;
beforeAll(async () => {
  engine = await Engine.create();
  hooks = engine.moduleExports() as unknown as Hooks;
});

/**
 * The class of `layout` for the start columns of `start`, computed from the
 * cards (not from the engine's key): the four foundations, then for each
 * start column its incompatible links (card j + 1 not one rank below card j)
 * that are broken (the column whose deepest card is the start column's
 * deepest card no longer holds the dealt cards 0..j + 1). M is its sum.
 */
function classOf(start: Layout, layout: Layout): number[] {
  const vector = [...layout.foundations];
  for (const dealt of start.columns) {
    let broken = 0;
    const column = dealt.length === 0 ? undefined : layout.columns.find((c) => c.length > 0 && c[0] === dealt[0]);
    let prefix = 0;
    if (column) while (prefix < dealt.length && prefix < column.length && column[prefix] === dealt[prefix]) prefix++;
    for (let j = 0; j + 1 < dealt.length; j++) {
      if (j + 2 > prefix && rankOf(dealt[j + 1]) !== rankOf(dealt[j]) - 1) broken++;
    }
    vector.push(broken);
  }
  return vector;
}

/** A seeded linear congruential generator (the walks must be reproducible). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

/** Solves `deal` with the layered pass and with the full search. */
function both(deal: Deal, maxStates: number) {
  const layered = engine.solve(deal, { limits: { maxStates, timeoutMs: 120_000, layered: true } });
  const used = hooks.layeredInUse() === 1;
  const peak = hooks.layeredPeakLive();
  const violations = hooks.layeredViolations();
  let histogram = 0;
  for (let k = 0; k < 128 * 32; k++) histogram += hooks.layerCount(k);
  const full = engine.solve(deal, { limits: { maxStates, timeoutMs: 120_000 } });
  expect(hooks.layeredInUse()).toBe(0);
  return { layered, full, used, peak, violations, histogram };
}

describe('the layered pass of the compact Castle layout', () => {
  it('no move lowers any part of the class (the foundations, each column\'s broken links), from the deals and from random-walk positions (the checker\'s moves)', () => {
    let checked = 0;
    let linkBreaks = 0;
    let sameClass = 0;
    for (const game of ['streets_and_alleys', 'beleaguered_castle', 'citadel', 'good_measure'] as const) {
      for (const n of [1, 5, 11, 77, 954]) {
        const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
        for (let seed = 1; seed <= 3; seed++) {
          const next = lcg(seed * 7919 + n);
          let layout = deal.layout;
          for (let step = 0; step < 120; step++) {
            const legal = legalSingleCardMoves(deal, layout);
            if (legal.length === 0) break;
            const here = classOf(deal.layout, layout);
            for (const move of legal) {
              const there = classOf(deal.layout, applyMove(deal.rules, layout, move));
              for (let i = 0; i < here.length; i++) expect(there[i], `${game} ${n} seed ${seed} step ${step} part ${i}`).toBeGreaterThanOrEqual(here[i]);
              const raised = there.some((v, i) => v > here[i]);
              if (move.to !== 'foundation' && raised) linkBreaks++;
              if (!raised) sameClass++;
              checked++;
            }
            layout = applyMove(deal.rules, layout, legal[next() % legal.length]);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(5_000);
    // the class is not just the foundations (tableau moves raise it too), and most moves keep it
    expect(linkBreaks).toBeGreaterThan(100);
    expect(sameClass).toBeGreaterThan(checked / 2);
  }, 120_000);

  it.each(SMALL_UNSOLVABLE_CASTLE_DEALS)('%s unsolvable deals: the same verdict, positions and expansions as the full search', (game, deals) => {
    for (const n of deals) {
      const r = both(resolveDeal({ game, deal: n, numbering: 'pysolfc' }), 2_000_000);
      expect(r.used).toBe(true);
      expect(r.violations).toBe(0);
      expect(r.full.verdict).toBe('unsolvable');
      expect(r.layered.verdict).toBe('unsolvable');
      expect(r.layered.stats.statesStored).toBe(r.full.stats.statesStored);
      expect(r.layered.stats.statesExpanded).toBe(r.full.stats.statesExpanded);
      expect(r.histogram).toBe(r.layered.stats.statesStored);
    }
  }, 120_000);

  it('frees what it can no longer reach: Streets and Alleys 5 holds under half its positions\' keys at once', () => {
    const r = both(resolveDeal({ game: 'streets_and_alleys', deal: 5, numbering: 'pysolfc' }), 2_000_000);
    expect(r.layered.verdict).toBe('unsolvable');
    expect(r.layered.stats.statesStored).toBe(r.full.stats.statesStored);
    expect(r.layered.stats.statesStored).toBeGreaterThan(50_000);
    expect(r.peak).toBeGreaterThan(0);
    expect(r.peak).toBeLessThan(r.layered.stats.statesStored / 2);
  }, 120_000);

  it('after a full search that ran out of memory (12 MiB), decides within the same cap: Streets and Alleys 68 (solveWithProof, after_memory)', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 68, numbering: 'pysolfc' });
    const cap = 12 * 2 ** 20;
    const whole = engine.solve(deal, { limits: { maxStates: 2_000_000, timeoutMs: 60_000 } });
    expect(whole.verdict).toBe('unsolvable');
    const capped = engine.solve(deal, { limits: { maxStates: 2_000_000, timeoutMs: 60_000 }, memoryLimitBytes: cap });
    expect([capped.verdict, capped.reason]).toEqual(['unknown', 'memory']);
    const outcome = solveWithProof(engine, deal, { maxStates: 2_000_000, timeoutMs: 60_000, layered: 'after_memory' }, { memoryLimitBytes: cap, poolings: [] });
    expect(outcome.verdict).toBe('unsolvable');
    expect(outcome.stats.statesStored).toBe(whole.stats.statesStored);
    expect(outcome.stats.memoryBytes).toBeLessThanOrEqual(cap);
    expect(outcome.layered?.peakLive).toBeLessThan(whole.stats.statesStored / 2);
    // no certificate: the keys of closed layers are gone
    expect(outcome.proof).toBeUndefined();
    expect(engine.storedKeys(10_000_000)).toBeNull();
    expect(() => engine.fingerprint()).toThrow();
    // without the option the same call stays unknown
    const plain = solveWithProof(engine, deal, { maxStates: 2_000_000, timeoutMs: 60_000 }, { memoryLimitBytes: cap, poolings: [] });
    expect([plain.verdict, plain.reason]).toEqual(['unknown', 'memory']);
  }, 120_000);

  it('a layered pass that does not decide answers with its own reason, not the full search\'s memory (Streets and Alleys 68, after_memory, a state budget)', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 68, numbering: 'pysolfc' });
    const cap = 12 * 2 ** 20;
    const whole = engine.solve(deal, { limits: { maxStates: 2_000_000, timeoutMs: 60_000 } });
    const capped = engine.solve(deal, { limits: { maxStates: 2_000_000, timeoutMs: 60_000 }, memoryLimitBytes: cap });
    expect([capped.verdict, capped.reason]).toEqual(['unknown', 'memory']);
    // a budget above what the capped full search stores, below the whole set: the full search stops for memory, the layered pass for the budget
    const maxStates = Math.round((capped.stats.statesStored + whole.stats.statesStored) / 2);
    const limits = { maxStates, timeoutMs: 60_000 };
    const first = engine.solve(deal, { limits, memoryLimitBytes: cap });
    expect([first.verdict, first.reason]).toEqual(['unknown', 'memory']);
    const outcome = solveWithProof(engine, deal, { ...limits, layered: 'after_memory' }, { memoryLimitBytes: cap, poolings: [] });
    expect([outcome.verdict, outcome.reason]).toEqual(['unknown', 'max_states']);
    expect(outcome.stats.statesExpanded).toBeGreaterThan(first.stats.statesExpanded);
    expect(outcome.stats.statesStored).toBeGreaterThanOrEqual(first.stats.statesStored);
    expect(outcome.stats.statesStored).toBeLessThanOrEqual(maxStates);
  }, 120_000);

  it('solved from positions late in a won game: the solution replays under the checker, the verdict is the full search\'s', () => {
    let solved = 0;
    for (const [game, n] of [['citadel', 1], ['citadel', 3], ['beleaguered_castle', 2], ['streets_and_alleys', 11]] as const) {
      const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
      // start where 40 cards are home (its reachable set is small), or at the last tableau move
      const late = latePosition(engine, deal);
      const r = both(late, 3_000_000);
      expect(r.used).toBe(true);
      expect(r.violations).toBe(0);
      expect(r.full.verdict).toBe('solved');
      expect(r.layered.verdict).toBe('solved');
      expect(checkSolution(late.rules, late.layout, r.layered.moves).ok).toBe(true);
      solved++;
    }
    expect(solved).toBe(4);
  }, 120_000);

  it('is not used outside the compact layout (FreeCell), where the search is the usual one', () => {
    const deal = resolveDeal({ game: 'freecell', deal: 1, numbering: 'ms' });
    const a = engine.solve(deal, { limits: { maxStates: 100_000, timeoutMs: 10_000, layered: true } });
    expect(hooks.layeredInUse()).toBe(0);
    const b = engine.solve(deal, { limits: { maxStates: 100_000, timeoutMs: 10_000 } });
    expect(a.verdict).toBe('solved');
    expect(a.stats.statesStored).toBe(b.stats.statesStored);
  });
});
