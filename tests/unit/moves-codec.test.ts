import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MOVE_SOURCES, MOVE_TARGETS, PACKED_MOVE_BYTES, packMoves, unpackMoves, type Move } from '../../client-sdk/core/moves.js';
import { cardToString, fullDeck } from '../../client-sdk/core/cards.js';
import { answerFor, forEachDealOfTask, outcomeOf, packDeals, unpackAnswers, unpackDeals, type SolveTask } from '../../server/worker-protocol.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal } from '../../client-sdk/core/rules.js';

const cards = fullDeck().map(cardToString);
const move: fc.Arbitrary<Move> = fc.record({
  from: fc.constantFrom(...MOVE_SOURCES),
  fromIndex: fc.integer({ min: 0, max: 9 }),
  to: fc.constantFrom(...MOVE_TARGETS),
  toIndex: fc.integer({ min: 0, max: 9 }),
  count: fc.integer({ min: 1, max: 52 }),
  card: fc.constantFrom(...cards),
  auto: fc.boolean(),
});

describe('packed moves (batch stores, worker answers)', () => {
  it('unpack(pack(moves)) gives the same moves, 8 bytes each', () => {
    fc.assert(
      fc.property(fc.array(move, { maxLength: 200 }), (moves) => {
        const bytes = packMoves(moves);
        expect(bytes.length).toBe(moves.length * PACKED_MOVE_BYTES);
        expect(unpackMoves(bytes)).toEqual(moves);
      }),
    );
  });

  it('a worker answer carries the moves packed and the pool gets the same outcome back', () => {
    const moves: Move[] = [
      { from: 'column', fromIndex: 3, to: 'cell', toIndex: 0, count: 1, card: 'KS', auto: false },
      { from: 'cell', fromIndex: 0, to: 'foundation', toIndex: 3, count: 1, card: 'AS', auto: true },
    ];
    const outcome = { verdict: 'solved' as const, moves, stats: { statesExpanded: 5, statesStored: 6, elapsedMs: 1, memoryBytes: 2 } };
    const answer = answerFor(outcome);
    if (!answer.ok) throw new Error('expected a successful answer');
    expect(answer.outcome.moves).toEqual([]);
    expect(answer.moves).toBeInstanceOf(Uint8Array);
    expect(outcomeOf(structuredClone(answer))).toEqual(outcome);
  });
});

describe('packed answers (worker → pool, one task)', () => {
  const stats = (n: number) => ({ statesExpanded: n, statesStored: n + 1, elapsedMs: n / 4, memoryBytes: 1000 * n });
  const read = (task: SolveTask, answers: (SolveOutcome | ReturnType<typeof answerFor>)[]) => {
    let k = 0;
    const result = structuredClone(forEachDealOfTask(task, () => answers[k++]));
    if (!('packed' in result) || result.packed === undefined) throw new Error('expected packed answers');
    const got: unknown[] = [];
    unpackAnswers(
      result.packed,
      (i, outcome, moves) => got.push({ i, outcome: { ...outcome, moves: unpackMoves(moves) } }),
      (i, error) => got.push({ i, error }),
    );
    return got;
  };

  it('every kind of answer comes back as it went, in order: plain, with extra fields, answerFor-packed, failed', () => {
    fc.assert(
      fc.property(fc.array(move, { maxLength: 120 }), fc.array(move, { maxLength: 3 }), fc.nat(10_000), (a, b, n) => {
        const solved: SolveOutcome = { verdict: 'solved', moves: a, stats: stats(n) };
        const unknown: SolveOutcome = { verdict: 'unknown', reason: 'max_states', moves: [], stats: stats(n + 1) };
        const proved: SolveOutcome = { verdict: 'unsolvable', moves: [], stats: stats(2), proof: { positions: 3, fingerprint: '00ff' } } as unknown as SolveOutcome;
        const shortened: SolveOutcome = { verdict: 'solved', moves: b, stats: stats(3), optimize: { firstMoves: 9 } } as unknown as SolveOutcome;
        const failure = { ok: false as const, error: { code: 'engine_trap' as const, message: 'trapped' } };
        const deals = [solved, unknown, proved, answerFor(solved), failure, shortened];
        const task = { limits: { maxStates: 1, timeoutMs: 1 }, stop: new Int32Array(1), deals: deals.map(() => ({}) as never) } as SolveTask;
        expect(read(task, deals)).toEqual([
          { i: 0, outcome: solved },
          { i: 1, outcome: unknown },
          { i: 2, outcome: proved },
          { i: 3, outcome: solved },
          { i: 4, error: failure.error },
          { i: 5, outcome: shortened },
        ]);
      }),
      { numRuns: 30 },
    );
  });

  it('a malformed head is an error, not a wrong answer', () => {
    const noop = () => {};
    expect(() => unpackAnswers({ head: new Float64Array(7), moves: new Uint8Array(0) }, noop, noop)).toThrow(RangeError);
    const head = new Float64Array(8);
    head[7] = 16; // moves end beyond the buffer
    expect(() => unpackAnswers({ head, moves: new Uint8Array(8) }, noop, noop)).toThrow(RangeError);
    head[7] = 0;
    head[1] = 7; // no such verdict
    expect(() => unpackAnswers({ head, moves: new Uint8Array(0) }, noop, noop)).toThrow(RangeError);
    head[1] = 0;
    head[0] = 2; // a failure without its object
    expect(() => unpackAnswers({ head, moves: new Uint8Array(0) }, noop, noop)).toThrow(RangeError);
  });
});

describe('packed deals (pool → worker)', () => {
  const dealOf = (game: string, numbering: 'ms' | 'pysolfc', n: number): Deal => resolveDeal({ game, numbering, deal: n });

  it('unpackDeals(packDeals(deals)) gives the same deals, in order, rules shared by text', () => {
    const deals = [dealOf('freecell', 'ms', 1), dealOf('seahaven_towers', 'pysolfc', 7), dealOf('eight_off', 'pysolfc', 3), dealOf('citadel', 'pysolfc', 5), dealOf('freecell', 'ms', 11982)];
    const packed = packDeals(deals, true)!;
    expect(packed).toMatchObject({ count: 5, many: true });
    expect(packed.rules.length).toBeLessThanOrEqual(5);
    expect(unpackDeals(packed)).toEqual(deals);
    // a board position: cards in cells, foundations begun, an empty column
    const mid: Deal = {
      rules: deals[0].rules,
      layout: { columns: [[], ...deals[0].layout.columns.slice(1).map((c) => c.slice(0, 3))], freeCells: [null, 12, null, 40], foundations: [1, 0, 2, 0] },
    };
    expect(unpackDeals(packDeals([mid], false)!)).toEqual([mid]);
  });

  it('a deal that does not fit the format is left to be sent as it is (undefined)', () => {
    const plain = dealOf('freecell', 'ms', 1);
    expect(packDeals([{ ...plain, extra: 1 } as Deal], false)).toBeUndefined();
    expect(packDeals([{ ...plain, layout: { ...plain.layout, freeCells: [300, null, null, null] } }], false)).toBeUndefined();
    expect(packDeals([{ ...plain, layout: { ...plain.layout, foundations: [0.5, 0, 0, 0] } }], false)).toBeUndefined();
    expect(packDeals([plain, { ...plain, layout: { ...plain.layout, columns: [[...plain.layout.columns[0], -1]] } }], true)).toBeUndefined();
  });
});
