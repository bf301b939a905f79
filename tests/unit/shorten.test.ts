/**
 * Short solutions (client-sdk/core/shorten.ts, assembly/beam.ts): the
 * shortening never returns a longer or unchecked solution, never changes a
 * verdict, and says when its budget or a cancel ended it. Every solution here
 * is replayed by the independent checker (verify.ts), and its length
 * recounted from the moves. How closely it keeps to a budget in wall-clock
 * time is an integration test (tests/integration/short-api.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cardToString } from '../../client-sdk/core/cards.js';
import { generateDeal } from '../../client-sdk/core/deals/index.js';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { findPreset, type Deal, type Numbering } from '../../client-sdk/core/rules.js';
import type { Move } from '../../client-sdk/core/moves.js';
import type { SolveLimits } from '../../client-sdk/core/solve-types.js';
import { countedMoves, peephole, shortenSolution, type BeamEngine } from '../../client-sdk/core/shorten.js';
import { resolveOptimize, DEFAULT_OPTIMIZE_MS, OPTIMIZE_MS_CAP } from '../../client-sdk/api/request.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { checkSolution, applyMove } from '../../client-sdk/core/verify.js';
import { createTuningEngine, tuningHooks, type TuningHooks } from '../helpers/tuning-engine.js';

const LIMITS: SolveLimits = { maxStates: 5_000_000, timeoutMs: 60_000 };

function dealOf(game: string, numbering: Numbering, n: number): Deal {
  const preset = findPreset(game);
  if (!preset) throw new Error(`no preset ${game}`);
  const dealt = generateDeal(game, numbering, n);
  return { rules: { ...preset.rules, ...(dealt.foundationBase !== undefined ? { foundationBase: dealt.foundationBase } : {}) }, layout: dealt.layout };
}

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

describe('solveShort', () => {
  it.each([
    ['freecell', 'ms', [1, 2, 617]],
    ['seahaven_towers', 'pysolfc', [1, 2]],
    ['bakers_game', 'ms', [1, 3]],
    ['eight_off', 'pysolfc', [1, 2]],
    ['beleaguered_castle', 'pysolfc', [1, 2, 3, 4, 5, 6]],
  ] as const)('%s: checked, never longer than the first solution, the same verdict', (game, numbering, deals) => {
    for (const n of deals) {
      const deal = dealOf(game, numbering, n);
      const first = engine.solve(deal, { limits: LIMITS });
      const short = engine.solveShort(deal, { limits: LIMITS, optimize: { budgetMs: 60 } });
      expect([n, short.verdict]).toEqual([n, first.verdict]);
      if (first.verdict !== 'solved') {
        expect(short.optimize).toBeUndefined();
        continue;
      }
      expect(checkSolution(deal.rules, deal.layout, short.moves).ok).toBe(true);
      const report = short.optimize!;
      expect(report.firstLength).toBe(countedMoves(first.moves));
      expect(report.length).toBe(countedMoves(short.moves));
      expect(report.length).toBeLessThanOrEqual(report.firstLength);
    }
  });

  it('shortens MS FreeCell solutions a good deal (deals 1..10: mean at least 8 moves shorter with 100 ms)', () => {
    let first = 0;
    let short = 0;
    for (let n = 1; n <= 10; n++) {
      // CPU time of this test process (vitest runs each file in its own
      // fork): the same work whatever else the machine runs
      const out = engine.solveShort(dealOf('freecell', 'ms', n), { limits: LIMITS, optimize: { budgetMs: 100, cpuClock: true } });
      first += out.optimize!.firstLength;
      short += out.optimize!.length;
    }
    expect((first - short) / 10).toBeGreaterThanOrEqual(8);
  });

  it('leaves unsolvable and unknown verdicts alone', () => {
    const unsolvable = engine.solveShort(dealOf('freecell', 'ms', 11982), { limits: LIMITS, optimize: { budgetMs: 50 } });
    expect(unsolvable.verdict).toBe('unsolvable');
    expect(unsolvable.optimize).toBeUndefined();
    const unknown = engine.solveShort(dealOf('freecell', 'ms', 1), { limits: { maxStates: 10, timeoutMs: 60_000 }, optimize: { budgetMs: 50 } });
    expect(unknown.verdict).toBe('unknown');
    expect(unknown.reason).toBe('max_states');
    expect(unknown.optimize).toBeUndefined();
  });

  it('says when its budget ran out', () => {
    const deal = dealOf('freecell', 'ms', 617);
    // deal 617 is shortened only by a wide beam: 30 ms end the session first
    const out = engine.solveShort(deal, { limits: LIMITS, optimize: { budgetMs: 30 } });
    expect(out.optimize!.budgetExhausted).toBe(true);
    expect(checkSolution(deal.rules, deal.layout, out.moves).ok).toBe(true);
    // a small widest beam ends before a large budget does
    const quick = engine.solveShort(deal, { limits: LIMITS, optimize: { budgetMs: 10_000, maxWidth: 64 } });
    expect(quick.optimize!.budgetExhausted).toBe(false);
    expect(quick.optimize!.beamWidth).toBe(64);
  });

  it('stops at once when cancelled', () => {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const deal = dealOf('freecell', 'ms', 2);
    const first = engine.solve(deal, { limits: LIMITS });
    Atomics.store(stop, 0, 1);
    const out = engine.shorten(deal, first, { optimize: { budgetMs: 10_000 }, stop });
    expect(out.verdict).toBe('solved');
    expect(out.optimize!.budgetExhausted).toBe(true);
    expect(out.optimize!.beamWidth).toBe(0); // not one beam ran to its end
    expect(checkSolution(deal.rules, deal.layout, out.moves).ok).toBe(true);
  });
});

describe('the beam\'s shortcuts (assembly/beam.ts self-check)', () => {
  // the self-check hooks are the tuning build's (assembly/tuning.ts)
  let tuning: Engine;
  let hooks: TuningHooks;
  beforeAll(async () => {
    tuning = await createTuningEngine();
    hooks = tuningHooks(tuning);
  });

  // Every build rule and sequence rule the beam meets: the fast move listing
  // (builds on the rank above, no wrap) and the generic one (Fortress up or
  // down, Penguin's wrapping ranks), cells and no cells.
  it.each([
    ['freecell', 'ms', [1, 617]],
    ['bakers_game', 'ms', [1]],
    ['seahaven_towers', 'pysolfc', [1]],
    ['eight_off', 'pysolfc', [2]],
    ['beleaguered_castle', 'pysolfc', [1, 2]],
    ['fortress', 'pysolfc', [1, 2]],
    ['penguin', 'pysolfc', [1, 2]],
    ['citadel', 'pysolfc', [1]],
  ] as const)('%s: incremental cost, goal test, hash, auto-moves and move listing equal their from-scratch values', (game, numbering, deals) => {
    let checks = 0;
    for (const n of deals) {
      const deal = dealOf(game, numbering, n);
      hooks.setBeamSelfCheck(1);
      try {
        const short = tuning.solveShort(deal, { limits: LIMITS, optimize: { budgetMs: 40, maxWidth: 256 } });
        if (short.verdict !== 'solved') continue;
        expect(checkSolution(deal.rules, deal.layout, short.moves).ok).toBe(true);
        expect([n, hooks.beamSelfCheckFailures()]).toEqual([n, 0]);
        checks += hooks.beamSelfChecks();
      } finally {
        hooks.setBeamSelfCheck(0);
      }
    }
    expect(checks).toBeGreaterThan(1000);
  });
});

describe('shortenSolution never returns an unchecked or longer solution', () => {
  const deal = dealOf('freecell', 'ms', 1);
  let first: Move[];
  beforeAll(() => {
    first = engine.solve(deal, { limits: LIMITS }).moves;
  });

  /** A beam engine that claims to have found `found`. */
  function fakeEngine(found: Move[] | null): BeamEngine {
    return { begin: () => countedMoves(first), beam: () => 0, pathMoves: () => 0, weights: () => {}, stopped: () => false, read: () => found, now: () => 0, deadline: 1 };
  }

  it('drops a shorter solution the checker rejects', () => {
    const broken = first.slice(0, 10); // legal moves that do not win
    const out = shortenSolution(deal.rules, deal.layout, first, fakeEngine(broken), { budgetMs: 10 });
    expect(checkSolution(deal.rules, deal.layout, out.moves).ok).toBe(true);
    expect(out.report.length).toBe(countedMoves(first));
  });

  /**
   * `first` with a detour: after the first move that puts a card into a free
   * cell, the card goes to another empty cell and back (legal, won, two moves longer).
   */
  function withDetour(): Move[] {
    let layout = deal.layout;
    for (let i = 0; i < first.length; i++) {
      const m = first[i];
      layout = applyMove(deal.rules, layout, m);
      if (m.to !== 'cell') continue;
      const other = layout.freeCells.findIndex((c) => c === null);
      if (other < 0) continue;
      const there: Move = { from: 'cell', fromIndex: m.toIndex, to: 'cell', toIndex: other, count: 1, card: m.card, auto: false };
      const back: Move = { ...there, fromIndex: other, toIndex: m.toIndex };
      return [...first.slice(0, i + 1), there, back, ...first.slice(i + 1)];
    }
    throw new Error('no free-cell move with another cell empty');
  }

  it('drops a checked solution that is longer', () => {
    const longer = withDetour();
    expect(checkSolution(deal.rules, deal.layout, longer).ok).toBe(true);
    expect(countedMoves(longer)).toBe(countedMoves(first) + 2);
    const out = shortenSolution(deal.rules, deal.layout, first, fakeEngine(longer), { budgetMs: 10 });
    expect(out.report.length).toBeLessThanOrEqual(countedMoves(first));
    expect(checkSolution(deal.rules, deal.layout, out.moves).ok).toBe(true);
  });

  it('the peephole pass drops a detour, and merges A→B, B→C into A→C', () => {
    const undo = peephole(deal.rules, deal.layout, withDetour());
    expect(checkSolution(deal.rules, deal.layout, undo).ok).toBe(true);
    expect(countedMoves(undo)).toBeLessThanOrEqual(countedMoves(first));

    // a single-card column-to-column move of the solution, played through a free cell it does not need
    let layout = deal.layout;
    let viaCell: Move[] | undefined;
    for (let i = 0; i < first.length && viaCell === undefined; i++) {
      const m = first[i];
      const cell = layout.freeCells.findIndex((c) => c === null);
      if (m.from === 'column' && m.to === 'column' && m.count === 1 && cell >= 0) {
        viaCell = [...first.slice(0, i), { ...m, to: 'cell', toIndex: cell }, { ...m, from: 'cell', fromIndex: cell }, ...first.slice(i + 1)];
      }
      layout = applyMove(deal.rules, layout, m);
    }
    expect(viaCell).toBeDefined();
    expect(checkSolution(deal.rules, deal.layout, viaCell!).ok).toBe(true);
    const merged = peephole(deal.rules, deal.layout, viaCell!);
    expect(checkSolution(deal.rules, deal.layout, merged).ok).toBe(true);
    expect(countedMoves(merged)).toBeLessThanOrEqual(countedMoves(viaCell!) - 1);
  });
});

describe('resolveOptimize', () => {
  it('reads optimize and limits.optimizeMs', () => {
    expect(resolveOptimize({})).toBeUndefined();
    expect(resolveOptimize({ optimize: 'none' })).toBeUndefined();
    expect(resolveOptimize({ optimize: 'length' })).toEqual({ budgetMs: DEFAULT_OPTIMIZE_MS });
    expect(resolveOptimize({ optimize: 'length', limits: { optimizeMs: 200 } })).toEqual({ budgetMs: 200 });
  });

  it.each([
    [{ limits: { optimizeMs: 100 } }],
    [{ optimize: 'none' as const, limits: { optimizeMs: 100 } }],
    [{ optimize: 'length' as const, limits: { optimizeMs: 0 } }],
    [{ optimize: 'length' as const, limits: { optimizeMs: 1.5 } }],
    [{ optimize: 'length' as const, limits: { optimizeMs: OPTIMIZE_MS_CAP + 1 } }],
  ])('refuses %j with bad_limits', (req) => {
    let caught: unknown;
    try {
      resolveOptimize(req);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SolverError);
    expect((caught as SolverError).code).toBe('bad_limits');
  });
});
