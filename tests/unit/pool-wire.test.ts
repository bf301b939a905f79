/**
 * The pool's wire format and how a worker runs it (server/pool/wire.ts,
 * packing.ts, flags.ts, worker-run.ts, deal-source.ts), without threads:
 * deals packed and read back in any order, answers packed and read back,
 * the claims of a shared job (each deal once across shares, a share giving
 * its worker up after a deal when the pool says so, at its stop flag, once
 * its worker asked to retire, nothing once the pool took a job back), a
 * range dealt by the worker as `resolveDeal` deals it, a request's fault
 * answered as that deal's failure, and a deadline already past answered
 * `timeout` without a search.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { packMoves, unpackMoves, type Move } from '../../client-sdk/core/moves.js';
import { PRESETS, type Deal } from '../../client-sdk/core/rules.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { dealReader } from '../../server/pool/deal-source.js';
import { SharedFlags } from '../../server/pool/flags.js';
import { AnswerPacker, packDeals, packedDealReader, unpackAnswers, type PackedAnswers } from '../../server/pool/packing.js';
import type { DealFailure, DealSource, WireJob } from '../../server/pool/wire.js';
import { runWireTask, type DealSolver } from '../../server/pool/worker-run.js';

const msDeal = (n: number): Deal => resolveDeal({ game: 'freecell', numbering: 'ms', deal: n });
/** `deal` with a rules object of its own, equal to its original (as deals dealt one by one have). */
const ownRules = (deal: Deal): Deal => ({ rules: structuredClone(deal.rules), layout: deal.layout });
const unpackAll = (packed: PackedDeals) => Array.from({ length: packed.count }, (_, i) => packedDealReader(packed)(i));
type PackedDeals = NonNullable<ReturnType<typeof packDeals>>;

describe('packed deals (pool → worker)', () => {
  it('distinct but equal rules objects share one text; unequal ones get one each; the deals read back as they were', () => {
    const base = msDeal(1);
    const equal = [ownRules(base), ownRules(msDeal(2)), ownRules(msDeal(3))];
    const packed = packDeals(equal)!;
    expect(packed.rules).toHaveLength(1);
    expect(unpackAll(packed)).toEqual(equal);
    const other: Deal = { rules: { ...base.rules, freeCells: 2 }, layout: msDeal(4).layout };
    const mixed = [ownRules(base), other, ownRules(msDeal(5))];
    const packedMixed = packDeals(mixed)!;
    expect(packedMixed.rules).toHaveLength(2);
    expect(unpackAll(packedMixed)).toEqual(mixed);
  });

  it('1,000 deals with a rules object each pack with one text; any deal reads back in any order, a new object each read', () => {
    const deals = Array.from({ length: 1000 }, (_, i) => ownRules(msDeal(i + 1)));
    const packed = packDeals(deals)!;
    expect(packed).toMatchObject({ count: 1000 });
    expect(packed.rules).toHaveLength(1);
    const mixed = [msDeal(1), resolveDeal({ game: 'seahaven_towers', numbering: 'pysolfc', deal: 7 }), msDeal(11982), resolveDeal({ game: 'citadel', numbering: 'pysolfc', deal: 5 })];
    // a board position too: cards in cells, foundations begun, an empty column
    mixed.push({ rules: mixed[0].rules, layout: { columns: [[], ...mixed[0].layout.columns.slice(1).map((c) => c.slice(0, 3))], freeCells: [null, 12, null, 40], foundations: [1, 0, 2, 0] } });
    const reader = packedDealReader(packDeals(mixed)!);
    fc.assert(
      fc.property(fc.array(fc.nat(mixed.length - 1), { minLength: 1, maxLength: 30 }), (order) => {
        for (const i of order) expect(reader(i)).toEqual(mixed[i]);
      }),
      { numRuns: 30 },
    );
    expect(reader(2)).not.toBe(reader(2));
    for (const bad of [-1, mixed.length, 1.5, Number.NaN]) expect(() => reader(bad)).toThrow(RangeError);
  });

  it('a deal that does not fit the format is left to cross as it is (undefined)', () => {
    const plain = msDeal(1);
    expect(packDeals([{ ...plain, extra: 1 } as Deal])).toBeUndefined();
    expect(packDeals([{ ...plain, layout: { ...plain.layout, freeCells: [300, null, null, null] } }])).toBeUndefined();
    expect(packDeals([{ ...plain, layout: { ...plain.layout, foundations: [0.5, 0, 0, 0] } }])).toBeUndefined();
  });
});

describe('packed answers (worker → pool)', () => {
  const move = (card: string, auto: boolean): Move => ({ from: 'column', fromIndex: 1, to: 'foundation', toIndex: 0, count: 1, card, auto });
  const stats = (n: number) => ({ statesExpanded: n, statesStored: n + 1, elapsedMs: n / 4, memoryBytes: 1000 * n });

  it('every kind of answer comes back as it went, in order: plain, packed moves, with extra fields, failed', () => {
    const solved: SolveOutcome = { verdict: 'solved', moves: [move('AS', true), move('2S', false)], stats: stats(3) };
    const unknown: SolveOutcome = { verdict: 'unknown', reason: 'max_states', moves: [], stats: stats(4) };
    const proved = { verdict: 'unsolvable', moves: [], stats: stats(2), proof: { positions: 3, fingerprint: '00ff' } } as unknown as SolveOutcome;
    const failure: DealFailure = { code: 'engine_trap', message: 'trapped' };
    const packer = new AnswerPacker().begin();
    packer.add(solved);
    packer.add(unknown);
    packer.add({ ...solved, moves: [] }, packMoves(solved.moves));
    packer.add(proved);
    packer.fail(failure);
    const packed: PackedAnswers = structuredClone(packer.finish());
    const got: unknown[] = [];
    unpackAnswers(packed, (i, outcome, moves) => got.push({ i, outcome: { ...outcome, moves: unpackMoves(moves) } }), (i, error) => got.push({ i, error }));
    expect(got).toEqual([
      { i: 0, outcome: solved },
      { i: 1, outcome: unknown },
      { i: 2, outcome: solved },
      { i: 3, outcome: proved },
      { i: 4, error: failure },
    ]);
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

describe('runWireTask: claims, stops, yields, retirement, deadlines', () => {
  /** Flags as a pool makes them, and worker slot 0 claimed by a thread of id 7. */
  function newFlags() {
    const flags = new SharedFlags({ workerSlots: 4, jobSlots: 8 });
    const worker = flags.claimWorker(7);
    return { flags, worker };
  }
  /** An outcome that names its deal (by `statesStored`). */
  const named = (id: number): SolveOutcome => ({ verdict: 'solved', moves: [], stats: { statesExpanded: 0, statesStored: id, elapsedMs: 0, memoryBytes: 0 } });
  const fakeDeals = (n: number): DealSource => ({ kind: 'given', deals: Array.from({ length: n }, (_, id) => ({ id })) });
  const solver = (onDeal: (id: number) => void = () => {}): DealSolver => ({
    solve: (_job, deal) => {
      const id = (deal as unknown as { id: number }).id;
      onDeal(id);
      return { outcome: named(id) };
    },
    respond: () => ({ body: new Uint8Array(0) }),
  });
  const job = (slot: number, source: DealSource, count: number, extra: Partial<WireJob> = {}): WireJob => ({
    slot,
    source,
    count,
    limits: { maxStates: 1, timeoutMs: 1000 },
    deadline: Infinity,
    answer: 'outcomes',
    ...extra,
  });
  /** The deals one share answered: their indices and the deal each answer names. */
  function share(flags: SharedFlags, worker: number, w: WireJob, s: DealSolver = solver()) {
    const answer = structuredClone(runWireTask({ id: 1, jobs: [w] }, flags, worker, s)).jobs[0];
    const names: number[] = [];
    unpackAnswers(answer.packed, (_i, o) => names.push(o.stats.statesStored), () => names.push(-1));
    return { claimed: answer.claimed, names };
  }

  it('two shares of one job claim every deal exactly once, each answer for its claimed deal; a share gives its worker up after one deal when the pool asks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }), (count, yields) => {
        const { flags, worker } = newFlags();
        const slot = flags.takeJob()!;
        const w = job(slot, fakeDeals(count), count, { shared: true, yields: true });
        const seen: number[] = [];
        for (let turn = 0; flags.claimed(slot, count) < count; turn++) {
          flags.setYield(yields[turn % yields.length] ? 1 : 0);
          const { claimed, names } = share(flags, worker, w);
          expect(names).toEqual(claimed);
          if (yields[turn % yields.length]) expect(claimed).toHaveLength(1);
          seen.push(...claimed!);
        }
        expect(seen).toEqual(Array.from({ length: count }, (_, i) => i));
        expect(flags.done(slot)).toBe(count);
      }),
      { numRuns: 50 },
    );
  });

  it('claims nothing once stopped or taken back; a share stops after the deal whose worker asked to retire', () => {
    const { flags, worker } = newFlags();
    const stopped = flags.takeJob()!;
    flags.stop(stopped);
    expect(share(flags, worker, job(stopped, fakeDeals(3), 3, { shared: true }))).toEqual({ claimed: [], names: [] });
    const withdrawn = flags.takeJob()!;
    expect(flags.withdraw(withdrawn)).toBe(true);
    expect(share(flags, worker, job(withdrawn, fakeDeals(1), 1)).names).toEqual([]);
    // once a worker claimed a deal, the pool can no longer take it back
    const begun = flags.takeJob()!;
    expect(flags.claim(begun, 1)).toBe(0);
    expect(flags.withdraw(begun)).toBe(false);
    const retiring = flags.takeJob()!;
    const w = job(retiring, fakeDeals(4), 4, { shared: true });
    expect(share(flags, worker, w, solver(() => flags.askToRetire(worker)))).toEqual({ claimed: [0], names: [0] });
    expect(flags.retireAsked(worker)).toBe(true);
    // another worker takes the rest
    const other = flags.claimWorker(8);
    expect(share(flags, other, w).claimed).toEqual([1, 2, 3]);
  });

  it('marks each deal begun on the worker (the backstop reads it) and done after', () => {
    const { flags, worker } = newFlags();
    const slot = flags.takeJob()!;
    let during: ReturnType<SharedFlags['worker']> | undefined;
    share(flags, worker, job(slot, fakeDeals(1), 1), solver(() => (during = flags.worker(worker))));
    expect(during).toMatchObject({ threadId: 7, taskId: 1, jobSlot: slot });
    expect(during!.startedAt).toBeGreaterThan(0);
    expect(flags.worker(worker)).toMatchObject({ taskId: 0, jobSlot: -1 });
    expect(flags.firstStarted(slot)).toBeGreaterThan(0);
    expect(flags.done(slot)).toBe(1);
  });

  it("deals every game's numbered ranges under its own rules straight from its dealer, each deal as resolveDeal makes it", () => {
    let games = 0;
    for (const preset of PRESETS) {
      for (const numbering of preset.numberings) {
        for (const first of ['1', '31990', '8589934580']) {
          if (numbering === 'ms' && first === '8589934580') continue;
          const range = dealReader({ kind: 'range', template: { game: preset.id, numbering }, first, count: 10 });
          for (let i = 0; i < 10; i++) {
            const deal = range(i);
            expect(deal, `${preset.id} ${numbering} ${BigInt(first) + BigInt(i)}`).toEqual(resolveDeal({ game: preset.id, numbering, deal: String(BigInt(first) + BigInt(i)) }));
            // past the first deal, the dealer's own (the rules shared, frozen), not resolveDeal's
            if (i > 0) expect(Object.isFrozen(deal.rules), `${preset.id} ${numbering}: dealt straight`).toBe(true);
          }
        }
        games++;
      }
    }
    expect(games).toBeGreaterThanOrEqual(20);
  });

  it('deals a numbered range as resolveDeal does; a request with a bad position is that deal\'s failure; a deadline past is a timeout without a search', () => {
    const range = dealReader({ kind: 'range', template: { game: 'freecell', numbering: 'ms' }, first: '8589934590', count: 2 });
    expect(range(1)).toEqual(resolveDeal({ game: 'freecell', numbering: 'ms', deal: '8589934591' }));
    const small = dealReader({ kind: 'range', template: { game: 'seahaven_towers', numbering: 'pysolfc', rules: { freeCells: 5 } }, first: '10', count: 5 });
    expect(small(3)).toEqual(resolveDeal({ game: 'seahaven_towers', numbering: 'pysolfc', deal: 13, rules: { freeCells: 5 } }));
    const { flags, worker } = newFlags();
    const bad = flags.takeJob()!;
    const failures: DealFailure[] = [];
    const answer = runWireTask({ id: 2, jobs: [job(bad, { kind: 'requests', requests: [{ game: 'freecell', deal: 0 }] }, 1)] }, flags, worker, solver()).jobs[0];
    unpackAnswers(answer.packed, () => {}, (_i, f) => failures.push(f));
    expect(failures).toMatchObject([{ code: 'deal_out_of_range' }]);
    const late = flags.takeJob()!;
    let searched = false;
    const lateAnswer = runWireTask({ id: 3, jobs: [job(late, fakeDeals(1), 1, { deadline: Date.now() - 1 })] }, flags, worker, solver(() => (searched = true))).jobs[0];
    const outcomes: SolveOutcome[] = [];
    unpackAnswers(lateAnswer.packed, (_i, o) => outcomes.push(o), () => {});
    expect(outcomes).toMatchObject([{ verdict: 'unknown', reason: 'timeout' }]);
    expect(searched).toBe(false);
  });
});
