/**
 * The guided pass of the no-cell Castle games (client-sdk/core/guided.ts,
 * Engine.beamFind, assembly/beam.ts beamFindBegin; docs/search.md §10):
 * beams from the start with no solution known. It finds solutions the full
 * search under a tight state budget does not reach, each replayed here by
 * the checker again, and it never answers `unsolvable`: on unsolvable deals
 * it finds nothing and the verdict stays the complete searches'.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { solvePooledPass, solveWithProof } from '../../client-sdk/core/proof/writer.js';
import { GUIDED_BEAMS, guidedApplies, guidedPass } from '../../client-sdk/core/guided.js';
import type { Deal } from '../../client-sdk/core/rules.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

const sa = (n: number): Deal => resolveDeal({ game: 'streets_and_alleys', deal: n } as Parameters<typeof resolveDeal>[0]);
/**
 * Streets and Alleys 226 is solvable, but the full search needs 87.8 million
 * positions to find it (docs/benchmarks.md); the guided pass's second beam
 * finds it after about 1.9 million expanded positions (5-6 CPU s).
 */
const HARD = 226;
const TIGHT = { maxStates: 2_000_000, timeoutMs: 120_000 };

describe('the guided pass', () => {
  it('applies to the no-cell Castle games that build by rank, not to FreeCell', () => {
    expect(guidedApplies(sa(1).rules)).toBe(true);
    expect(guidedApplies(resolveDeal({ game: 'beleaguered_castle', deal: 1 } as Parameters<typeof resolveDeal>[0]).rules)).toBe(true);
    expect(guidedApplies(resolveDeal({ game: 'freecell', deal: 1 } as Parameters<typeof resolveDeal>[0]).rules)).toBe(false);
  });

  it('solves Streets and Alleys 4 with its first beam; the checker replays the solution', () => {
    const deal = sa(4);
    const found = engine.beamFind(deal, { beams: GUIDED_BEAMS.slice(0, 1), timeoutMs: 60_000 });
    expect(found.verdict).toBe('solved');
    expect(found.beams).toHaveLength(1);
    expect(found.beams[0].found).toBe(true);
    expect(found.beams[0].mostHome).toBeGreaterThan(4);
    const check = checkSolution(deal.rules, deal.layout, found.moves);
    expect(check.ok).toBe(true);
  });

  it('in solveWithProof with limits.guided: Streets and Alleys 226 solved after the full search ran out of its 2,000,000 positions; without it unknown', () => {
    const deal = sa(HARD);
    const without = solveWithProof(engine, deal, TIGHT, { poolings: [] });
    expect(without).toMatchObject({ verdict: 'unknown', reason: 'max_states' });
    // the portfolio's second beam alone (the first one exhausts on this deal): within the same 2,000,000 positions
    const withPass = solveWithProof(engine, deal, { ...TIGHT, guided: true }, { poolings: [], guidedBeams: [GUIDED_BEAMS[1]] });
    expect(withPass.verdict).toBe('solved');
    expect(withPass.guided).toMatchObject({ beam: 1, width: GUIDED_BEAMS[1].width });
    expect(withPass.stats.statesExpanded).toBeGreaterThan(without.stats.statesExpanded);
    expect(checkSolution(deal.rules, deal.layout, withPass.moves).ok).toBe(true);
    // the solution is still in the engine's buffer: the shortening can follow
    const short = engine.shorten(deal, withPass, { optimize: { budgetMs: 200 } });
    expect(short.verdict).toBe('solved');
    expect(checkSolution(deal.rules, deal.layout, short.moves).ok).toBe(true);
  }, 240_000);

  it('first in the helper pass (solvePooledPass) with limits.guided: solved, and the hook that stops the other searches is called', () => {
    const deal = sa(HARD);
    let called = 0;
    const helped = solvePooledPass(engine, deal, { ...TIGHT, guided: true }, { poolings: [], guidedBeams: [GUIDED_BEAMS[1]], onGuidedSolution: () => called++ });
    expect(helped.verdict).toBe('solved');
    expect(called).toBe(1);
    expect(checkSolution(deal.rules, deal.layout, helped.moves).ok).toBe(true);
  }, 120_000);

  it('never answers unsolvable: on unsolvable deals (Streets and Alleys 1, 5) it finds nothing and the verdict stays the complete searches\'', () => {
    for (const n of [1, 5]) {
      const deal = sa(n);
      const found = engine.beamFind(deal, { beams: GUIDED_BEAMS.slice(0, 2), timeoutMs: 60_000 });
      expect(found.verdict).toBe('not_found');
      expect(found.moves).toEqual([]);
      expect(guidedPass(engine, deal, { timeoutMs: 60_000, maxExpanded: 10_000_000, beams: GUIDED_BEAMS.slice(0, 2) })).toBeUndefined();
      // a budget short of the whole reachable set: unknown, with or without the guided pass
      const capped = solveWithProof(engine, deal, { maxStates: 100, timeoutMs: 60_000, guided: true }, { poolings: [] });
      expect(capped.verdict).toBe('unknown');
      // the complete search decides
      const complete = solveWithProof(engine, deal, { maxStates: 1_000_000, timeoutMs: 60_000, guided: true }, { poolings: [] });
      expect(complete.verdict).toBe('unsolvable');
    }
  });

  it('stops at its deadline, when the stop flag is set and at the state budget, with nothing found', () => {
    const deal = sa(226);
    const wide = [{ width: 65536, weights: [1, 1, 0, 0, 1] as const, globalSeenLog2: 24 }];
    const t0 = performance.now();
    const late = engine.beamFind(deal, { beams: wide, timeoutMs: 300 });
    expect(late.verdict).toBe('not_found');
    expect(late.reason).toBe('timeout');
    expect(performance.now() - t0).toBeLessThan(5_000);
    const stop = new Int32Array(new SharedArrayBuffer(8));
    stop[0] = 1;
    const cancelled = engine.beamFind(deal, { beams: wide, timeoutMs: 60_000, stop });
    expect(cancelled.verdict).toBe('not_found');
    expect(cancelled.reason).toBe('cancelled');
    // the state budget caps the positions the beams expand (polled every 256)
    const capped = engine.beamFind(deal, { beams: [...wide, ...wide], timeoutMs: 60_000, maxExpanded: 5_000 });
    expect(capped.verdict).toBe('not_found');
    expect(capped.reason).toBe('max_states');
    expect(capped.beams).toHaveLength(1);
    expect(capped.stats.statesExpanded).toBeLessThanOrEqual(5_000 + 256);
  });
});
