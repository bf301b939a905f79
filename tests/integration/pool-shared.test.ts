/**
 * The pool's shared runs (server/pool.ts `#solveShared`): `solveMany` and
 * `solveManyPacked` hand their deals to every free worker as shares of one
 * run, each share claiming the next deal from a cursor in shared memory
 * (server/pool/worker-run.ts); a share gives its worker up to a
 * waiting task after a deal (`yieldTo`), a share that loses its worker fails
 * the run, a cancel or `close()` answers the deals not done `cancelled`.
 *
 * The protocol tests run the fixture worker (tests/fixtures/pool-worker.ts),
 * whose deals block on their stop flag (`wait`), ignore it for a while
 * (`stubborn`), answer at once (`solve`) or end the thread (`exit`), and set
 * a shared `started` flag when a worker begins them, so that what runs where
 * follows from the flags, not from sleeps. The last tests run the real worker
 * and engine.
 */
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { describe, expect, it, vi } from 'vitest';
import { resolveDeal } from '../../client-sdk/api/request.js';
import { loadEngineModule } from '../../client-sdk/core/engine/index.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { unpackMoves } from '../../client-sdk/core/moves.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveLimits, SolveOutcome } from '../../client-sdk/core/solve-types.js';
import { checkSolution } from '../../client-sdk/core/verify.js';
import { summariseRange, summaryCount, type CensusSummary } from '../../server/batches/census.js';
import { failedResult, outcomeResult } from '../../server/batches/model.js';
import { createPool, type SolveEvent } from '../../server/pool.js';
import type { WireTask } from '../../server/pool/wire.js';
import { engineBuilt } from '../helpers/engine.js';
import { ROOT } from '../helpers/paths.js';
import { FIXTURE_LIMITS as LIMITS, FIXTURE_WORKER as FIXTURE, fixtureDeal, quietLog as quiet, threadOf, useFixturePools, verdictOf } from '../helpers/pool-fixture.js';

/** How long a `stubborn` deal holds the worker while a test queues a task behind it, ms: room for a busy machine's event loop. */
const HOLD_MS = 1000;
const { pools, fixturePool } = useFixturePools();
const CANCELLED = ['unknown', 'cancelled'];
const SOLVED = ['solved', null];

/** `promise`'s value, or `'pending'` when it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** `promise`'s value; a promise still pending after `ms` fails the test at once (a hang, not the file's timeout). */
async function inTime<T>(promise: Promise<T>, ms: number): Promise<T> {
  const value = await within(promise, ms);
  if (value === 'pending') throw new Error(`still pending after ${ms} ms`);
  return value as T;
}

/** The tasks the pool hands Piscina from now on that are shares of a shared run (`WireJob.shared`), counted. */
function countShares(): { shares: number } {
  const seen = { shares: 0 };
  const run = Piscina.prototype.run;
  vi.spyOn(Piscina.prototype, 'run').mockImplementation(function (this: Piscina, task: WireTask, ...rest: unknown[]) {
    if (task.jobs.some((job) => job.shared)) seen.shares++;
    return (run as (...args: unknown[]) => Promise<unknown>).call(this, task, ...rest);
  });
  return seen;
}

describe('shared runs (fixture worker)', () => {
  it('a run spreads over both workers of a 2-thread pool: its two deals run at once; a cancel answers both cancelled, and the pool is idle and solves after', async () => {
    // a long grace: a share that did not stop at its flag would hold the answer for 10 s
    const pool = fixturePool({ threads: 2, stopGraceMs: 10_000 });
    const [a, b] = [fixtureDeal('wait'), fixtureDeal('wait')];
    const ac = new AbortController();
    const run = pool.solveMany([a.deal, b.deal], LIMITS, ac.signal);
    // each deal blocks its worker until its stop flag: both begun means two workers run the one run
    await inTime(Promise.all([a.whenStarted(), b.whenStarted()]), 10_000);
    expect(pool.stats()).toMatchObject({ running: 2, queued: 0, inFlight: 2 });
    const t0 = Date.now();
    ac.abort();
    const answers = await run;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(answers.map(verdictOf)).toEqual([CANCELLED, CANCELLED]);
    expect(threadOf(answers[0])).not.toBe(threadOf(answers[1]));
    expect(pool.stats()).toMatchObject({ inFlight: 0, running: 0, queued: 0, completed: 2 });
    // both workers were kept (stopped at their flags, not terminated) and serve on
    const after = await pool.solveMany([fixtureDeal('solve').deal, fixtureDeal('solve').deal], LIMITS);
    expect(after.map(verdictOf)).toEqual([SOLVED, SOLVED]);
    for (const o of after) expect([threadOf(answers[0]), threadOf(answers[1])]).toContain(threadOf(o));
    expect(pool.stats()).toMatchObject({ inFlight: 0, completed: 4 });
  });

  it('a share gives its worker up to a waiting solve after its deal: the solve is answered before the run, and the run\'s answers are right, in order', async () => {
    const pool = fixturePool({ log: quiet });
    const slow = fixtureDeal('stubborn', HOLD_MS);
    const rest = [fixtureDeal('solve'), fixtureDeal('solve')];
    const order: string[] = [];
    const run = pool.solveMany([slow.deal, ...rest.map((d) => d.deal)], LIMITS).then((answers) => (order.push('run'), answers));
    await slow.whenStarted();
    // the one worker runs the stubborn deal: this solve waits in the queue
    const single = pool.solve(fixtureDeal('solve').deal, LIMITS).then((outcome) => (order.push('single'), outcome));
    expect(pool.stats()).toMatchObject({ queued: 1 });
    const [answers, outcome] = await Promise.all([run, single]);
    // it waited for one deal of the run, not for the whole run
    expect(order).toEqual(['single', 'run']);
    expect(verdictOf(outcome)).toEqual(SOLVED);
    expect(outcome).toMatchObject({ taskDeals: 1 });
    // the stubborn fixture ends with a failure of its own deal; the two after it were solved afterwards
    expect(answers.map(verdictOf)).toEqual(['engine_error', SOLVED, SOLVED]);
    expect(rest.map((d) => d.began())).toEqual([true, true]);
    expect(pool.stats()).toMatchObject({ inFlight: 0, completed: 4 });
  });

  it('a worker lost in one share fails the whole run with worker_crashed; the other share stops at its flag; the pool solves after', async () => {
    const events: SolveEvent[] = [];
    const pool = fixturePool({ threads: 2, stopGraceMs: 10_000, log: quiet, onSettled: (e) => events.push(e) });
    const waiting = fixtureDeal('wait');
    const crash = fixtureDeal('exit');
    const behind = fixtureDeal('solve');
    // one worker takes the waiting deal and blocks on it; the other takes the crashing one
    const t0 = Date.now();
    const failure = await inTime(pool.solveMany([waiting.deal, crash.deal, behind.deal], LIMITS).catch((e: unknown) => e), 10_000);
    expect(failure).toBeInstanceOf(SolverError);
    expect(failure).toMatchObject({ code: 'worker_crashed', status: 500 });
    // the other share was stopped through its flag, well before the 10 s grace would have terminated it
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(waiting.began()).toBe(true);
    expect(behind.began()).toBe(false);
    // one event a deal, each the run's error
    expect(events.map((e) => e.error?.code)).toEqual(['worker_crashed', 'worker_crashed', 'worker_crashed']);
    expect(pool.stats()).toMatchObject({ inFlight: 0, running: 0, queued: 0, completed: 0 });
    // both worker slots are free again (the lost share's and the stopped one's): a new run spreads over two workers
    const [c, d] = [fixtureDeal('wait'), fixtureDeal('wait')];
    const ac = new AbortController();
    const again = pool.solveMany([c.deal, d.deal], LIMITS, ac.signal);
    await inTime(Promise.all([c.whenStarted(), d.whenStarted()]), 10_000);
    ac.abort();
    expect((await again).map(verdictOf)).toEqual([CANCELLED, CANCELLED]);
    expect(verdictOf(await pool.solve(fixtureDeal('solve').deal, LIMITS))).toEqual(SOLVED);
    expect(pool.stats()).toMatchObject({ threads: 2, inFlight: 0 });
  });

  it('a waiting solve cancelled before its turn leaves no yield behind: the run\'s share goes on, in one task', async () => {
    const pool = fixturePool({ log: quiet });
    const seen = countShares();
    const slow = fixtureDeal('stubborn', 300);
    const run = pool.solveMany([slow.deal, fixtureDeal('solve').deal, fixtureDeal('solve').deal], LIMITS);
    await slow.whenStarted();
    // waits behind the share (which would give its worker up to it), then leaves the queue
    const ac = new AbortController();
    const gone = pool.solve(fixtureDeal('solve').deal, LIMITS, ac.signal);
    ac.abort();
    expect(verdictOf(await gone)).toEqual(CANCELLED);
    expect((await run).map(verdictOf)).toEqual(['engine_error', SOLVED, SOLVED]);
    // nothing waited when the stubborn deal ended: no reason to give the worker up and hand the rest out again
    expect(seen.shares).toBe(1);
    // the same with a solve that has options (a task of its own, `#run`)
    const again = fixtureDeal('stubborn', 300);
    const second = pool.solveMany([again.deal, fixtureDeal('solve').deal], LIMITS);
    await again.whenStarted();
    const acOptions = new AbortController();
    const goneOptions = pool.solve(fixtureDeal('solve').deal, LIMITS, acOptions.signal, { optimize: { budgetMs: 10 } });
    acOptions.abort();
    expect(verdictOf(await goneOptions)).toEqual(CANCELLED);
    expect((await second).map(verdictOf)).toEqual(['engine_error', SOLVED]);
    expect(seen.shares).toBe(2);
  });

  it('close() during a run answers it: the running deal stops, the deals not begun answer cancelled and never begin', async () => {
    const pool = createPool({ filename: FIXTURE, threads: 1, stopGraceMs: 10_000 });
    const first = fixtureDeal('wait');
    const rest = [fixtureDeal('solve'), fixtureDeal('solve')];
    const run = pool.solveMany([first.deal, ...rest.map((d) => d.deal)], LIMITS);
    await first.whenStarted();
    await pool.close();
    expect((await inTime(run, 2000)).map(verdictOf)).toEqual([CANCELLED, CANCELLED, CANCELLED]);
    expect(rest.map((d) => d.began())).toEqual([false, false]);
    await expect(pool.solveMany([fixtureDeal('solve').deal], LIMITS)).rejects.toMatchObject({ code: 'overloaded' });
  });

  it('close() while the rest of a run waits in the queue (its share gave the worker up) answers the rest cancelled', async () => {
    const pool = createPool({ filename: FIXTURE, threads: 1, stopGraceMs: 10_000, log: quiet });
    const slow = fixtureDeal('stubborn', HOLD_MS);
    const last = fixtureDeal('solve');
    const run = pool.solveMany([slow.deal, last.deal], LIMITS);
    await slow.whenStarted();
    // a solve that holds the worker once the share gives it up: the run's last deal then waits in the queue
    const holder = fixtureDeal('wait');
    const held = pool.solve(holder.deal, LIMITS);
    await holder.whenStarted();
    expect(pool.stats()).toMatchObject({ running: 1, queued: 1, inFlight: 2 });
    await pool.close();
    expect((await inTime(run, 2000)).map(verdictOf)).toEqual(['engine_error', CANCELLED]);
    expect(verdictOf(await held)).toEqual(CANCELLED);
    expect(last.began()).toBe(false);
  });

  it('close() while a share waits for a worker still starting answers the run cancelled, not worker_crashed (that share claimed nothing)', async () => {
    // closed at once: no worker has started, both shares wait in Piscina's queue, which its close empties with an error
    const fresh = createPool({ filename: FIXTURE, threads: 2, log: quiet });
    const never = [fixtureDeal('solve'), fixtureDeal('solve')];
    const unstarted = fresh.solveMany(never.map((d) => d.deal), LIMITS).catch((e: unknown) => e);
    await fresh.close();
    const answers = await inTime(unstarted, 2000);
    expect(answers).not.toBeInstanceOf(SolverError);
    expect((answers as SolveOutcome[]).map(verdictOf)).toEqual([CANCELLED, CANCELLED]);
    expect(never.map((d) => d.began())).toEqual([false, false]);

    // one share runs on the worker up; the other waits for the second, started on demand (minThreads 1)
    const pool = createPool({ filename: FIXTURE, threads: 2, minThreads: 1, log: quiet });
    await pool.solve(fixtureDeal('solve').deal, LIMITS);
    const running = fixtureDeal('wait');
    const run = pool.solveMany([running.deal, fixtureDeal('wait').deal], LIMITS).catch((e: unknown) => e);
    await running.whenStarted();
    await pool.close();
    const closed = await inTime(run, 2000);
    expect(closed).not.toBeInstanceOf(SolverError);
    expect((closed as SolveOutcome[]).map(verdictOf)).toEqual([CANCELLED, CANCELLED]);
  });

  it('a cancel while the rest of a run waits in the queue answers it at once, without waiting for the worker', async () => {
    const pool = fixturePool({ stopGraceMs: 10_000, log: quiet });
    const slow = fixtureDeal('stubborn', HOLD_MS);
    const ac = new AbortController();
    const run = pool.solveMany([slow.deal, fixtureDeal('solve').deal, fixtureDeal('solve').deal], LIMITS, ac.signal);
    await slow.whenStarted();
    const holder = fixtureDeal('wait');
    const acHolder = new AbortController();
    const held = pool.solve(holder.deal, LIMITS, acHolder.signal);
    await holder.whenStarted();
    ac.abort();
    expect((await inTime(run, 1000)).map(verdictOf)).toEqual(['engine_error', CANCELLED, CANCELLED]);
    expect(pool.stats()).toMatchObject({ inFlight: 1, queued: 0 });
    acHolder.abort();
    expect(verdictOf(await held)).toEqual(CANCELLED);
    expect(pool.stats()).toMatchObject({ inFlight: 0 });
  });

  it('a cancelled share deaf to its flag: its worker is terminated after the grace, the run answers cancelled, and a new worker serves', async () => {
    const pool = fixturePool({ stopGraceMs: 150, log: quiet });
    const deaf = fixtureDeal('stubborn', 20_000);
    const after = fixtureDeal('solve');
    const ac = new AbortController();
    const run = pool.solveMany([deaf.deal, after.deal], LIMITS, ac.signal);
    await deaf.whenStarted();
    const t0 = Date.now();
    ac.abort();
    expect((await run).map(verdictOf)).toEqual([CANCELLED, CANCELLED]);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(5000);
    expect(after.began()).toBe(false);
    // the terminated worker's answer is lost: nothing a worker answered
    expect(pool.stats()).toMatchObject({ inFlight: 0, completed: 0 });
    expect(verdictOf(await pool.solve(fixtureDeal('solve').deal, LIMITS))).toEqual(SOLVED);
  });

  it('a share deaf to its deadline: its worker is terminated and the run fails engine_unresponsive', async () => {
    const pool = fixturePool({ stopGraceMs: 100, log: quiet });
    const failure = await pool.solveMany([fixtureDeal('stubborn', 20_000).deal, fixtureDeal('solve').deal], { maxStates: 10, timeoutMs: 50 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SolverError);
    expect(failure).toMatchObject({ code: 'engine_unresponsive', status: 500 });
    expect(pool.stats()).toMatchObject({ inFlight: 0 });
    expect(verdictOf(await pool.solve(fixtureDeal('solve').deal, LIMITS))).toEqual(SOLVED);
  });

  it('a cancelled run whose share never began (its worker never finishes starting) answers cancelled after the grace, and wakes drain()', async () => {
    // not closed after the test: Piscina's close waits (its 30 s close timeout) for a worker that never started
    const pool = createPool({ filename: join(ROOT, 'tests/fixtures/never-ready-worker.ts'), threads: 1, stopGraceMs: 100, log: quiet });
    const ac = new AbortController();
    const run = pool.solveMany([fixtureDeal('solve').deal, fixtureDeal('solve').deal], LIMITS, ac.signal);
    await new Promise((r) => setTimeout(r, 200));
    const drained = pool.drain(5000);
    const t0 = Date.now();
    ac.abort();
    expect((await inTime(run, 5000)).map(verdictOf)).toEqual([CANCELLED, CANCELLED]);
    expect(pool.stats()).toMatchObject({ inFlight: 0 });
    // the pool went idle with the given-up share: drain() says so then, not when its own timeout runs out
    expect(await drained).toBe(true);
    expect(Date.now() - t0).toBeLessThan(2000);
    void pool.close();
  });

  it('a run whose deadline allowance (timeoutMs × its deals) is past a timer\'s range arms the deadline sweep for the longest wait, not for 1 ms over and over', async () => {
    const overflows: string[] = [];
    const emitWarning = process.emitWarning.bind(process);
    vi.spyOn(process, 'emitWarning').mockImplementation(((warning: string | Error, ...rest: unknown[]) => {
      if (String(warning).includes('32-bit signed integer')) overflows.push(String(warning));
      else (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
    }) as typeof process.emitWarning);
    const pool = fixturePool();
    const first = fixtureDeal('wait');
    const ac = new AbortController();
    // 2^30 ms a deal (12 days), two deals: the share's allowance is past 2^31 - 1 ms, Node's longest timer
    const run = pool.solveMany([first.deal, fixtureDeal('solve').deal], { maxStates: 10, timeoutMs: 2 ** 30 }, ac.signal);
    await first.whenStarted();
    await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    expect((await run).map(verdictOf)).toEqual([CANCELLED, CANCELLED]);
    // Node sets an overlong timer to 1 ms (and warns each time): the sweep would then run in a loop
    expect(overflows).toEqual([]);
  });

  it('two runs on one thread: the second waits for the first (shares do not yield to shares), and both are answered in order', async () => {
    const pool = fixturePool({ log: quiet });
    const order: string[] = [];
    const first = pool.solveMany([fixtureDeal('stubborn', 100).deal, fixtureDeal('solve').deal], LIMITS).then((a) => (order.push('first'), a));
    const second = pool.solveMany([fixtureDeal('solve').deal, fixtureDeal('solve').deal], LIMITS).then((a) => (order.push('second'), a));
    const [a, b] = await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
    expect(a.map(verdictOf)).toEqual(['engine_error', SOLVED]);
    expect(b.map(verdictOf)).toEqual([SOLVED, SOLVED]);
    expect(pool.stats()).toMatchObject({ inFlight: 0, completed: 4 });
  });
});

describe.skipIf(!engineBuilt())('shared runs (real worker and engine)', () => {
  const msDeal = (n: number): Deal => resolveDeal({ game: 'freecell', numbering: 'ms', deal: n });
  const limits: SolveLimits = { maxStates: 5_000_000, timeoutMs: 30_000 };

  it('solveMany over 200 MS deals on 2 threads gives, deal by deal, the verdicts and moves of solve one at a time; solveManyPacked the same moves packed', async () => {
    const pool = createPool({ module: await loadEngineModule(), threads: 2 });
    pools.push(pool);
    await pool.warmUp(msDeal(1));
    // 11982 is the one unsolvable deal of the first 32,000
    const numbers = [...Array.from({ length: 199 }, (_, i) => i + 1), 11982];
    const deals = numbers.map(msDeal);
    const seen = countShares();
    const before = pool.stats().completed;
    const many = await pool.solveMany(deals, limits);
    // both workers took part: a share each at least
    expect(seen.shares).toBeGreaterThanOrEqual(2);
    expect(pool.stats().completed).toBe(before + deals.length);
    expect(many).toHaveLength(deals.length);
    for (let i = 0; i < deals.length; i++) {
      const got = many[i];
      if (got instanceof SolverError) throw new Error(`deal ${numbers[i]} failed: ${got.code}`);
      const alone = await pool.solve(deals[i], limits);
      expect([numbers[i], got.verdict]).toEqual([numbers[i], alone.verdict]);
      expect(got.moves).toEqual(alone.moves);
      expect(got.stats.statesStored).toBe(alone.stats.statesStored);
      if (got.verdict === 'solved') expect(checkSolution(deals[i].rules, deals[i].layout, got.moves).ok).toBe(true);
    }
    expect((many as SolveOutcome[]).filter((o) => o.verdict !== 'solved').map((o) => o.verdict)).toEqual(['unsolvable']);
    expect(pool.stats()).toMatchObject({ completed: before + 2 * deals.length, inFlight: 0 });

    const packed = await pool.solveManyPacked(deals, limits);
    expect(packed).toHaveLength(deals.length);
    for (let i = 0; i < deals.length; i++) {
      const got = packed[i];
      if (got instanceof SolverError) throw new Error(`deal ${numbers[i]} failed: ${got.code}`);
      expect(got.outcome.verdict).toBe((many[i] as SolveOutcome).verdict);
      expect(got.outcome.moves).toEqual([]);
      expect(unpackMoves(got.moves)).toEqual((many[i] as SolveOutcome).moves);
    }
    expect(pool.stats()).toMatchObject({ completed: before + 3 * deals.length, inFlight: 0 });
  });

  it('solveCensus deals and counts a range on the workers: the summary and exceptions of solveBatch over the same range, the deals spread over both workers', async () => {
    const pool = createPool({ module: await loadEngineModule(), threads: 2 });
    pools.push(pool);
    await pool.warmUp(msDeal(1));
    // MS 11900..12099 holds 11982, the one unsolvable deal of the first 32,000
    const source = { kind: 'range' as const, template: { game: 'freecell', numbering: 'ms' as const }, first: '11900', count: 200 };
    const seen = countShares();
    const before = pool.stats().completed;
    const census = await pool.solveCensus(source, limits);
    expect(seen.shares).toBeGreaterThanOrEqual(2);
    expect(pool.stats().completed).toBe(before + 200);
    const each = await pool.solveBatch(source, limits);
    const expected = summariseRange(
      each.map((a, i) => (a instanceof SolverError ? failedResult(i, a) : outcomeResult(i, a.outcome, a.moves))),
      'exceptions',
    );
    expect(census.stopped).toBe(0);
    // the engine's times differ run to run; every count, move and position does not
    const timeless = (s: CensusSummary) => ({ ...s, sumElapsedUs: 0, time: {} });
    expect(timeless(census.summary)).toEqual(timeless(expected.summary));
    expect(summaryCount(census.summary)).toBe(200);
    expect(census.kept.map((r) => [r.index, r.verdict])).toEqual([[82, 'unsolvable']]);
  });

  it('solveCensus stopped part way: the deals not counted are `stopped`, and nothing is counted twice', async () => {
    const pool = createPool({ module: await loadEngineModule(), threads: 2 });
    pools.push(pool);
    const controller = new AbortController();
    const source = { kind: 'range' as const, template: { game: 'freecell', numbering: 'ms' as const }, first: '1', count: 20_000 };
    const running = pool.solveCensus(source, limits, controller.signal);
    setTimeout(() => controller.abort(), 200);
    const census = await running;
    const counted = summaryCount(census.summary);
    expect(counted).toBeLessThan(20_000);
    expect(census.stopped).toBe(20_000 - counted);
    expect(census.summary.solved + census.summary.unsolvable).toBe(counted);
    expect(pool.stats().inFlight).toBe(0);
  });

  it('a worker retired after every deal (recycleMemoryBytes 1): the run is answered completely, its rest by the replacements', async () => {
    const recycled: number[] = [];
    const pool = createPool({ module: await loadEngineModule(), threads: 2, recycleMemoryBytes: 1, onRecycle: ({ threadId }) => recycled.push(threadId) });
    pools.push(pool);
    const numbers = [1, 2, 3, 4];
    const deals = numbers.map(msDeal);
    const answers = await pool.solveMany(deals, limits);
    expect(answers.map((o) => (o instanceof SolverError ? o.code : o.verdict))).toEqual(['solved', 'solved', 'solved', 'solved']);
    for (let i = 0; i < deals.length; i++) expect(checkSolution(deals[i].rules, deals[i].layout, (answers[i] as SolveOutcome).moves).ok).toBe(true);
    // a share stops claiming once its worker asked to retire: each deal's worker was replaced after it
    expect(pool.stats()).toMatchObject({ recycled: deals.length, completed: deals.length, inFlight: 0 });
    expect(new Set(recycled).size).toBe(deals.length);
  });
});
