/**
 * The layered pass over several engines (client-sdk/core/sharded-layers.ts,
 * assembly/shards.ts; docs/engine.md "The layered pass over several
 * engines"), forced to K = 2 and 3 engines on small deals: the full search's
 * verdict, positions and expansions on unsolvable deals, checked solutions
 * whose parent chains cross shards, one engine's counts exactly at K = 1, and
 * `unknown` (memory) when one shard fills.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine, loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { solveLayeredSharded, shardsForMemory } from '../../client-sdk/core/sharded-layers.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { latePosition, SMALL_UNSOLVABLE_CASTLE_DEALS } from '../helpers/positions.js';

let module: WebAssembly.Module;
let engine: Engine;
beforeAll(async () => {
  module = await loadEngineModule();
  engine = Engine.instantiate(module);
});

const GiB = 2 ** 30;
const LIMITS = { maxStates: 3_000_000, timeoutMs: 120_000 };

describe('the layered pass over several engines', () => {
  it('takes ceil(cap / 2 GiB) engines', () => {
    expect(shardsForMemory(2 * GiB)).toBe(1);
    expect(shardsForMemory(4095 * 2 ** 20)).toBe(2);
    expect(shardsForMemory(4 * GiB + 1)).toBe(3);
    expect(shardsForMemory(16 * GiB)).toBe(8);
    expect(() => shardsForMemory(0)).toThrow(RangeError);
    expect(() => shardsForMemory(33 * GiB)).toThrow(RangeError);
  });

  it.each(SMALL_UNSOLVABLE_CASTLE_DEALS)('%s unsolvable deals, K = 2 and 3: the full search\'s verdict, positions and expansions', (game, deals) => {
    for (const n of deals) {
      const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
      const full = engine.solve(deal, { limits: LIMITS });
      expect(full.verdict).toBe('unsolvable');
      for (const shards of [2, 3]) {
        const r = solveLayeredSharded(module, deal, LIMITS, { memoryLimitBytes: GiB, shards });
        expect([n, shards, r.verdict]).toEqual([n, shards, 'unsolvable']);
        expect(r.stats.statesStored).toBe(full.stats.statesStored);
        expect(r.stats.statesExpanded).toBe(full.stats.statesExpanded);
        expect(r.detail.layerCounts.reduce((a, b) => a + b, 0)).toBe(full.stats.statesStored);
        expect(r.detail.perShard).toHaveLength(shards);
        expect(r.layered?.shards?.count).toBe(shards);
        // every shard took part when there is more than a handful of positions
        if (full.stats.statesStored > 1000) for (const p of r.detail.perShard) expect(p.stored).toBeGreaterThan(0);
      }
    }
  }, 120_000);

  it('K = 1 is the one-engine layered pass: the same positions, expansions and peak live set', () => {
    for (const [game, n] of [['streets_and_alleys', 5], ['beleaguered_castle', 26]] as const) {
      const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
      const one = engine.solve(deal, { limits: { ...LIMITS, layered: true } });
      const r = solveLayeredSharded(module, deal, LIMITS, { memoryLimitBytes: GiB, shards: 1 });
      expect(r.verdict).toBe(one.verdict);
      expect(r.stats.statesStored).toBe(one.stats.statesStored);
      expect(r.stats.statesExpanded).toBe(one.stats.statesExpanded);
      expect(r.layered?.peakLive).toBe(one.layered?.peakLive);
      expect(r.detail.perShard[0].forwarded).toBe(0);
    }
  }, 120_000);

  it('solves late positions of won games with K = 2 and 3: solutions across shards that the checker replays', () => {
    let crossed = 0;
    for (const [game, n] of [['citadel', 1], ['citadel', 3], ['beleaguered_castle', 2], ['streets_and_alleys', 11]] as const) {
      const late = latePosition(engine, resolveDeal({ game, deal: n, numbering: 'pysolfc' }));
      for (const shards of [2, 3]) {
        const r = solveLayeredSharded(module, late, LIMITS, { memoryLimitBytes: GiB, shards });
        expect([game, n, shards, r.verdict]).toEqual([game, n, shards, 'solved']);
        expect(checkSolution(late.rules, late.layout, r.moves).ok).toBe(true);
        if (r.detail.perShard.some((p) => p.forwarded > 0)) crossed++;
      }
    }
    // the parent chains went through other shards (children were forwarded)
    expect(crossed).toBeGreaterThan(4);
  }, 120_000);

  it('ends unknown (memory) when a shard fills, and (max_states) at the positions budget', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 68, numbering: 'pysolfc' });
    const whole = solveLayeredSharded(module, deal, LIMITS, { memoryLimitBytes: GiB, shards: 2 });
    expect(whole.verdict).toBe('unsolvable');
    const cap = 8 * 2 ** 20;
    const capped = solveLayeredSharded(module, deal, LIMITS, { memoryLimitBytes: cap, shards: 2 });
    expect([capped.verdict, capped.reason]).toEqual(['unknown', 'memory']);
    expect(capped.stats.statesStored).toBeLessThan(whole.stats.statesStored);
    for (const p of capped.detail.perShard) expect(p.memoryBytes).toBeLessThanOrEqual(cap / 2);
    const budget = solveLayeredSharded(module, deal, { ...LIMITS, maxStates: 20_000 }, { memoryLimitBytes: GiB, shards: 3 });
    expect([budget.verdict, budget.reason]).toEqual(['unknown', 'max_states']);
    expect(budget.stats.statesStored).toBeLessThanOrEqual(20_000 + 3);
  }, 120_000);

  it('decides with three engines what one engine of the same per-engine cap cannot', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 68, numbering: 'pysolfc' });
    const whole = engine.solve(deal, { limits: { ...LIMITS, layered: true } });
    expect(whole.verdict).toBe('unsolvable');
    // the largest cap (in steps of 1/2 MiB) at which one engine's layered pass runs out of memory
    // (the engine's static data and first blocks take about 6 MiB, so the step is found, not fixed)
    let per = 6 * 2 ** 20;
    while (engine.solve(deal, { limits: { ...LIMITS, layered: true }, memoryLimitBytes: per + 2 ** 19 }).verdict === 'unknown') per += 2 ** 19;
    const one = engine.solve(deal, { limits: { ...LIMITS, layered: true }, memoryLimitBytes: per });
    expect([one.verdict, one.reason]).toEqual(['unknown', 'memory']);
    const three = solveLayeredSharded(module, deal, LIMITS, { memoryLimitBytes: 3 * per, shards: 3 });
    expect(three.verdict).toBe('unsolvable');
    expect(three.stats.statesStored).toBe(whole.stats.statesStored);
    for (const p of three.detail.perShard) expect(p.memoryBytes).toBeLessThanOrEqual(per);
  }, 120_000);

  it('refuses rules without a layered pass and shard counts out of range', () => {
    const freecell = resolveDeal({ game: 'freecell', deal: 1, numbering: 'ms' });
    expect(() => solveLayeredSharded(module, freecell, LIMITS, { memoryLimitBytes: GiB, shards: 2 })).toThrow(/layered pass/);
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 5, numbering: 'pysolfc' });
    expect(() => solveLayeredSharded(module, deal, LIMITS, { memoryLimitBytes: GiB, shards: 17 })).toThrow(RangeError);
    expect(() => solveLayeredSharded(module, deal, LIMITS, { memoryLimitBytes: GiB, shards: 2, batch: 0 })).toThrow(RangeError);
  });
});
