/**
 * The pool ↔ worker protocol of shared runs (server/worker-protocol.ts):
 * `packDeals` sharing one rules text between equal rules objects,
 * `packedDealReader` decoding any deal of a packed task, and the claim loop
 * of a share (`forEachDealOfTask` with `SolveTask.claim`): each deal claimed
 * once across shares of one cursor, a share stopping after one deal when
 * other tasks wait (`yieldTo`), at its stop flag, and once its worker asked
 * to retire.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import {
  FLAGS_BYTES,
  forEachDealOfTask,
  packDeals,
  packedDealReader,
  RETIRE_INDEX,
  STOP_INDEX,
  unpackAnswers,
  unpackDeals,
  type SolveTask,
} from '../../server/worker-protocol.js';

const msDeal = (n: number): Deal => resolveDeal({ game: 'freecell', numbering: 'ms', deal: n });
/** `deal` with a rules object of its own, equal to its original (as deals dealt one by one have). */
const ownRules = (deal: Deal): Deal => ({ rules: structuredClone(deal.rules), layout: deal.layout });

describe('packDeals: one rules text for equal rules objects', () => {
  it('distinct but equal rules objects share one text; unequal ones get one each; the deals unpack as they were', () => {
    const base = msDeal(1);
    const equal = [ownRules(base), ownRules(msDeal(2)), ownRules(msDeal(3))];
    expect(new Set(equal.map((d) => d.rules)).size).toBe(3);
    const packed = packDeals(equal, true)!;
    expect(packed.rules).toHaveLength(1);
    expect(unpackDeals(packed)).toEqual(equal);

    const other: Deal = { rules: { ...base.rules, freeCells: 2 }, layout: msDeal(4).layout };
    // equal rules on either side of an unequal one (not adjacent): still one text for both
    const mixed = [ownRules(base), other, ownRules(msDeal(5))];
    const packedMixed = packDeals(mixed, true)!;
    expect(packedMixed.rules).toHaveLength(2);
    expect(unpackDeals(packedMixed)).toEqual(mixed);
    expect(unpackDeals(packedMixed).map((d) => d.rules.freeCells)).toEqual([base.rules.freeCells, 2, base.rules.freeCells]);
  });

  it('packs a task of 1,000 deals, each with its own rules object (over 254 objects once fell back to cloning), with one text per distinct rules', () => {
    const deals = Array.from({ length: 1000 }, (_, i) => ownRules(msDeal(i + 1)));
    const packed = packDeals(deals, true);
    expect(packed).toBeDefined();
    expect(packed!).toMatchObject({ count: 1000, many: true });
    expect(packed!.rules).toHaveLength(1);
    expect(unpackDeals(packed!)).toEqual(deals);
    // two rules alternating, each deal its own object: two texts
    const two = deals.map((d, i) => (i % 2 === 0 ? d : { rules: { ...structuredClone(d.rules), freeCells: 3 }, layout: d.layout }));
    const packedTwo = packDeals(two, false)!;
    expect(packedTwo.rules).toHaveLength(2);
    expect(unpackDeals(packedTwo)).toEqual(two);
  });
});

describe('packedDealReader: deal i of packed deals, in any order', () => {
  const deals = [msDeal(1), resolveDeal({ game: 'seahaven_towers', numbering: 'pysolfc', deal: 7 }), msDeal(11982), resolveDeal({ game: 'eight_off', numbering: 'pysolfc', deal: 3 }), msDeal(617)];
  // a board position too: cards in cells, foundations begun, an empty column
  deals.push({
    rules: deals[0].rules,
    layout: { columns: [[], ...deals[0].layout.columns.slice(1).map((c) => c.slice(0, 3))], freeCells: [null, 12, null, 40], foundations: [1, 0, 2, 0] },
  });

  it('gives deal i equal to the original whatever the order of the reads, each read a new object', () => {
    const packed = packDeals(deals, true)!;
    fc.assert(
      fc.property(fc.array(fc.nat(deals.length - 1), { minLength: 1, maxLength: 30 }), (order) => {
        const dealAt = packedDealReader(packed);
        for (const i of order) expect(dealAt(i)).toEqual(deals[i]);
      }),
      { numRuns: 50 },
    );
    const dealAt = packedDealReader(packed);
    expect(dealAt(2)).not.toBe(dealAt(2));
  });

  it('refuses an index outside the deals', () => {
    const dealAt = packedDealReader(packDeals(deals, true)!);
    for (const bad of [-1, deals.length, 1.5, Number.NaN]) expect(() => dealAt(bad)).toThrow(RangeError);
  });
});

describe('forEachDealOfTask with a claim cursor (a share of a shared run)', () => {
  const shared = (length: number) => new Int32Array(new SharedArrayBuffer(length * 4));
  /** An outcome that names its deal (by `statesStored`), so that an answer can be traced to the deal it is for. */
  const outcomeFor = (deal: Deal): SolveOutcome => ({
    verdict: 'solved',
    moves: [],
    stats: { statesExpanded: 0, statesStored: (deal as unknown as { id: number }).id, elapsedMs: 0, memoryBytes: 0 },
  });
  const fakeDeals = (n: number) => Array.from({ length: n }, (_, id) => ({ id }) as unknown as Deal);

  /** A share's task over `deals` with the run's `claim` cursor and the pool's `yieldTo`, and flags of its own. */
  function shareTask(deals: Deal[], claim: Int32Array, yieldTo: Int32Array): SolveTask {
    return { deals, limits: { maxStates: 1, timeoutMs: 1 }, stop: new Int32Array(new SharedArrayBuffer(FLAGS_BYTES)), claim, yieldTo };
  }

  /** Runs one share: the indices it claimed, and the deal each answer names, in order. */
  function runShare(task: SolveTask, solveOne: (deal: Deal | undefined, stop: Int32Array) => SolveOutcome = (deal) => outcomeFor(deal!)) {
    const result = structuredClone(forEachDealOfTask(task, solveOne));
    if (!('claimed' in result) || result.claimed === undefined || result.packed === undefined) throw new Error('a share answered without its claims');
    const named: number[] = [];
    unpackAnswers(result.packed, (_i, outcome) => named.push(outcome.stats.statesStored), () => named.push(-1));
    return { claimed: result.claimed, named };
  }

  it('claims each deal once across two shares of one cursor; a share stops after one deal while other tasks wait', () => {
    const deals = fakeDeals(7);
    const claim = shared(1);
    const yieldTo = shared(1);
    // other tasks wait: the first share solves one deal and gives its worker up
    Atomics.store(yieldTo, 0, 2);
    const first = runShare(shareTask(deals, claim, yieldTo));
    expect(first).toEqual({ claimed: [0], named: [0] });
    // nothing waits any more: the next share takes the rest
    Atomics.store(yieldTo, 0, 0);
    const second = runShare(shareTask(deals, claim, yieldTo));
    expect(second).toEqual({ claimed: [1, 2, 3, 4, 5, 6], named: [1, 2, 3, 4, 5, 6] });
    // a share that joins a run with nothing left answers nothing
    expect(runShare(shareTask(deals, claim, yieldTo))).toEqual({ claimed: [], named: [] });
  });

  it('two shares taking turns claim every deal exactly once, and each answer is its claimed deal\'s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }), (count, yields) => {
        const deals = fakeDeals(count);
        const claim = shared(1);
        const yieldTo = shared(1);
        const seen: number[] = [];
        for (let turn = 0; Atomics.load(claim, 0) < count; turn++) {
          Atomics.store(yieldTo, 0, yields[turn % yields.length] ? 1 : 0);
          const { claimed, named } = runShare(shareTask(deals, claim, yieldTo));
          expect(named).toEqual(claimed);
          if (yields[turn % yields.length]) expect(claimed).toHaveLength(1);
          seen.push(...claimed);
        }
        expect(seen).toEqual(Array.from({ length: count }, (_, i) => i));
      }),
      { numRuns: 50 },
    );
  });

  it('claims nothing once its stop flag is set, and stops after the deal whose worker asked to retire', () => {
    const deals = fakeDeals(4);
    const claim = shared(1);
    const yieldTo = shared(1);
    const stopped = shareTask(deals, claim, yieldTo);
    Atomics.store(stopped.stop, STOP_INDEX, 1);
    expect(runShare(stopped)).toEqual({ claimed: [], named: [] });
    expect(Atomics.load(claim, 0)).toBe(0);
    // the worker asks to retire during the first deal (pool-worker.ts askToRetireIfGrown): the share ends with it
    const retiring = shareTask(deals, claim, yieldTo);
    const outcome = runShare(retiring, (deal, stop) => {
      Atomics.store(stop, RETIRE_INDEX, 42);
      return outcomeFor(deal!);
    });
    expect(outcome).toEqual({ claimed: [0], named: [0] });
    expect(runShare(shareTask(deals, claim, yieldTo)).claimed).toEqual([1, 2, 3]);
  });

  it('claims from packed deals (the pool packs every plain deal), each answer for its deal', () => {
    const deals = [msDeal(1), msDeal(2), msDeal(3)];
    const packed = packDeals(deals, true)!;
    const claim = shared(1);
    const got: Deal[] = [];
    const task: SolveTask = { packed, limits: { maxStates: 1, timeoutMs: 1 }, stop: new Int32Array(new SharedArrayBuffer(FLAGS_BYTES)), claim, yieldTo: shared(1) };
    const result = forEachDealOfTask(task, (deal) => {
      got.push(deal!);
      return { verdict: 'unknown', reason: 'max_states', moves: [], stats: { statesExpanded: 0, statesStored: 0, elapsedMs: 0, memoryBytes: 0 } };
    });
    expect(result).toMatchObject({ ok: true, claimed: [0, 1, 2] });
    expect(got).toEqual(deals);
  });
});
