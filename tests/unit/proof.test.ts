/**
 * Unsolvability proofs end to end: the engine's explored set becomes a
 * certificate (client-sdk/core/proof/writer.ts), and the independent checker
 * (client-sdk/core/proof/check.ts, no engine code) must pass it; tampered
 * certificates must be rejected with their reason.
 *
 * Deals: MS FreeCell 11982 and small unsolvable deals of
 * tests/fixtures/data/verdicts/ (Seahaven Towers, Baker's Game, Beleaguered Castle,
 * plus one each of Seahaven Towers with 3 cells and Streets and Alleys).
 */
import { gzipSync } from 'node:zlib';
import { openCertificate as open, sealCertificate as seal } from '../helpers/certificates.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { buildCertificate, solveWithProof } from '../../client-sdk/core/proof/writer.js';
import {
  checkCertificate,
  checkCertificateParallel,
  fingerprintKeys,
  fnv1a64Reference,
  vouchedAutoMoveRule,
  type ProofCheckFail,
  type ProofCheckResult,
} from '../../client-sdk/core/proof/check.js';
import { autoMoveRuleFor, KEY_BYTES, reductionsFor, type CertificateHeader } from '../../client-sdk/core/proof/format.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { PRESETS, type Deal } from '../../client-sdk/core/rules.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { pathToFileURL } from 'node:url';
import { REFERENCE_DEALS } from '../helpers/paths.js';

const LIMITS = { maxStates: 5_000_000, timeoutMs: 60_000 };
const DATA = pathToFileURL(join(REFERENCE_DEALS, '..') + '/');

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

interface Certified {
  deal: Deal;
  outcome: SolveOutcome;
  certificate: Uint8Array;
}

/** Solves a request and returns the certificate of its unsolvable verdict. */
function certify(req: SolveRequest): Certified {
  const deal = resolveDeal(req);
  const outcome = solveWithProof(engine, deal, LIMITS, {
    proof: { certificate: true, maxPositions: 1_000_000, maxBytes: 100 * 2 ** 20, game: req.game, deal: req.deal !== undefined ? { number: String(req.deal), numbering: req.numbering ?? 'ms' } : null },
  });
  expect(outcome.verdict).toBe('unsolvable');
  const cert = outcome.proof?.certificate;
  if (!cert?.included) throw new Error(`no certificate: ${JSON.stringify(cert)}`);
  return { deal, outcome, certificate: cert.certificate };
}

function sortKeys(keys: Uint8Array[]): Uint8Array[] {
  return [...keys].sort((a, b) => Buffer.compare(a, b));
}

const hex = (key: Uint8Array) => Buffer.from(key).toString('hex');

function expectFail(result: ProofCheckResult, code: ProofCheckFail['code']): ProofCheckFail {
  expect(result.ok, JSON.stringify({ ...result, header: undefined })).toBe(false);
  const fail = result as ProofCheckFail;
  expect(fail.code, fail.reason).toBe(code);
  expect(fail.reason.length).toBeGreaterThan(10);
  return fail;
}

function unsolvableDeals(game: string): number[] {
  return readFileSync(new URL(`verdicts/${game}.tsv`, DATA), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((row) => row.split('\t'))
    .filter(([, v]) => v === 'unsolvable')
    .map(([n]) => Number(n));
}

describe('the fingerprint and the declared reductions', () => {
  it("fingerprintKeys is the sum mod 2^64 of FNV-1a-64 (BigInt reference), and equals the engine's fingerprint of its set", () => {
    const deal = resolveDeal({ game: 'seahaven_towers', deal: 107, numbering: 'pysolfc' });
    expect(engine.solve(deal, { limits: LIMITS }).verdict).toBe('unsolvable');
    const keys = engine.storedKeys(1_000_000)!;
    let sum = 0n;
    for (let i = 0; i < keys.length; i += KEY_BYTES) sum = (sum + fnv1a64Reference(keys.subarray(i, i + KEY_BYTES))) & ((1n << 64n) - 1n);
    expect(fingerprintKeys(keys)).toBe(sum.toString(16).padStart(16, '0'));
    expect(fingerprintKeys(keys)).toBe(engine.fingerprint());
    expect(fnv1a64Reference(new TextEncoder().encode('a'))).toBe(0xaf63dc4c8601ec8cn); // FNV-1a 64 test vector
  });

  it('the checker vouches for the auto-move rule the engine declares, for every preset', () => {
    for (const preset of PRESETS) {
      expect([preset.id, vouchedAutoMoveRule(preset.rules)]).toEqual([preset.id, autoMoveRuleFor(preset.rules)]);
      expect(reductionsFor(preset.rules).map((r) => r.name)).toEqual(['safe_auto_moves', 'column_order', 'free_cell_order']);
    }
  });
});

describe('certificates of unsolvable deals pass the independent checker', () => {
  it('MS FreeCell 11982: 61,643 positions, every legal move closed, in one thread and in two', async () => {
    const { outcome, certificate } = certify({ game: 'freecell', deal: 11982, numbering: 'ms' });
    const one = checkCertificate(certificate);
    expect(one, JSON.stringify({ ...one, header: undefined })).toMatchObject({ ok: true, positions: outcome.stats.statesStored });
    if (!one.ok) return;
    expect(one.positions).toBe(61_643);
    expect(one.header.fingerprint).toBe(outcome.proof!.fingerprint);
    expect(one.header.deal).toEqual({ number: '11982', numbering: 'ms' });
    expect(one.movesChecked).toBeGreaterThan(one.positions);
    const two = await checkCertificateParallel(certificate, { threads: 2, minPositionsPerThread: 1 });
    expect(two).toMatchObject({ threads: 2 });
    // movesTried differs: each thread asks checkMove its own (card, top card) questions once
    expect(two).toMatchObject({ ok: true, positions: one.positions, movesChecked: one.movesChecked });
  }, 180_000); // 16 s here at a load of 9 on 2 cores, a quarter of the default 60 s

  // Small sets (up to ~1,600 positions) so the whole file stays fast;
  // docs/proofs.md ("Sizes and times") gives the sizes and times of larger ones.
  const DEALS: [string, number[]][] = [
    ['seahaven_towers', [21, 70, 100, 107, 197]],
    ['bakers_game', [22, 26, 68]],
    ['beleaguered_castle', [1, 3, 18, 57, 103]],
    ['seahaven_towers_3cells', [1]],
    ['streets_and_alleys', [1]],
  ];
  for (const [game, deals] of DEALS) {
    it.each(deals)(`${game} %i`, (n) => {
      expect(unsolvableDeals(game)).toContain(n);
      const { outcome, certificate } = certify({ game, deal: n, numbering: 'pysolfc' });
      const result = checkCertificate(certificate);
      expect(result, JSON.stringify({ ...result, header: undefined })).toMatchObject({ ok: true, positions: outcome.stats.statesStored });
    });
  }

  // Other rule sets: wrapping ranks with a foundation base other than the Ace
  // (Penguin, one cell), up-or-down building (Fortress), kings-only columns
  // with cells filled by the deal (Forecell), wrapping in-suit (Baker's Game with wrap).
  it.each([
    { game: 'penguin', deal: 1, rules: { freeCells: 1 } },
    { game: 'penguin', deal: 2, rules: { freeCells: 1 } },
    { game: 'fortress', deal: 4 },
    { game: 'forecell', deal: 9 },
    { game: 'bakers_game', deal: 22, rules: { wrap: true } },
  ])('$game $deal $rules', (req) => {
    const { outcome, certificate } = certify({ ...req, numbering: 'pysolfc' });
    const result = checkCertificate(certificate);
    expect(result, JSON.stringify({ ...result, header: undefined })).toMatchObject({ ok: true, positions: outcome.stats.statesStored });
  });

  it('skipping the candidates checkMove is sure to refuse changes nothing: same legal moves as the exhaustive check', () => {
    for (const [game, n] of [
      ['seahaven_towers', 107],
      ['bakers_game', 22],
      ['beleaguered_castle', 57],
      ['streets_and_alleys', 1],
    ] as const) {
      const { certificate } = certify({ game, deal: n, numbering: 'pysolfc' });
      const fast = checkCertificate(certificate);
      const exhaustive = checkCertificate(certificate, { exhaustive: true });
      expect(fast.ok && exhaustive.ok).toBe(true);
      if (!fast.ok || !exhaustive.ok) return;
      expect([game, fast.movesChecked]).toEqual([game, exhaustive.movesChecked]);
      expect(fast.movesTried).toBeLessThan(exhaustive.movesTried);
    }
  });
});

describe('tampered certificates are rejected with the reason', () => {
  let base: Certified;
  beforeAll(() => {
    base = certify({ game: 'seahaven_towers', deal: 107, numbering: 'pysolfc' });
  });

  it("the checker's own encoding of the start equals the engine's first stored key", () => {
    const { header } = open(base.certificate);
    expect(engine.solve(base.deal, { limits: LIMITS }).verdict).toBe('unsolvable');
    expect(keysOfStart(header)).toBe(hex(engine.storedKeys(1_000_000)!.subarray(0, KEY_BYTES)));
  });

  it('a position removed (count and fingerprint fixed up): a legal move leads out of the set, named with its result', () => {
    const { header, keys } = open(base.certificate);
    const startKey = keysOfStart(header);
    const victim = keys.findIndex((k) => hex(k) !== startKey);
    const removed = keys[victim];
    const fail = expectFail(checkCertificate(seal(header, keys.filter((_, i) => i !== victim))), 'not_closed');
    expect(fail.resultKey).toBe(hex(removed));
    expect(fail.position).toMatch(/\n/);
    expect(fail.result).toMatch(/\n/);
    expect(fail.move).toMatchObject({ from: expect.any(String), to: expect.any(String), count: expect.any(Number) });
    expect(fail.reason).toMatch(/^position \d+: the legal move .* not in the set$/);
  });

  it('a position removed, header left alone: the count does not match', () => {
    const { header, keys } = open(base.certificate);
    expectFail(checkCertificate(seal(header, keys.slice(1), false)), 'bad_length');
  });

  it('the start position removed: start_missing', () => {
    const { header, keys } = open(base.certificate);
    const startKey = keysOfStart(header);
    const fail = expectFail(checkCertificate(seal(header, keys.filter((k) => hex(k) !== startKey))), 'start_missing');
    expect(fail.resultKey).toBe(startKey);
  });

  it('a won position added (count and fingerprint fixed up): won_position', () => {
    const { header, keys } = open(base.certificate);
    const won = new Uint8Array(KEY_BYTES); // every column and the cells empty: all 52 cards home
    const fail = expectFail(checkCertificate(seal(header, sortKeys([...keys, won]))), 'won_position');
    expect(fail.positionIndex).toBe(0);
  });

  it('a truncated file: not a complete gzip stream', () => {
    const fail = expectFail(checkCertificate(base.certificate.subarray(0, Math.floor(base.certificate.length / 2))), 'not_gzip');
    expect(fail.reason).toMatch(/truncated or corrupted/);
  });

  it('a flipped bit in the file: rejected (gzip check)', () => {
    const bad = new Uint8Array(base.certificate);
    bad[Math.floor(bad.length / 2)] ^= 0x10;
    expect(checkCertificate(bad).ok).toBe(false);
  });

  it('a flipped bit in a key, re-compressed: the fingerprint does not match; with the fingerprint fixed up the set fails', () => {
    const { header, keys } = open(base.certificate);
    const flipped = keys.map((k) => new Uint8Array(k));
    flipped[10][KEY_BYTES - 1] ^= 0x04; // the key's last byte: its place in the order stays
    expectFail(checkCertificate(seal(header, flipped, false)), 'fingerprint_mismatch');
    const resealed = checkCertificate(seal(header, sortKeys(flipped)));
    expect(resealed.ok).toBe(false);
    expect(['bad_position', 'not_closed', 'start_missing', 'duplicate_position']).toContain((resealed as ProofCheckFail).code);
  });

  it('keys out of order, or repeated: not_sorted, duplicate_position', () => {
    const { header, keys } = open(base.certificate);
    expectFail(checkCertificate(seal(header, [keys[1], keys[0], ...keys.slice(2)])), 'not_sorted');
    expectFail(checkCertificate(seal(header, [keys[0], ...keys])), 'duplicate_position');
  });

  it('a key not in canonical form (two columns swapped): bad_position', () => {
    const { header, keys } = open(base.certificate);
    // Re-encode one position with its first two columns swapped, by hand on the symbol stream.
    const sym = (k: Uint8Array, i: number) => Number((BigInt(`0x${Buffer.from(k).reverse().toString('hex')}`) >> BigInt(6 * i)) & 63n);
    const key = keys[5];
    const symbols = Array.from({ length: 64 }, (_, i) => sym(key, i));
    const first = symbols.indexOf(0);
    const second = symbols.indexOf(0, first + 1);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first + 1);
    const swapped = [...symbols.slice(first + 1, second + 1), ...symbols.slice(0, first + 1), ...symbols.slice(second + 1)];
    let v = 0n;
    for (let i = 63; i >= 0; i--) v = (v << 6n) | BigInt(swapped[i]);
    const out = Buffer.from(v.toString(16).padStart(96, '0'), 'hex').reverse();
    expectFail(checkCertificate(seal(header, sortKeys([...keys.filter((_, i) => i !== 5), new Uint8Array(out)]))), 'bad_position');
  });

  it('a reduction the checker cannot vouch for: unsupported_reduction', () => {
    const { header, keys } = open(base.certificate);
    const wrongRule = { ...header, reductions: header.reductions.map((r) => (r.rule ? { ...r, rule: 'alternate_color_horne' as const } : r)) };
    expect(expectFail(checkCertificate(seal(wrongRule, keys)), 'unsupported_reduction').reason).toMatch(/vouches only for suit_always/);
    const extra = { ...header, reductions: [...header.reductions, { name: 'suit_symmetry' }] };
    expectFail(checkCertificate(seal(extra, keys)), 'unsupported_reduction');
  });

  it('a header naming another deal, or a game that cannot deal it: deal_mismatch, with the deal it names', () => {
    const { header, keys } = open(base.certificate);
    const other = expectFail(checkCertificate(seal({ ...header, deal: { number: '108', numbering: 'pysolfc' } }, keys)), 'deal_mismatch');
    expect(other.reason).toMatch(/seahaven_towers deal 108 \(pysolfc\).*not that deal/);
    expect(other.result).toMatch(/\n/);
    expectFail(checkCertificate(seal({ ...header, game: 'bakers_game' }, keys)), 'deal_mismatch');
    expectFail(checkCertificate(seal({ ...header, game: 'klondike' }, keys)), 'deal_mismatch');
    // without a deal the header claims only the position itself
    expect(checkCertificate(seal({ ...header, deal: null }, keys))).toMatchObject({ ok: true, rulesChanged: [] });
  });

  it('a pass lists the rules that differ from the game, and only those', () => {
    expect(checkCertificate(base.certificate)).toMatchObject({ ok: true, rulesChanged: [] });
    // MS FreeCell 1 is solvable, but not without free cells
    const changed = certify({ game: 'freecell', deal: 1, rules: { freeCells: 0 } });
    expect(checkCertificate(changed.certificate)).toMatchObject({ ok: true, rulesChanged: ['freeCells 0 instead of 4'] });
  });

  it('check-proof (the CLI) names what was proven, and exits 1 on a header that names another deal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'check-proof-'));
    const run = (certificate: Uint8Array) => {
      const file = join(dir, 'c.gz');
      writeFileSync(file, certificate);
      const cli = new URL('../../server/cli/check-proof.ts', import.meta.url).pathname;
      return spawnSync(process.execPath, ['--import', 'tsx', cli, file, '--threads', '1'], { encoding: 'utf8' });
    };
    const changed = certify({ game: 'freecell', deal: 1, rules: { freeCells: 0 } });
    const pass = run(changed.certificate);
    expect(pass.status).toBe(0);
    expect(pass.stdout).toMatch(/^PASS: freecell deal 1 \(ms\), with freeCells 0 instead of 4, is unsolvable .*\n {2}1 position, none won/);
    const { header, keys } = open(base.certificate);
    const fail = run(seal({ ...header, game: 'bakers_game' }, keys));
    expect(fail.status).toBe(1);
    expect(fail.stdout).toMatch(/^FAIL \(deal_mismatch\): the header names bakers_game deal 107 \(pysolfc\)[^]*The deal the header names:/);
  });

  it('solve --proof refuses, before searching, a path the certificate cannot be written to (exit 2)', () => {
    const cli = new URL('../../server/cli/solve.ts', import.meta.url).pathname;
    for (const [path, why] of [
      [tmpdir(), /is a directory/],
      [join(tmpdir(), 'no-such-dir-for-proofs', 'c.gz'), /cannot be written \(ENOENT\)/],
      ['-', /not to standard output/],
    ] as const) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', cli, '--game', 'freecell', '--deal', '11982', '--proof', path], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(why);
      expect(run.stdout).toBe('');
    }
  });

  it('a header that is not a v1 header: bad_header', () => {
    const { header, keys } = open(base.certificate);
    expectFail(checkCertificate(seal({ ...header, version: 2 } as unknown as CertificateHeader, keys)), 'bad_header');
    expectFail(checkCertificate(gzipSync(Buffer.from('no header line'))), 'bad_header');
  });

  it('a header version no checker reads names the versions read (1 and 2); a v2 header names the layered checker', () => {
    const { header, keys } = open(base.certificate);
    const v3 = expectFail(checkCertificate(seal({ ...header, version: 3 } as unknown as CertificateHeader, keys)), 'bad_header');
    expect(v3.reason).toMatch(/version: 3 is not a certificate version this checker reads \(it reads versions 1 and 2/);
    const v2 = expectFail(checkCertificate(seal({ ...header, version: 2 } as unknown as CertificateHeader, keys)), 'bad_header');
    expect(v2.reason).toMatch(/version: 2 is checked by checkLayeredCertificate/);
  });

  it('a header line ended by \\r\\n (or holding any carriage return) is refused: a certificate\'s lines end with \\n alone', () => {
    const { header, keys } = open(base.certificate);
    const body = Buffer.concat(keys);
    const withLine = (line: string) => gzipSync(Buffer.concat([Buffer.from(line), body]));
    const crlf = expectFail(checkCertificate(withLine(`${JSON.stringify(header)}\r\n`)), 'bad_header');
    expect(crlf.reason).toMatch(/carriage return .*\\r\\n line end/);
    expectFail(checkCertificate(withLine(`${JSON.stringify(header).replace(',', ',\r')}\n`)), 'bad_header');
    // the same header with \n alone passes
    expect(checkCertificate(withLine(`${JSON.stringify(header)}\n`)).ok).toBe(true);
  });

  it('the parallel check reports the same first counterexample as the one-thread check', async () => {
    const { header, keys } = open(base.certificate);
    const startKey = keysOfStart(header);
    const tampered = seal(header, keys.filter((k, i) => i % 7 !== 3 || hex(k) === startKey));
    const one = expectFail(checkCertificate(tampered), 'not_closed');
    const two = expectFail(await checkCertificateParallel(tampered, { threads: 2, minPositionsPerThread: 1 }), 'not_closed');
    expect({ ...two, elapsedMs: 0 }).toEqual({ ...one, elapsedMs: 0 });
  });
});

/**
 * Hex key of a certificate's start position after auto-moves, as the checker
 * computes it: from the same header over a set that lacks it.
 */
function keysOfStart(header: CertificateHeader): string {
  const probe = checkCertificate(seal(header, [oneCardKey()]));
  return expectFail(probe, 'start_missing').resultKey!;
}

/** A valid key that is not a start: every card home but the King of Spades, in column 0. */
function oneCardKey(): Uint8Array {
  const key = new Uint8Array(KEY_BYTES);
  key[0] = 13 * 4 + 3; // symbol 0 = KS, symbol 1 = 0 (end of column), the rest 0
  return key;
}

describe('rules under which sending every fitting card home is unsound', () => {
  // suit_up_or_down with unlimited sequence moves: 6H-7H can be parked on 5H in
  // one move, which frees 8H. Sending 5H home at once (the suit_always rule)
  // leaves 6H under 7H for good; the solution below replays under
  // checkSolution. The engine applies no auto-moves under these rules and
  // solves the position; the checker vouches only for no auto-moves there.
  const columns = [['5H'], ['8H', '6H', '7H'], ['KH', 'QH', 'JH', 'TH', '9H'], [], [], [], [], [], [], []];
  const req: SolveRequest = {
    game: 'fortress',
    rules: { sequenceMove: 'unlimited', emptyColumn: 'none' },
    layout: { columns, foundations: { C: 13, D: 13, S: 13, H: 4 } },
  };

  it('the position has a solution the independent checker accepts', () => {
    const deal = resolveDeal(req);
    const col = (from: number, to: number, count: number, card: string) => ({ from: 'column' as const, fromIndex: from, to: 'column' as const, toIndex: to, count, card, auto: false });
    const home = (from: number, card: string) => ({ from: 'column' as const, fromIndex: from, to: 'foundation' as const, toIndex: 2, count: 1, card, auto: false });
    const moves = [col(1, 0, 2, '6H'), col(0, 1, 1, '7H'), col(0, 1, 1, '6H'), home(0, '5H'), home(1, '6H'), home(1, '7H'), home(1, '8H'), ...['9H', 'TH', 'JH', 'QH', 'KH'].map((c) => home(2, c))];
    expect(checkSolution(deal.rules, deal.layout, moves)).toMatchObject({ ok: true });
  });

  it('so the engine and the checker both use no auto-moves there, and the engine solves the position', () => {
    const deal = resolveDeal(req);
    expect(vouchedAutoMoveRule(deal.rules)).toBe('none');
    expect(autoMoveRuleFor(deal.rules)).toBe('none');
    const outcome = engine.solve(deal, { limits: LIMITS });
    expect(outcome.verdict).toBe('solved');
    expect(outcome.moves.some((m) => m.auto)).toBe(false);
    expect(checkSolution(deal.rules, deal.layout, outcome.moves)).toMatchObject({ ok: true });
  });
});

describe('a verdict is never stronger than its search', () => {
  it('every state budget short of the whole space answers unknown; the whole space gives unsolvable with a passing certificate', () => {
    for (const [game, n] of [
      ['seahaven_towers', 107],
      ['beleaguered_castle', 3],
    ] as const) {
      const deal = resolveDeal({ game, deal: n, numbering: 'pysolfc' });
      const full = solveWithProof(engine, deal, LIMITS);
      expect(full.verdict).toBe('unsolvable');
      const total = full.stats.statesStored;
      for (let maxStates = 1; maxStates < total; maxStates++) {
        // the full search alone (poolings: []); the pooled pass may prove a Castle deal within a smaller budget, see below
        const cut = solveWithProof(engine, deal, { maxStates, timeoutMs: 60_000 }, { proof: { certificate: true, maxPositions: 1e6, maxBytes: 1e9 }, poolings: [] });
        if (cut.verdict !== 'unknown' || cut.reason !== 'max_states' || cut.proof !== undefined) {
          throw new Error(`${game} ${n} with maxStates ${maxStates} of ${total}: ${cut.verdict} ${cut.reason ?? ''} ${cut.proof ? 'with a proof' : ''}`);
        }
        // with the pooled pass (tests/unit/proof-pooled.test.ts), a cut full search answers unknown, or unsolvable by a complete pooled search within the budget
        const pooled = solveWithProof(engine, deal, { maxStates, timeoutMs: 60_000 });
        if (pooled.verdict === 'unsolvable') {
          expect(pooled.proof?.pools, `${game} ${n} at ${maxStates}`).toBeDefined();
          expect(pooled.proof!.positions).toBeLessThanOrEqual(maxStates);
        } else if (pooled.verdict !== 'unknown' || pooled.proof !== undefined) {
          throw new Error(`${game} ${n} with maxStates ${maxStates} of ${total}, pooled pass: ${pooled.verdict}`);
        }
      }
      expect(checkCertificate(certify({ game, deal: n, numbering: 'pysolfc' }).certificate).ok).toBe(true);
    }
  });

  it('a deadline or a cancel answers unknown without a proof, even when a certificate was asked for', () => {
    const deal = resolveDeal({ game: 'freecell', deal: 11982, numbering: 'ms' });
    const proof = { certificate: true, maxPositions: 1e6, maxBytes: 1e9 };
    const late = solveWithProof(engine, deal, { maxStates: 5_000_000, timeoutMs: 0 }, { proof });
    expect(late).toMatchObject({ verdict: 'unknown', reason: 'timeout' });
    expect(late.proof).toBeUndefined();
    const stop = new Int32Array(new SharedArrayBuffer(4));
    stop[0] = 1;
    const cancelled = solveWithProof(engine, deal, LIMITS, { stop, proof });
    expect(cancelled).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    expect(cancelled.proof).toBeUndefined();
  });

  it('a solved deal carries no proof', () => {
    const outcome = solveWithProof(engine, resolveDeal({ game: 'freecell', deal: 1, numbering: 'ms' }), LIMITS, { proof: { certificate: true, maxPositions: 1e6, maxBytes: 1e9 } });
    expect(outcome.verdict).toBe('solved');
    expect(outcome.proof).toBeUndefined();
  });
});
