/**
 * Baker's Dozen, Good Measure, Fan, King Albert, Siegecraft and Stronghold
 * (the engine's 18 columns, 56-byte keys past 11 columns, King Albert's
 * reserve, emptied columns that are never filled) against the reference
 * verdicts (tests/fixtures/data/verdicts/, PySolFC 1..60, King Albert
 * 1..96: two complete searches of other code, fc-solve with 20 stacks and
 * the test oracle).
 *
 * CI runs every reference deal with a small budget (300,000 positions):
 * every decided answer must match the reference, every solution replays
 * under the independent checker, and a budget cut may only answer
 * `unknown`. The default budgets' figures on PySolFC 1..1000 are in
 * docs/rules.md. Then a certificate of an unsolvable deal of each game
 * passes the independent proof checker, with the key width of its rules.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { certificateFromEngine, solveWithProof } from '../../client-sdk/core/proof/writer.js';
import { checkCertificate } from '../../client-sdk/core/proof/check.js';
import { keyBytesFor } from '../../client-sdk/core/proof/format.js';
import { solveReferenceDeals } from '../helpers/reference-verdicts.js';

const BUDGET = { maxStates: 300_000, timeoutMs: 120_000 };

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

describe.each([
  // [game, decided at least this many of the reference deals within the small budget (of 60, King Albert 96)]
  ['bakers_dozen', 55],
  ['good_measure', 45],
  ['fan', 57],
  ['king_albert', 93],
  ['siegecraft', 58],
  ['stronghold', 60],
] as const)('%s, the reference deals', (game, leastDecided) => {
  it('never contradicts a reference verdict, and every solution replays', () => {
    const { decided, mismatches } = solveReferenceDeals(engine, game, BUDGET, (d, outcome) => {
      expect(engine.keyBytes).toBe(keyBytesFor(d.rules));
      // a reserve takes no card: no move of a King Albert solution goes to a cell
      if (outcome.verdict === 'solved' && d.rules.emptyCell === 'none') expect(outcome.moves.filter((m) => m.to === 'cell')).toEqual([]);
    });
    expect(mismatches).toEqual([]);
    expect(decided).toBeGreaterThanOrEqual(leastDecided);
  }, 240_000);
});

describe('certificates of the six games', () => {
  it.each([
    // [game, a small unsolvable deal, its key width]; Baker's Dozen has none among the reference deals, 64 is the first of 1..1000
    ['bakers_dozen', 64, 56],
    ['good_measure', 55, 48],
    ['fan', 5, 56],
    ['king_albert', 1, 48],
    ['siegecraft', 23, 48],
    ['stronghold', 18, 48],
  ] as const)('%s %i: unsolvable, and its certificate (%i-byte keys) passes the independent checker', (game, n, keyBytes) => {
    const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
    const outcome = solveWithProof(engine, deal, { maxStates: 2_000_000, timeoutMs: 120_000 }, {
      proof: { certificate: true, maxPositions: 2_000_000, maxBytes: 100 * 2 ** 20, game, deal: { number: String(n), numbering: 'pysolfc' } },
    });
    expect(outcome.verdict).toBe('unsolvable');
    const cert = outcome.proof?.certificate;
    if (!cert?.included) throw new Error(`no certificate: ${JSON.stringify(cert)}`);
    const result = checkCertificate(cert.certificate);
    expect(result, JSON.stringify({ ...result, header: undefined })).toMatchObject({ ok: true, positions: outcome.stats.statesStored });
    if (result.ok) expect([result.header.keyBytes, result.header.fingerprint]).toEqual([keyBytes, outcome.proof?.fingerprint]);
  }, 120_000);

  it('a pooled certificate of a game with a free cell (Stronghold 18, the pooled game of pools CH and DS) passes the checker', () => {
    const deal = resolveDeal({ game: 'stronghold', deal: 18, numbering: 'pysolfc' });
    const pools = ['CH', 'DS'];
    const pooled = engine.solvePooled(deal, pools, { limits: { maxStates: 100_000, timeoutMs: 120_000 } });
    expect(pooled.verdict).toBe('unsolvable');
    const request = { certificate: true, maxPositions: 100_000, maxBytes: 2 ** 20, game: 'stronghold', deal: { number: '18', numbering: 'pysolfc' as const } };
    const cert = certificateFromEngine(engine, deal, pooled.stats.statesStored, engine.fingerprint(), request, pools);
    if (!cert.included) throw new Error(`no certificate: ${JSON.stringify(cert)}`);
    const result = checkCertificate(cert.certificate);
    expect(result, JSON.stringify({ ...result, header: undefined })).toMatchObject({ ok: true, positions: pooled.stats.statesStored });
    if (result.ok) expect(result.header.pools).toEqual(pools);
  }, 120_000);
});
