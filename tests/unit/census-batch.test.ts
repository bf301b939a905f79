/**
 * The census summary of a batch (server/batches/census.ts): partial
 * summaries merge exactly (any split of a set of deals, merged in any
 * order, gives the summary of the whole), the bucket edges are the
 * documented powers of two, the Redis form round-trips, and a sub-range's
 * summary keeps the exceptions only in `exceptions` mode.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addToSummary,
  bitLength,
  bucketRange,
  elapsedUs,
  emptySummary,
  mergeSummary,
  parseSummary,
  positionBucket,
  summariseRange,
  summaryCount,
  summaryFromHash,
  summaryIncrements,
  timeBucket,
  type CensusSummary,
} from '../../server/batches/census.js';
import { toWireDistributions, type ResultInput } from '../../server/batches/model.js';

const VERDICTS = ['solved', 'unsolvable', 'unknown', 'error'] as const;

/** A deal's result as a solve gives it: packed moves for a solved deal (8 bytes a move), stats of any size. */
const resultArb = (index: number) =>
  fc
    .record({
      verdict: fc.constantFrom(...VERDICTS),
      moves: fc.integer({ min: 0, max: 400 }),
      statesExpanded: fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 2 ** 40 })),
      elapsedMs: fc.oneof(fc.double({ min: 0, max: 5, noNaN: true }), fc.double({ min: 0, max: 600_000, noNaN: true })),
    })
    .map(
      (r): ResultInput => ({
        index,
        verdict: r.verdict,
        moves: [],
        packedMoves: new Uint8Array(r.verdict === 'solved' ? r.moves * 8 : 0),
        statesExpanded: r.statesExpanded,
        statesStored: r.statesExpanded,
        elapsedMs: r.elapsedMs,
      }),
    );

const resultsArb = fc.integer({ min: 0, max: 60 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => resultArb(i))));

function summaryOf(results: readonly ResultInput[]): CensusSummary {
  const s = emptySummary();
  for (const r of results) addToSummary(s, r);
  return s;
}

/** A summary with its histogram keys in one order, for equality. */
function canonical(s: CensusSummary) {
  const sorted = (h: Record<number, number>) => Object.fromEntries(Object.entries(h).sort((a, b) => Number(a[0]) - Number(b[0])));
  return { ...s, moves: sorted(s.moves), positions: sorted(s.positions), time: sorted(s.time) };
}

describe('census summary', () => {
  it('merges exactly: any split of the deals, merged in any order, gives the summary of them all', () => {
    fc.assert(
      fc.property(resultsArb, fc.array(fc.nat()), fc.nat(), (results, cuts, seed) => {
        const whole = summaryOf(results);
        // split at the cuts, summarise each part, merge the parts in a shuffled order
        const edges = [...new Set(cuts.map((c) => c % (results.length + 1)))].sort((a, b) => a - b);
        const parts: ResultInput[][] = [];
        let at = 0;
        for (const e of [...edges, results.length]) {
          parts.push(results.slice(at, e));
          at = e;
        }
        const order = parts.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 97) - ((b * 7919 + seed) % 97));
        const merged = order.reduce((acc, i) => mergeSummary(acc, summaryOf(parts[i])), emptySummary());
        expect(canonical(merged)).toEqual(canonical(whole));
        expect(summaryCount(merged)).toBe(results.length);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips through JSON and through the Redis hash increments', () => {
    fc.assert(
      fc.property(resultsArb, (results) => {
        const s = summaryOf(results);
        expect(canonical(parseSummary(JSON.stringify(s)))).toEqual(canonical(s));
        const inc = summaryIncrements(s);
        const hash: Record<string, string> = {};
        for (let i = 0; i < inc.length; i += 2) hash[String(inc[i])] = String(inc[i + 1]);
        expect(canonical(summaryFromHash(hash))).toEqual(canonical(s));
      }),
      { numRuns: 100 },
    );
  });

  it('buckets positions and time in powers of two, exactly at the edges', () => {
    expect([0, 1, 2, 3, 4, 7, 8, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 5].map(bitLength)).toEqual([0, 1, 2, 2, 3, 3, 4, 32, 33, 41]);
    for (let b = 1; b < 53; b++) {
      const { from, to } = bucketRange(b);
      expect(bitLength(from)).toBe(b);
      expect(bitLength(to - 1)).toBe(b);
      expect(bitLength(to)).toBe(b + 1);
    }
    expect(positionBucket(0)).toBe(0);
    expect(positionBucket(155)).toBe(8); // [128, 256)
    // time in whole microseconds: 0.2 ms = 200 µs is in [128, 256) µs
    expect(elapsedUs(0.2004)).toBe(200);
    expect(timeBucket(0.2)).toBe(8);
    expect(timeBucket(0.0004)).toBe(0);
  });

  it('counts every deal of a sub-range and keeps the exceptions only in exceptions mode', () => {
    const results: ResultInput[] = [
      { index: 0, verdict: 'solved', moves: [], packedMoves: new Uint8Array(94 * 8), statesExpanded: 155, statesStored: 155, elapsedMs: 0.2 },
      { index: 1, verdict: 'unsolvable', moves: [], statesExpanded: 61643, statesStored: 61643, elapsedMs: 229 },
      { index: 2, verdict: 'solved', moves: [], packedMoves: new Uint8Array(94 * 8), statesExpanded: 200, statesStored: 210, elapsedMs: 0.3 },
      { index: 3, verdict: 'error', moves: [], statesExpanded: 0, statesStored: 0, elapsedMs: 0, error: { code: 'worker_crashed', message: 'x' } },
    ];
    const census = summariseRange(results, 'exceptions');
    expect(census.kept.map((r) => r.index)).toEqual([1, 3]);
    expect(census.summary).toMatchObject({ solved: 2, unsolvable: 1, unknown: 0, errors: 1, sumMoves: 188, sumElapsedUs: 229_500, sumPositions: 61998 });
    expect(summariseRange(results, 'all').kept).toHaveLength(4);
    // the histograms are of the solved deals
    expect(toWireDistributions(census.summary)).toEqual({
      moves: [{ moves: 94, count: 2 }],
      positions: [{ from: 128, to: 256, count: 2 }],
      timeMs: [
        { from: 0.128, to: 0.256, count: 1 },
        { from: 0.256, to: 0.512, count: 1 },
      ],
    });
  });
});
