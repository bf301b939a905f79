/**
 * The lazy phase's filter of stored positions by hash (assembly/seen.ts,
 * lazy.ts `lazyLoop`/`verifySkipped`): a pending move whose result's hash
 * is in the filter is dropped without the key comparison, and checked by its
 * key before a search may end complete (or played by the hand-over).
 *
 * - With the filter (by default under alternate-colour building; the test
 *   hook `setLazyFilter(2)` turns it on in every game) the search is the same as without it
 *   (test hook `setSeenHashMask(0)`): the same verdicts, moves and counts,
 *   while moves are in fact dropped.
 * - With the hash cut to a few bits (`setSeenHashMask`), most filter hits are
 *   collisions, positions the table does not hold: every unsolvable deal must
 *   still store its whole reachable set (the same count and fingerprint as
 *   with the full hash), whether its lazy phase ends dry (the check of the
 *   dropped moves) or hands over (which plays them), and every solution must
 *   still pass the checker (Engine.solve replays it).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { createTuningEngine, tuningHooks, type TuningHooks } from '../helpers/tuning-engine.js';

const LIMITS = { maxStates: 5_000_000, timeoutMs: 120_000 };
const ALL_BITS = (1n << 64n) - 1n;

let engine: Engine;
let hooks: TuningHooks;
beforeAll(async () => {
  engine = await createTuningEngine();
  hooks = tuningHooks(engine);
});
afterEach(() => {
  hooks.setSeenHashMask(ALL_BITS);
  hooks.setLazyFilter(1);
});

function deal(game: string, n: number): Deal {
  return resolveDeal({ game, deal: n, ...(game === 'freecell' ? { numbering: 'ms' } : {}) } as Parameters<typeof resolveDeal>[0]);
}

/** Solves with the filter's hash cut to `mask` (0: no filter), in every game (`setLazyFilter(2)`: by default only the FreeCell family uses it). */
function solveWith(mask: bigint, d: Deal): { outcome: SolveOutcome; skipped: number; fingerprint: string | null } {
  hooks.setLazyFilter(2);
  hooks.setSeenHashMask(mask);
  const outcome = engine.solve(d, { limits: LIMITS });
  return { outcome, skipped: hooks.pendingMovesSkipped() >>> 0, fingerprint: outcome.verdict === 'unsolvable' ? engine.fingerprint() : null };
}

const facts = (o: SolveOutcome) => [o.verdict, o.moves.length, o.stats.statesExpanded, o.stats.statesStored];

describe('the lazy filter of stored positions', () => {
  it('leaves the search as it is without the filter, while it drops moves', () => {
    let skipped = 0;
    for (const [game, from, to] of [['freecell', 1, 60], ['seahaven_towers', 1, 6], ['bakers_game', 1, 10], ['eight_off', 1, 10]] as const) {
      for (let n = from; n <= to; n++) {
        const d = deal(game, n);
        const on = solveWith(ALL_BITS, d);
        const off = solveWith(0n, d);
        expect(off.skipped).toBe(0);
        expect([game, n, ...facts(on.outcome)]).toEqual([game, n, ...facts(off.outcome)]);
        expect(on.outcome.moves).toEqual(off.outcome.moves);
        skipped += on.skipped;
      }
    }
    expect(skipped).toBeGreaterThan(1000);
  });

  it('is on by default in the FreeCell family only', () => {
    hooks.setLazyFilter(1);
    engine.solve(deal('freecell', 617), { limits: LIMITS });
    expect(hooks.pendingMovesSkipped()).toBeGreaterThan(0);
    engine.solve(deal('seahaven_towers', 1), { limits: LIMITS });
    expect(hooks.pendingMovesSkipped()).toBe(0);
  });

  it.each([
    // lazy phase to the end (the dropped moves checked when the lists run dry)
    ['freecell', 11982, 61_643],
    ['seahaven_towers', 21, 609],
    ['beleaguered_castle', 1, 511],
    // past the lazy quota (the hand-over plays the dropped moves)
    ['bakers_game', 14, 2_967],
  ] as const)('%s %i: with a 10-bit hash (collisions on most hits) still stores the whole reachable set', (game, n, positions) => {
    const d = deal(game, n);
    const full = solveWith(ALL_BITS, d);
    const cut = solveWith(0x3ffn, d);
    expect(full.outcome.verdict).toBe('unsolvable');
    expect(full.outcome.stats.statesStored).toBe(positions);
    expect(cut.outcome.verdict).toBe('unsolvable');
    expect(cut.outcome.stats.statesStored).toBe(positions);
    expect(cut.outcome.stats.statesExpanded).toBe(positions);
    expect(cut.fingerprint).toBe(full.fingerprint);
    expect(cut.skipped).toBeGreaterThan(full.skipped);
  });

  it('with a 10-bit hash still finds checked solutions, and the same verdicts', () => {
    let skipped = 0;
    for (const [game, from, to] of [['freecell', 1, 20], ['seahaven_towers', 1, 5], ['eight_off', 1, 5]] as const) {
      for (let n = from; n <= to; n++) {
        const d = deal(game, n);
        const full = solveWith(ALL_BITS, d);
        const cut = solveWith(0x3ffn, d);
        skipped += cut.skipped - full.skipped;
        // Engine.solve replays every solution through the independent checker (it throws otherwise)
        expect([game, n, cut.outcome.verdict]).toEqual([game, n, full.outcome.verdict]);
      }
    }
    expect(skipped).toBeGreaterThan(0);
  });
});
