/**
 * The compact layout of the no-cell Castle games (assembly/castle-key.ts:
 * 17- to 19-byte keys, 25- to 27-byte records, u32 slots, open stacks)
 * against the full key's layout (48-byte keys and 56-byte records up to 11 columns, 56-byte keys past them), in one engine, by the test hook
 * `setCompactLayoutAllowed`.
 *
 * The two layouts expand the same positions in the same order, so record i
 * of one is record i of the other: every stored position's compact key,
 * decoded and re-encoded as key.ts's canonical key (the export path of
 * certificates), must equal the key the full layout stored. That
 * checks decode(encode(p)) == p on every position of the search (reachable
 * positions, tens of thousands a deal), and that the compact key is
 * injective on them (a collision would merge two records, and the record
 * sequences would part).
 */
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { solveWithProof } from '../../client-sdk/core/proof/writer.js';
import { checkCertificate } from '../../client-sdk/core/proof/check.js';
import { keyBytesFor } from '../../client-sdk/core/proof/format.js';
import { applyMove } from '../../client-sdk/core/verify.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import { legalSingleCardMoves } from '../helpers/positions.js';
import { createTuningEngine, tuningHooks, type TuningHooks } from '../helpers/tuning-engine.js';

let engine: Engine;
let hooks: TuningHooks;
beforeAll(async () => {
  engine = await createTuningEngine();
  hooks = tuningHooks(engine);
});
afterAll(() => hooks.setCompactLayoutAllowed(1));

/** Solves `deal` in one layout; the stored keys (canonical, record order) and the outcome. */
function solveIn(compact: boolean, deal: Deal, maxStates: number, memoryLimitBytes?: number) {
  hooks.setCompactLayoutAllowed(compact ? 1 : 0);
  const outcome = engine.solve(deal, { limits: { maxStates, timeoutMs: 120_000 }, memoryLimitBytes });
  const used = hooks.compactLayoutInUse() === 1;
  const keys = engine.storedKeys(maxStates + 1);
  const fingerprint = engine.fingerprint();
  hooks.setCompactLayoutAllowed(1);
  return { outcome, used, keys, fingerprint };
}

/** Both layouts on `deal`: the same verdict, counts, keys record by record, and fingerprint. */
function expectSameSearch(deal: Deal, maxStates: number): number {
  const compact = solveIn(true, deal, maxStates);
  const wide = solveIn(false, deal, maxStates);
  expect(compact.used).toBe(true);
  expect(wide.used).toBe(false);
  expect(compact.outcome.verdict).toBe(wide.outcome.verdict);
  expect(compact.outcome.stats.statesStored).toBe(wide.outcome.stats.statesStored);
  expect(compact.outcome.stats.statesExpanded).toBe(wide.outcome.stats.statesExpanded);
  expect(compact.outcome.moves).toEqual(wide.outcome.moves);
  const a = compact.keys!;
  const b = wide.keys!;
  // canonical keys of the game's width (56 bytes past 11 columns: Baker's Dozen)
  const KEY_BYTES = keyBytesFor(deal.rules);
  expect(engine.keyBytes).toBe(KEY_BYTES);
  expect(a.length).toBe(compact.outcome.stats.statesStored * KEY_BYTES);
  // record by record (a mismatch names the first record that differs)
  let firstDiff = -1;
  for (let i = 0; i < a.length && firstDiff < 0; i += KEY_BYTES) {
    if (Buffer.compare(a.subarray(i, i + KEY_BYTES), b.subarray(i, i + KEY_BYTES)) !== 0) firstDiff = i / KEY_BYTES;
  }
  expect(firstDiff).toBe(-1);
  expect(compact.fingerprint).toBe(wide.fingerprint);
  // the compact records are pairwise distinct positions
  const sorted = Array.from({ length: a.length / KEY_BYTES }, (_, i) => a.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES)).sort(Buffer.compare);
  for (let i = 1; i < sorted.length; i++) expect(Buffer.compare(sorted[i - 1], sorted[i])).not.toBe(0);
  return compact.outcome.stats.statesStored;
}

/** Plays `count` random legal single-card moves (column to column or foundation) on a copy of `deal`, seeded. */
function randomWalk(deal: Deal, count: number, seed: number): Deal {
  let layout = deal.layout;
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
  for (let step = 0; step < count; step++) {
    const legal = legalSingleCardMoves(deal, layout);
    if (legal.length === 0) break;
    layout = applyMove(deal.rules, layout, legal[next() % legal.length]);
  }
  return { rules: deal.rules, layout };
}

describe('the compact layout of the no-cell Castle games', () => {
  it('is chosen for Streets and Alleys, Beleaguered Castle, Citadel, Good Measure and Baker\'s Dozen, and not for FreeCell, Fortress, Fan, Siegecraft or a pooled solve', () => {
    const used = (game: string, deal: number) => {
      engine.solve(resolveDeal({ game, deal, numbering: 'pysolfc' }), { limits: { maxStates: 1000, timeoutMs: 10_000 } });
      return hooks.compactLayoutInUse() === 1;
    };
    expect(used('streets_and_alleys', 1)).toBe(true);
    expect(used('beleaguered_castle', 1)).toBe(true);
    expect(used('citadel', 1)).toBe(true);
    // 30 and 39 bits of prefix lengths: 18- and 19-byte keys
    expect(used('good_measure', 1)).toBe(true);
    expect(used('bakers_dozen', 1)).toBe(true);
    expect(used('freecell', 1)).toBe(false);
    expect(used('fortress', 1)).toBe(false);
    expect(used('fan', 1)).toBe(false);
    expect(used('siegecraft', 1)).toBe(false);
    engine.solvePooled(resolveDeal({ game: 'streets_and_alleys', deal: 1, numbering: 'pysolfc' }), ['CD', 'H', 'S'], { limits: { maxStates: 1000, timeoutMs: 10_000 } });
    expect(hooks.compactLayoutInUse()).toBe(0);
  });

  it.each([
    ['streets_and_alleys', [1, 2, 3, 4, 5, 77], 50_000],
    ['beleaguered_castle', [1, 2, 3, 10, 954], 50_000],
    ['citadel', Array.from({ length: 40 }, (_, i) => i + 1), 2_000],
    ['good_measure', [1, 2, 4, 15, 40], 50_000],
    ['bakers_dozen', [1, 2, 12, 14, 64], 30_000],
  ] as const)('%s: every stored position round-trips to the full layout\'s key, record by record', (game, deals, least) => {
    let positions = 0;
    for (const n of deals) positions += expectSameSearch(resolveDeal({ game, deal: n, numbering: 'pysolfc' }), 60_000);
    expect(positions).toBeGreaterThan(least);
  }, 120_000);

  it('from random positions as the start (start columns that end in runs, emptied columns): the same searches', () => {
    let positions = 0;
    for (const [game, n, steps] of [['streets_and_alleys', 11, 25], ['streets_and_alleys', 12, 60], ['beleaguered_castle', 13, 40], ['citadel', 14, 10], ['streets_and_alleys', 77, 6], ['good_measure', 11, 30], ['bakers_dozen', 12, 30]] as const) {
      for (let seed = 1; seed <= 3; seed++) {
        const dealt = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
        const start = randomWalk(dealt, steps, seed * 7919 + n);
        // the walk played moves: the start is not the dealt layout
        expect(start.layout.columns).not.toEqual(dealt.layout.columns);
        positions += expectSameSearch(start, 20_000);
      }
    }
    expect(positions).toBeGreaterThan(20_000);
  }, 120_000);

  it('a Castle certificate written from compact records passes the independent checker', () => {
    for (const [game, n] of [['beleaguered_castle', 1], ['streets_and_alleys', 1]] as const) {
      hooks.setCompactLayoutAllowed(1);
      const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
      const outcome = solveWithProof(engine, deal, { maxStates: 2_000_000, timeoutMs: 120_000 }, {
        proof: { certificate: true, maxPositions: 2_000_000, maxBytes: 100 * 2 ** 20, game, deal: { number: String(n), numbering: 'pysolfc' } },
      });
      expect(outcome.verdict).toBe('unsolvable');
      expect(hooks.compactLayoutInUse()).toBe(1);
      const cert = outcome.proof?.certificate;
      if (!cert?.included) throw new Error(`no certificate: ${JSON.stringify(cert)}`);
      const result = checkCertificate(cert.certificate);
      expect(result, JSON.stringify({ ...result, header: undefined })).toMatchObject({ ok: true, positions: outcome.stats.statesStored });
    }
  }, 120_000);

  it('under the same memory cap the compact layout stores at least twice the positions (Streets and Alleys 77, 48 MiB)', () => {
    const deal = resolveDeal({ game: 'streets_and_alleys', deal: 77, numbering: 'pysolfc' });
    const cap = 48 * 2 ** 20;
    const compact = solveIn(true, deal, 100_000_000, cap);
    const wide = solveIn(false, deal, 100_000_000, cap);
    expect([compact.outcome.verdict, compact.outcome.verdict === 'unknown' && compact.outcome.reason]).toEqual(['unknown', 'memory']);
    expect([wide.outcome.verdict, wide.outcome.verdict === 'unknown' && wide.outcome.reason]).toEqual(['unknown', 'memory']);
    expect(compact.outcome.stats.memoryBytes).toBeLessThanOrEqual(cap);
    expect(compact.outcome.stats.statesStored).toBeGreaterThanOrEqual(2 * wide.outcome.stats.statesStored);
  }, 120_000);
});
