/**
 * The pool's groups of plain single solves (server/pool.ts `#nextWaiting`,
 * `#runGroup`): solves waiting in the queue go to a freed worker several to
 * a task, each keeping its own cancellation, deadline backstop, answer,
 * `onSettled` event and counts; a lone solve still goes alone at once.
 *
 * The protocol tests run the fixture worker (tests/fixtures/pool-worker.ts),
 * which blocks on the stop flag of the deal it runs and tags every outcome
 * with the number of deals of its task (`taskDeals`), on one thread, so that
 * what waits and what groups follows from the order of the calls alone. The
 * last tests run the real worker and engine.
 */
import { Piscina } from 'piscina';
import { describe, expect, it, vi } from 'vitest';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createPool, type SolveEvent, type SolverPool } from '../../server/pool.js';
import type { WireTask } from '../../server/pool/wire.js';
import { engineBuilt } from '../helpers/engine.js';
import { FIXTURE_LIMITS as LIMITS, FIXTURE_WORKER as FIXTURE, fixtureDeal, quietLog as quiet, threadOf, useFixturePools, verdictOf, type FixtureMode } from '../helpers/pool-fixture.js';

const { pools, fixturePool } = useFixturePools();

const taskDealsOf = (o: SolveOutcome) => (o as SolveOutcome & { taskDeals: number }).taskDeals;

/** The worker of `pool` (one thread) kept busy by a solve that waits for its stop flag: `free()` cancels it. */
async function occupy(pool: SolverPool) {
  const busy = fixtureDeal('wait');
  const ac = new AbortController();
  const running = pool.solve(busy.deal, LIMITS, ac.signal);
  await busy.whenStarted();
  return {
    running,
    free: async () => {
      ac.abort();
      return running;
    },
  };
}

/** A fixture deal submitted to `pool` with a signal of its own: `cancel()` aborts it, `answer` is its solve. */
function submitCancellable(pool: SolverPool, mode: FixtureMode) {
  const fixture = fixtureDeal(mode);
  const ac = new AbortController();
  return { ...fixture, answer: pool.solve(fixture.deal, LIMITS, ac.signal), cancel: () => ac.abort() };
}

/** `promise`'s value, or `'pending'` when it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('groups of plain solves (fixture worker)', () => {
  it('solves waiting when a worker frees up go to it as one task, at most groupMax; each gets its own answer and event', async () => {
    const events: SolveEvent[] = [];
    const pool = fixturePool({ groupMax: 3, onSettled: (e) => events.push(e) });
    const busy = await occupy(pool);
    const queued = Array.from({ length: 5 }, () => pool.solve(fixtureDeal('solve').deal, LIMITS));
    expect(pool.stats()).toMatchObject({ running: 1, queued: 5, inFlight: 6 });
    await busy.free();
    const answers = await Promise.all(queued);
    expect(answers.map((o) => o.verdict)).toEqual(Array(5).fill('solved'));
    // five waiting on one thread: a share of 5, capped at 3, then the two left
    expect(answers.map(taskDealsOf)).toEqual([3, 3, 3, 2, 2]);
    expect(events).toHaveLength(6);
    expect(events.every((e) => e.outcome !== undefined && e.queuedMs >= 0 && e.totalMs >= e.queuedMs)).toBe(true);
    expect(pool.stats()).toMatchObject({ completed: 6, inFlight: 0, running: 0, queued: 0 });
  });

  it('with groupMax 1, or a lone solve, nothing is grouped', async () => {
    const pool = fixturePool({ groupMax: 1 });
    const busy = await occupy(pool);
    const queued = Array.from({ length: 3 }, () => pool.solve(fixtureDeal('solve').deal, LIMITS));
    await busy.free();
    expect((await Promise.all(queued)).map(taskDealsOf)).toEqual([1, 1, 1]);
    expect(() => createPool({ filename: FIXTURE, threads: 1, groupMax: 0 })).toThrow(RangeError);
  });

  it('a group takes only its share of the queue: the waiting solves divided by the threads', async () => {
    const pool = fixturePool({ threads: 2 });
    const first = await occupy(pool);
    const second = await occupy(pool);
    const queued = Array.from({ length: 4 }, () => pool.solve(fixtureDeal('solve').deal, LIMITS));
    // one worker frees up: 4 waiting, 2 threads, so 2 in its task; then 2 waiting, so 1 a task
    await first.free();
    expect((await Promise.all(queued)).map(taskDealsOf)).toEqual([2, 2, 1, 1]);
    await second.free();
  });

  it('a group stops at a solve with other limits or options (it runs in a task of its own), and keeps the queue\'s order', async () => {
    const pool = fixturePool();
    const busy = await occupy(pool);
    const order: string[] = [];
    const tagged = (name: string, p: Promise<SolveOutcome>) => p.then((o) => (order.push(name), o));
    const a = tagged('a', pool.solve(fixtureDeal('solve').deal, LIMITS));
    const b = tagged('b', pool.solve(fixtureDeal('solve').deal, LIMITS));
    const c = tagged('c', pool.solve(fixtureDeal('solve').deal, { ...LIMITS, maxStates: 7 }));
    const d = tagged('d', pool.solve(fixtureDeal('solve').deal, LIMITS, undefined, { optimize: { budgetMs: 10 } }));
    const e = tagged('e', pool.solve(fixtureDeal('solve').deal, LIMITS));
    await busy.free();
    const answers = await Promise.all([a, b, c, d, e]);
    expect(answers.map(taskDealsOf)).toEqual([2, 2, 1, 1, 1]);
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('cancelling a grouped deal not yet begun answers it at once and never runs it; a running one stops alone; the rest of the group is solved', async () => {
    const events: SolveEvent[] = [];
    const pool = fixturePool({ stopGraceMs: 10_000, onSettled: (e) => events.push(e) });
    const busy = await occupy(pool);
    const b = submitCancellable(pool, 'wait');
    const c = submitCancellable(pool, 'wait');
    const waitingD = pool.solve(fixtureDeal('solve').deal, LIMITS);
    await busy.free();
    await b.whenStarted();
    // b runs; c and d are in its task behind it, not begun: they count as queued
    expect(pool.stats()).toMatchObject({ running: 1, queued: 2, inFlight: 3 });
    const t0 = Date.now();
    c.cancel();
    const outcomeC = await c.answer;
    expect(Date.now() - t0).toBeLessThan(1000); // not after the 10 s grace, nor after b
    expect(outcomeC).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    expect(b.began()).toBe(true);
    expect(pool.stats()).toMatchObject({ running: 1, queued: 1, inFlight: 2 });
    b.cancel();
    const [outcomeB, outcomeD] = await Promise.all([b.answer, waitingD]);
    // b answers when it ends, with the pool's cancelled outcome (the worker's comes with its group's, later)
    expect(outcomeB).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    expect(outcomeD).toMatchObject({ verdict: 'solved', taskDeals: 3 });
    // c was taken back: the worker never began it
    expect(c.began()).toBe(false);
    // one event a solve (busy, c, b, d), c's never run; the worker answered busy, b and d
    expect(events.map((e) => e.outcome?.reason ?? e.outcome?.verdict)).toEqual(['cancelled', 'cancelled', 'cancelled', 'solved']);
    expect(events[1].queuedMs).toBe(0);
    expect(pool.stats()).toMatchObject({ completed: 3, inFlight: 0 });
    // the worker was kept throughout
    expect(threadOf(await pool.solve(fixtureDeal('solve').deal, LIMITS))).toBe(threadOf(outcomeD));
  });

  it('a running grouped deal, cancelled, answers when it ends, not when its group does', async () => {
    const pool = fixturePool({ stopGraceMs: 10_000 });
    const busy = await occupy(pool);
    const b = submitCancellable(pool, 'wait');
    const c = submitCancellable(pool, 'wait');
    await busy.free();
    await b.whenStarted();
    b.cancel();
    // b ends at once and c begins in the same task; b's answer does not wait for c
    expect(await within(b.answer, 2000)).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    await c.whenStarted();
    expect(await within(c.answer, 50)).toBe('pending');
    c.cancel();
    expect(await c.answer).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    expect(pool.stats()).toMatchObject({ inFlight: 0, running: 0 });
  });

  it('a grouped deal cancelled after it ended answers cancelled at once, and is not run again when its group then fails', async () => {
    const pool = fixturePool({ stopGraceMs: 10_000, log: quiet });
    const busy = await occupy(pool);
    const done = submitCancellable(pool, 'solve');
    const w = submitCancellable(pool, 'wait');
    const crash = pool.solve(fixtureDeal('exit').deal, LIMITS).catch((e: unknown) => e);
    await busy.free();
    await w.whenStarted();
    // the first deal has ended (its answer travels with the group's); cancelled now, it answers now
    done.cancel();
    expect(await within(done.answer, 1000)).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    expect(done.began()).toBe(true);
    // its begun mark cleared: a second run would set it again
    Atomics.store((done.deal as unknown as { started: Int32Array }).started, 0, 0);
    w.cancel();
    expect(await w.answer).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    // the next deal crashes the worker: the group's task fails; the cancelled deal is not begun again
    expect(verdictOf(await crash)).toBe('worker_crashed');
    expect(await pool.drain(5000)).toBe(true);
    expect(done.began()).toBe(false);
    expect(pool.stats()).toMatchObject({ inFlight: 0, running: 0 });
  });

  it('a task that cannot be built (rules JSON cannot carry) fails its solves with an error, and the worker slot is not lost', async () => {
    const pool = fixturePool({ log: quiet });
    const real = resolveDeal({ game: 'freecell', deal: 1 });
    const bad = { ...real, rules: { ...real.rules, why: 1n } } as unknown as Deal;
    // alone (a worker free)
    await expect(pool.solve(bad, LIMITS)).rejects.toBeInstanceOf(SolverError);
    // in a group: the others of the group run again alone and are answered
    const busy = await occupy(pool);
    const grouped = [pool.solve(bad, LIMITS).catch((e: unknown) => e), pool.solve(fixtureDeal('solve').deal, LIMITS)];
    await busy.free();
    const [badAnswer, good] = await Promise.all(grouped);
    expect(badAnswer).toBeInstanceOf(SolverError);
    expect(verdictOf(good)).toEqual(['solved', null]);
    expect(pool.stats()).toMatchObject({ inFlight: 0, running: 0 });
    // the one worker still takes solves
    expect(verdictOf(await within(pool.solve(fixtureDeal('solve').deal, LIMITS), 2000))).toEqual(['solved', null]);
  });

  it("a grouped solve's log lines name its own request, and its answer event runs in its own async context, not in the one whose answer freed the worker", async () => {
    // the caller's async context (an AsyncLocalStorage of the caller's, as a tracer would keep) and its request's log context (`Cancellation.logContext`)
    const caller = new AsyncLocalStorage<string>();
    const seen: string[] = [];
    const note = (what: string, logContext?: Readonly<Record<string, unknown>>) =>
      seen.push(`${what} @ ${caller.getStore() ?? 'none'}${logContext ? ` (log: ${String(logContext.reqId)})` : ''}`);
    const pool = fixturePool({
      log: { warn: (m, _d, context) => note(`warn ${m}`, context), error: (m, _d, context) => note(`error ${m.split(' (')[0]}`, context) },
      onSettled: (e) => note(`settled ${e.error?.code ?? e.outcome?.reason ?? e.outcome?.verdict}`),
    });
    const signalOf = (reqId: string) => ({ aborted: false, logContext: { reqId }, addEventListener() {}, removeEventListener() {} });
    const busy = await caller.run('busy', () => occupy(pool));
    // b's deal throws (its solve fails alone, engine_error); c is solved in the same task
    const failing = caller.run('reqB', () => pool.solve(fixtureDeal('throw').deal, LIMITS, signalOf('reqB')).catch((e: unknown) => e));
    const solved = caller.run('reqC', () => pool.solve(fixtureDeal('solve').deal, LIMITS, signalOf('reqC')));
    await busy.free();
    expect(verdictOf(await failing)).toBe('engine_error');
    expect(await solved).toMatchObject({ verdict: 'solved', taskDeals: 2 });
    expect(seen).toContain('error solver pool: solve failed @ reqB (log: reqB)');
    expect(seen).toContain('settled engine_error @ reqB');
    expect(seen).toContain('settled solved @ reqC');
    expect(seen.filter((line) => line.includes('@ busy'))).toEqual(['settled cancelled @ busy']);
  });

  it("a grouped deal's budget counts from its own start when its deadline allows; a request's deadline counts its wait", async () => {
    const pool = fixturePool({ stopGraceMs: 100, log: quiet });
    let busy = await occupy(pool);
    const limits = { maxStates: 10, timeoutMs: 100 };
    // deadlines far off: each search still has its 100 ms, from its own start
    const far = { deadline: Date.now() + 60_000 };
    const overdue = pool.solve(fixtureDeal('wait').deal, limits, undefined, far);
    const after = pool.solve(fixtureDeal('solve').deal, limits, undefined, far);
    await new Promise((r) => setTimeout(r, 400));
    await busy.free();
    const [o1, o2] = await Promise.all([overdue, after]);
    expect(o1).toMatchObject({ verdict: 'unknown', reason: 'timeout', taskDeals: 2 });
    expect(o2).toMatchObject({ verdict: 'solved', taskDeals: 2 });
    // the default deadline (arrival + 100 ms) passed while they waited: answered timeout, never begun
    busy = await occupy(pool);
    const late = [fixtureDeal('wait'), fixtureDeal('solve')];
    const answers = late.map((d) => pool.solve(d.deal, limits));
    await new Promise((r) => setTimeout(r, 400));
    await busy.free();
    expect((await Promise.all(answers)).map(verdictOf)).toEqual([['unknown', 'timeout'], ['unknown', 'timeout']]);
    expect(late.map((d) => d.began())).toEqual([false, false]);
  });

  it('a grouped deal deaf to its deadline: its worker is terminated, it fails engine_unresponsive, and the others of its group run again alone', async () => {
    const events: SolveEvent[] = [];
    const pool = fixturePool({ stopGraceMs: 100, log: quiet, onSettled: (e) => events.push(e) });
    const busy = await occupy(pool);
    const limits = { maxStates: 10, timeoutMs: 100 };
    // the others' deadlines far off, so that they still have time when they run again
    const far = { deadline: Date.now() + 60_000 };
    const before = pool.solve(fixtureDeal('solve').deal, limits, undefined, far);
    const deaf = pool.solve(fixtureDeal('stubborn', 20_000).deal, limits).catch((e: unknown) => e);
    const behind = pool.solve(fixtureDeal('solve').deal, limits, undefined, far);
    const oldThread = threadOf(await busy.free());
    const [b, d, h] = await Promise.all([before, deaf, behind]);
    expect(d).toMatchObject({ code: 'engine_unresponsive', status: 500 });
    // the deal solved before it lost its answer with the task: solved again, alone, on the new worker; so is the one behind
    expect(verdictOf(b)).toEqual(['solved', null]);
    expect(verdictOf(h)).toEqual(['solved', null]);
    expect([taskDealsOf(b), taskDealsOf(h)]).toEqual([1, 1]);
    expect(threadOf(b)).not.toBe(oldThread);
    expect(events.map((e) => e.error?.code ?? e.outcome?.verdict)).toEqual(['unknown', 'engine_unresponsive', 'solved', 'solved']);
    expect(pool.stats()).toMatchObject({ completed: 3, inFlight: 0, threads: 1 });
  });

  it('a grouped deal that crashes its worker fails worker_crashed alone; a cancelled one deaf to its flag answers cancelled; the others are solved', async () => {
    const pool = fixturePool({ stopGraceMs: 100, log: quiet });
    let busy = await occupy(pool);
    const crashed = [pool.solve(fixtureDeal('solve').deal, LIMITS), pool.solve(fixtureDeal('exit').deal, LIMITS).catch((e: unknown) => e), pool.solve(fixtureDeal('solve').deal, LIMITS)];
    await busy.free();
    expect((await Promise.all(crashed)).map(verdictOf)).toEqual([['solved', null], 'worker_crashed', ['solved', null]]);

    // a deal that ended at its deadline, then the deal after it crashes: handed back, its deadline is past, so its answer is its timeout
    busy = await occupy(pool);
    const short = { maxStates: 10, timeoutMs: 100 };
    const stoppedThenLost = [
      pool.solve(fixtureDeal('wait').deal, short),
      pool.solve(fixtureDeal('exit').deal, short, undefined, { deadline: Date.now() + 60_000 }).catch((e: unknown) => e),
    ];
    await busy.free();
    expect((await Promise.all(stoppedThenLost)).map(verdictOf)).toEqual([['unknown', 'timeout'], 'worker_crashed']);

    busy = await occupy(pool);
    const deaf = fixtureDeal('stubborn', 20_000);
    const ac = new AbortController();
    const cancelled = [pool.solve(deaf.deal, LIMITS, ac.signal), pool.solve(fixtureDeal('solve').deal, LIMITS)];
    await busy.free();
    await deaf.whenStarted();
    ac.abort();
    expect((await Promise.all(cancelled)).map(verdictOf)).toEqual([['unknown', 'cancelled'], ['solved', null]]);
  });

  it('the queue limit counts every solve accepted and not answered, grouped ones included', async () => {
    const pool = fixturePool({ maxQueue: 2, stopGraceMs: 100 });
    const busy = await occupy(pool);
    const ac = new AbortController();
    const accepted = [pool.solve(fixtureDeal('wait').deal, LIMITS, ac.signal), pool.solve(fixtureDeal('wait').deal, LIMITS, ac.signal)];
    await expect(pool.solve(fixtureDeal('solve').deal, LIMITS)).rejects.toMatchObject({ code: 'overloaded' });
    await busy.free();
    // the two now share the worker's task: one more may wait, not two
    accepted.push(pool.solve(fixtureDeal('wait').deal, LIMITS, ac.signal));
    expect(pool.isFull()).toBe(true);
    await expect(pool.solve(fixtureDeal('solve').deal, LIMITS)).rejects.toMatchObject({ code: 'overloaded' });
    ac.abort();
    expect((await Promise.all(accepted)).map((o) => o.reason)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });

  it('close() answers every grouped deal: the running one stops, the others never begin', async () => {
    const pool = createPool({ filename: FIXTURE, threads: 1 });
    const busy = await occupy(pool);
    const first = fixtureDeal('wait');
    const rest = [fixtureDeal('wait'), fixtureDeal('solve')];
    const all = [pool.solve(first.deal, LIMITS), ...rest.map((d) => pool.solve(d.deal, LIMITS))];
    void busy.free();
    await first.whenStarted();
    await pool.close();
    expect((await Promise.all(all)).map((o) => o.reason)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(rest.map((d) => d.began())).toEqual([false, false]);
  });
});

describe.skipIf(!engineBuilt())('groups of plain solves (real worker and engine)', () => {
  const msDeal = (n: number): Deal => resolveDeal({ game: 'freecell', deal: n, numbering: 'ms' });
  const limits: SolveLimits = { maxStates: 5_000_000, timeoutMs: 30_000 };

  /** The deals of each task the pool hands Piscina, from now on. */
  function watchTasks(): number[] {
    const sizes: number[] = [];
    const run = Piscina.prototype.run;
    vi.spyOn(Piscina.prototype, 'run').mockImplementation(function (this: Piscina, task: WireTask, ...rest: unknown[]) {
      sizes.push(task.jobs.length);
      return (run as (...args: unknown[]) => Promise<unknown>).call(this, task, ...rest);
    });
    return sizes;
  }

  it('grouped solves give the same verdicts, moves and positions as the same solves alone', async () => {
    const pool = createPool({ module: await loadEngineModule(), threads: 1, maxQueue: 16 });
    pools.push(pool);
    const numbers = [1, 2, 617, 11982, 3, 21554, 4, 5, 6, 7];
    const deals = numbers.map(msDeal);
    const sizes = watchTasks();
    // all at once: the first goes alone, the nine behind it wait and go as one task
    const grouped = await Promise.all(deals.map((d) => pool.solve(d, limits)));
    expect(sizes).toEqual([1, 9]);
    sizes.length = 0;
    for (let i = 0; i < deals.length; i++) {
      const alone = await pool.solve(deals[i], limits);
      expect(grouped[i].verdict).toBe(alone.verdict);
      expect(grouped[i].moves).toEqual(alone.moves);
      expect(grouped[i].stats.statesStored).toBe(alone.stats.statesStored);
      if (grouped[i].verdict === 'solved') expect(checkSolution(deals[i].rules, deals[i].layout, grouped[i].moves).ok).toBe(true);
    }
    expect(sizes).toEqual(Array(10).fill(1));
    expect(grouped.map((o) => o.verdict)).toEqual(numbers.map((n) => (n === 11982 ? 'unsolvable' : 'solved')));
    expect(pool.stats()).toMatchObject({ completed: 20, inFlight: 0 });
  });

  it('a grouped long search is cancelled alone, within a poll, keeping the worker; the deals behind it are solved', async () => {
    const pool = createPool({ module: await loadEngineModule(), threads: 1, stopGraceMs: 10_000 });
    pools.push(pool);
    await pool.solve(msDeal(1), limits);
    // Streets and Alleys rules on PySolFC deal 77 (pool.test.ts): over a minute of search
    const hard = resolveDeal({ game: 'freecell', deal: 77, numbering: 'pysolfc', rules: { build: 'rank', freeCells: 0, sequenceMove: 'none' } });
    const long = { maxStates: 50_000_000, timeoutMs: 120_000 };
    const sizes = watchTasks();
    const ac = new AbortController();
    const first = pool.solve(msDeal(8), long);
    const running = pool.solve(hard, long, ac.signal);
    const behind = pool.solve(msDeal(9), long);
    await first;
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    ac.abort();
    expect(await running).toMatchObject({ verdict: 'unknown', reason: 'cancelled' });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await behind).verdict).toBe('solved');
    expect(sizes).toEqual([1, 2]);
    expect(pool.stats()).toMatchObject({ completed: 4, recycled: 0 });
  });

  it('a lone solve goes to its worker at once, alone: handed to Piscina within the call', async () => {
    const pool = createPool({ module: await loadEngineModule(), threads: 2 });
    pools.push(pool);
    await pool.warmUp(msDeal(1));
    const sizes = watchTasks();
    const pending = pool.solve(msDeal(2), limits);
    // no timer, no tick between the call and the hand-off
    expect(sizes).toEqual([1]);
    expect(pool.stats()).toMatchObject({ running: 1, queued: 0 });
    expect((await pending).verdict).toBe('solved');
  });
});
