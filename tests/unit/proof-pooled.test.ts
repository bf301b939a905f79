/**
 * Pooled-suit proofs (docs/proofs.md, "Pooled certificates"; docs/search.md
 * §9): the engine's pooled game agrees with the reference verdicts wherever
 * it decides, its certificates pass the independent checker
 * (client-sdk/core/proof/check-pooled.ts), tampered ones fail with their
 * code, and the solve's pooled pass answers `unsolvable` only with a pooled
 * proof, after a full search that did not decide.
 */
import { openCertificate as open, sealCertificate as seal } from '../helpers/certificates.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../client-sdk/core/engine/index.js';
import { certificateFromEngine, solveWithProof } from '../../client-sdk/core/proof/writer.js';
import { checkCertificate, type ProofCheckFail, type ProofCheckResult } from '../../client-sdk/core/proof/check.js';
import { KEY_BYTES } from '../../client-sdk/core/proof/format.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { POOLINGS_TO_TRY, poolRepresentatives } from '../../client-sdk/core/pools.js';
import { closePooled, encodePooledKey, forEachPooledMove, pooledFromLayout, readPools, type PooledPosition } from '../../client-sdk/core/proof/check-pooled.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import { REFERENCE_VERDICTS, ROOT } from '../helpers/paths.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create();
});

const GAMES = ['streets_and_alleys', 'beleaguered_castle', 'citadel'] as const;

function reference(game: string): Map<number, string> {
  const rows = readFileSync(join(REFERENCE_VERDICTS, `${game}.tsv`), 'utf8').trim().split('\n').slice(1);
  return new Map(rows.map((row) => row.split('\t')).map(([n, v]) => [Number(n), v]));
}

const deal = (game: string, n: number): Deal => resolveDeal({ game, deal: n, numbering: 'pysolfc' });

/** The pooled certificate of a pooled-unsolvable deal. */
function pooledCertificate(game: string, n: number, pools: readonly string[]): Uint8Array {
  const d = deal(game, n);
  const out = engine.solvePooled(d, pools, { limits: { maxStates: 200_000, timeoutMs: 60_000 } });
  expect(out.verdict).toBe('unsolvable');
  const cert = certificateFromEngine(engine, d, out.stats.statesStored, engine.fingerprint(), {
    certificate: true, maxPositions: 1_000_000, maxBytes: 2 ** 30, game, deal: { number: String(n), numbering: 'pysolfc' },
  }, pools);
  if (!cert.included) throw new Error('certificate not included');
  return cert.certificate;
}

function expectFail(result: ProofCheckResult, code: ProofCheckFail['code']): ProofCheckFail {
  expect(result.ok, JSON.stringify({ ...result, header: undefined })).toBe(false);
  const fail = result as ProofCheckFail;
  expect(fail.code, fail.reason).toBe(code);
  return fail;
}

describe('poolings', () => {
  it('names each suit once; every pooling tried is canonical', () => {
    expect(poolRepresentatives(['C', 'DH', 'S'])).toEqual([0, 1, 1, 3]);
    expect(poolRepresentatives(['CS', 'DH'])).toEqual([0, 1, 1, 0]);
    for (const pools of POOLINGS_TO_TRY) expect(() => poolRepresentatives(pools)).not.toThrow();
    expect(() => poolRepresentatives(['C', 'D', 'H', 'S'])).toThrow(RangeError);
    expect(() => poolRepresentatives(['DH', 'C', 'S'])).toThrow(RangeError);
    expect(() => poolRepresentatives(['CD', 'DH', 'S'])).toThrow(RangeError);
    expect(() => poolRepresentatives(['CD'])).toThrow(RangeError);
  });

  it('is refused under rules that look at suit', () => {
    expect(() => engine.solvePooled(resolveDeal({ game: 'freecell', deal: 1, numbering: 'ms' }), ['CD', 'HS'], { limits: { maxStates: 1000, timeoutMs: 1000 } })).toThrow(/tableau ignores suit/);
  });
});

describe('pooled verdicts against the reference (1..200, 20,000 positions a pooling)', () => {
  for (const game of GAMES) {
    it(`${game}: a pooled unsolvable is always a reference unsolvable`, () => {
      const ref = reference(game);
      let decided = 0;
      for (let n = 1; n <= 200; n++) {
        const d = deal(game, n);
        for (const pools of POOLINGS_TO_TRY) {
          const out = engine.solvePooled(d, pools, { limits: { maxStates: 20_000, timeoutMs: 60_000 } });
          if (out.verdict !== 'unsolvable') continue;
          // The worst bug: a pooled proof of a deal that has a solution.
          expect(ref.get(n), `${game} ${n} pools ${pools.join('+')}`).toBe('unsolvable');
          decided++;
          break;
        }
      }
      // the pass decides a good share of the reference's unsolvable deals
      expect(decided).toBeGreaterThan(10);
    }, 120_000);
  }

  it('the real game is unchanged by a pooled solve before it', () => {
    const d = deal('streets_and_alleys', 3);
    const before = engine.solve(d, { limits: { maxStates: 1_000_000, timeoutMs: 60_000 } });
    engine.solvePooled(d, ['CD', 'HS'], { limits: { maxStates: 1_000_000, timeoutMs: 60_000 } });
    const after = engine.solve(d, { limits: { maxStates: 1_000_000, timeoutMs: 60_000 } });
    expect(after.verdict).toBe(before.verdict);
    expect(after.stats.statesStored).toBe(before.stats.statesStored);
  });

  it('a coarser pooling of a pooled-unsolvable deal is unsolvable too, with no more positions (its game is a quotient of the finer one)', () => {
    const d = deal('streets_and_alleys', 5);
    for (const fine of [['CD', 'H', 'S'], ['C', 'D', 'HS']]) {
      const f = engine.solvePooled(d, fine, { limits: { maxStates: 1_000_000, timeoutMs: 60_000 } });
      const c = engine.solvePooled(d, ['CD', 'HS'], { limits: { maxStates: 1_000_000, timeoutMs: 60_000 } });
      expect(f.verdict).toBe('unsolvable');
      expect(c.verdict).toBe('unsolvable');
      expect(c.stats.statesStored).toBeLessThanOrEqual(f.stats.statesStored);
    }
  });
});

/** The pooled game's reachable set from the start, enumerated with the checker's own moves (check-pooled.ts), as hex keys. */
function pooledReachable(d: Deal, pools: readonly string[]): Set<string> {
  const { poolOf, size } = readPools(pools);
  const key = new Uint8Array(KEY_BYTES);
  const start = pooledFromLayout(d.layout, d.rules.foundationBase, poolOf);
  closePooled(start, size);
  encodePooledKey(start, key);
  const seen = new Set([Buffer.from(key).toString('hex')]);
  const queue: PooledPosition[] = [start];
  while (queue.length > 0) {
    forEachPooledMove(queue.pop()!, d.rules, poolOf, size, (next) => {
      encodePooledKey(next, key);
      const hex = Buffer.from(key).toString('hex');
      if (!seen.has(hex)) {
        seen.add(hex);
        queue.push(next);
      }
    });
  }
  return seen;
}

describe('the engine\'s pooled set is the whole pooled game', () => {
  it('equals the reachable set the checker\'s own moves enumerate, key for key', () => {
    for (const [game, n, pools] of [
      ['streets_and_alleys', 5, ['CD', 'HS']],
      ['streets_and_alleys', 5, ['C', 'D', 'HS']],
      ['streets_and_alleys', 1, ['C', 'DH', 'S']],
      ['beleaguered_castle', 1, ['CH', 'DS']],
    ] as const) {
      const d = deal(game, n);
      const out = engine.solvePooled(d, pools, { limits: { maxStates: 1_000_000, timeoutMs: 60_000 } });
      expect(out.verdict, `${game} ${n} ${pools.join('+')}`).toBe('unsolvable');
      const keys = engine.storedKeys(1_000_000)!;
      const stored = new Set<string>();
      for (let i = 0; i < keys.length; i += KEY_BYTES) stored.add(Buffer.from(keys.subarray(i, i + KEY_BYTES)).toString('hex'));
      const reachable = pooledReachable(d, pools);
      expect(stored.size, `${game} ${n} ${pools.join('+')}`).toBe(reachable.size);
      for (const k of reachable) if (!stored.has(k)) throw new Error(`${game} ${n} ${pools.join('+')}: the engine missed ${k}`);
    }
  }, 120_000);
});

describe('pooled certificates', () => {
  let certificate: Uint8Array;
  beforeAll(() => {
    certificate = pooledCertificate('streets_and_alleys', 1, ['CD', 'HS']);
  });

  it('pass the checker, which names the pools', () => {
    const result = checkCertificate(certificate);
    expect(result.ok, JSON.stringify({ ...result, header: undefined })).toBe(true);
    if (!result.ok) return;
    expect(result.header.pools).toEqual(['CD', 'HS']);
    expect(result.header.keyEncoding).toBe('pooled-6bit-le-v1');
    expect(result.movesChecked).toBeGreaterThan(result.positions);
  });

  it('of other poolings and games pass too', () => {
    for (const [game, n] of [['beleaguered_castle', 1], ['citadel', 1], ['streets_and_alleys', 3]] as const) {
      for (const pools of POOLINGS_TO_TRY) {
        const d = deal(game, n);
        const out = engine.solvePooled(d, pools, { limits: { maxStates: 100_000, timeoutMs: 60_000 } });
        if (out.verdict !== 'unsolvable') continue;
        const result = checkCertificate(pooledCertificate(game, n, pools));
        expect(result.ok, `${game} ${n} ${pools.join('+')}: ${JSON.stringify({ ...result, header: undefined })}`).toBe(true);
      }
    }
  });

  it('check-proof (the CLI) says the proof is by the pooled game, and exits 1 on a tampered one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pooled-proof-'));
    const run = (bytes: Uint8Array) => {
      const file = join(dir, 'p.proof.gz');
      writeFileSync(file, bytes);
      return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'cli', 'check-proof.ts'), file, '--threads', '1'], { encoding: 'utf8', cwd: ROOT });
    };
    const pass = run(certificate);
    expect(pass.status, pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/^PASS: streets_and_alleys deal 1 \(pysolfc\) is unsolvable .*\n {2}by its pooled game \(pools CD HS/);
    const { header, keys } = open(certificate);
    const fail = run(seal(header, keys.slice(1)));
    expect(fail.status).toBe(1);
  }, 60_000);

  it('missing a position fail as not_closed (or start_missing)', () => {
    const { header, keys } = open(certificate);
    for (const drop of [1, Math.floor(keys.length / 2), keys.length - 1]) {
      const result = checkCertificate(seal(header, keys.filter((_, i) => i !== drop)));
      expect(result.ok).toBe(false);
      expect(['not_closed', 'start_missing']).toContain((result as ProofCheckFail).code);
    }
  });

  it('read under other pools fail', () => {
    const { header, keys } = open(certificate);
    const result = checkCertificate(seal({ ...header, pools: ['C', 'D', 'HS'] }, keys));
    expect(result.ok).toBe(false);
    expect(['bad_position', 'not_closed', 'start_missing']).toContain((result as ProofCheckFail).code);
  });

  it('with an auto-move rule, unpooled keys, or rules that look at suit fail with their codes', () => {
    const { header, keys } = open(certificate);
    const withRule = header.reductions.map((r) => (r.name === 'safe_auto_moves' ? { ...r, rule: 'rank_other_within_2' as const } : r));
    expectFail(checkCertificate(seal({ ...header, reductions: withRule }, keys)), 'unsupported_reduction');
    expectFail(checkCertificate(seal({ ...header, keyEncoding: 'canonical-6bit-le-v1' }, keys)), 'bad_header');
    const { pools: _pools, ...unpooled } = header;
    expectFail(checkCertificate(seal({ ...unpooled, keyEncoding: 'pooled-6bit-le-v1' }, keys)), 'bad_header');
    expectFail(checkCertificate(seal({ ...header, rules: { ...header.rules, build: 'suit' } }, keys)), 'unsupported_reduction');
    expectFail(checkCertificate(seal({ ...header, reductions: header.reductions.filter((r) => r.name !== 'suit_pools') }, keys)), 'unsupported_reduction');
    expectFail(checkCertificate(seal({ ...header, pools: ['C', 'D', 'H', 'S'] }, keys)), 'bad_header');
  });

  it('with a key not in canonical column order fail as bad_position', () => {
    const { header, keys } = open(certificate);
    // the real-game key of the start is not a pooled key of the set: a key of
    // the set with two columns swapped (symbols reversed in order) is not canonical
    const key = keys[keys.length - 1];
    const symbols: number[] = [];
    for (let k = 0; k < 64; k++) {
      const bit = 6 * k;
      const v = (key[bit >> 3] | ((bit >> 3) + 1 < KEY_BYTES ? key[(bit >> 3) + 1] << 8 : 0)) >> (bit & 7);
      symbols.push(v & 63);
    }
    const columns: number[][] = [];
    let k = 0;
    for (let c = 0; c < header.rules.columns; c++) {
      const col: number[] = [];
      while (symbols[k] !== 0) col.push(symbols[k++]);
      k++;
      columns.push(col);
    }
    const rest = symbols.slice(k);
    const nonEmpty = columns.filter((col) => col.length > 0);
    expect(nonEmpty.length).toBeGreaterThan(1);
    const swapped = [nonEmpty[1], nonEmpty[0], ...nonEmpty.slice(2), ...columns.filter((col) => col.length === 0)];
    const out = new Uint8Array(KEY_BYTES);
    let bit = 0;
    for (const s of [...swapped.flatMap((col) => [...col, 0]), ...rest]) {
      const v = s << (bit & 7);
      out[bit >> 3] |= v & 0xff;
      if (v > 0xff && (bit >> 3) + 1 < KEY_BYTES) out[(bit >> 3) + 1] |= v >> 8;
      bit += 6;
      if (bit >= KEY_BYTES * 8) break;
    }
    const tampered = [...keys.slice(0, -1), out].sort((a, b) => Buffer.compare(a, b));
    expectFail(checkCertificate(seal(header, tampered)), 'bad_position');
  });
});

describe('the pooled pass of a solve', () => {
  it('answers unsolvable with a pooled proof when the full search is cut, and the certificate passes', () => {
    // S&A 5: the full search stores 68,411 positions, the ♣♦ + ♥♠ pooled game 13,478
    const d = deal('streets_and_alleys', 5);
    expect(engine.solve(d, { limits: { maxStates: 20_000, timeoutMs: 60_000 } }).verdict).toBe('unknown');
    const out = solveWithProof(engine, d, { maxStates: 20_000, timeoutMs: 60_000 }, {
      proof: { certificate: true, maxPositions: 1_000_000, maxBytes: 2 ** 30, game: 'streets_and_alleys', deal: { number: '5', numbering: 'pysolfc' } },
    });
    expect(out.verdict).toBe('unsolvable');
    expect(out.proof?.pools).toEqual(['CD', 'HS']);
    expect(out.proof?.reductions.map((r) => r.name)).toContain('suit_pools');
    expect(out.proof?.positions).toBe(out.stats.statesStored);
    const cert = out.proof?.certificate;
    if (!cert?.included) throw new Error('no certificate');
    const result = checkCertificate(cert.certificate);
    expect(result.ok, JSON.stringify({ ...result, header: undefined })).toBe(true);
  });

  it('never answers unsolvable on a reference-solvable deal, and stays off with poolings: []', () => {
    const ref = reference('streets_and_alleys');
    const solvable = [...ref].filter(([, v]) => v === 'solvable').map(([n]) => n).slice(0, 5);
    for (const n of solvable) {
      const out = solveWithProof(engine, deal('streets_and_alleys', n), { maxStates: 2_000, timeoutMs: 60_000 });
      expect(out.verdict, `deal ${n}`).not.toBe('unsolvable');
    }
    const off = solveWithProof(engine, deal('streets_and_alleys', 5), { maxStates: 20_000, timeoutMs: 60_000 }, { poolings: [] });
    expect(off.verdict).toBe('unknown');
  });

  it('is not run for rules that look at suit', () => {
    const out = solveWithProof(engine, resolveDeal({ game: 'bakers_game', deal: 1, numbering: 'ms' }), { maxStates: 10, timeoutMs: 60_000 });
    expect(out.verdict).toBe('unknown');
  });
});
