/**
 * The pool under long searches (server/pool/queue.ts, scheduler.ts): jobs
 * start by class (interactive, then background, then batch), whatever
 * order they came in; an interactive solve that cannot start within
 * `startWaitMs` is refused; with the lane, an interactive solve runs on the
 * extra thread while long searches hold every worker, and a lane job that
 * has run `laneYieldMs` gives the lane up to the next one (refused 503).
 *
 * The fixture worker (tests/fixtures/pool-worker.ts) blocks on the stop
 * flag of a `wait` deal, so that "long" is as long as the test wants.
 */
import { describe, expect, it } from 'vitest';
import { SolverError } from '../../client-sdk/core/errors.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import type { SolverPool } from '../../server/pool.js';
import { FIXTURE_LIMITS as LIMITS, fixtureDeal, threadOf, useFixturePools, verdictOf } from '../helpers/pool-fixture.js';

const { fixturePool } = useFixturePools();

/** A worker of `pool` held by a `wait` solve of class `priority`: `free()` cancels it. */
async function occupy(pool: SolverPool, priority: 'interactive' | 'batch' = 'interactive') {
  const busy = fixtureDeal('wait');
  const ac = new AbortController();
  const running = pool.solve(busy.deal, LIMITS, ac.signal, { priority });
  await busy.whenStarted();
  return { running, free: () => (ac.abort(), running) };
}

describe('jobs start by class, then by age', () => {
  it('a worker that frees up takes the interactive solve, then the background one, then the batch, whatever their order of arrival', async () => {
    const pool = fixturePool();
    const busy = await occupy(pool);
    const order: string[] = [];
    const note = (name: string) => (o: unknown) => (order.push(name), o);
    const batch = pool.solveMany([fixtureDeal('solve').deal], LIMITS).then(note('batch'));
    const background = pool.solve(fixtureDeal('solve').deal, LIMITS, undefined, { priority: 'background' }).then(note('background'));
    const interactive = pool.solve(fixtureDeal('solve').deal, LIMITS).then(note('interactive'));
    expect(pool.stats()).toMatchObject({ running: 1, queued: 3 });
    await busy.free();
    await Promise.all([batch, background, interactive]);
    expect(order).toEqual(['interactive', 'background', 'batch']);
  });

  it('the queue limit is per class: background searches waiting do not refuse an interactive solve', async () => {
    const pool = fixturePool({ maxQueue: 1 });
    const busy = await occupy(pool);
    const ac = new AbortController();
    // threads + maxQueue = 2 background jobs in flight at most
    const background = [0, 1].map(() => pool.solve(fixtureDeal('wait').deal, LIMITS, ac.signal, { priority: 'background' }));
    await expect(pool.solve(fixtureDeal('solve').deal, LIMITS, undefined, { priority: 'background' })).rejects.toMatchObject({ code: 'overloaded' });
    expect(pool.admits('background')).toBe(false);
    expect(pool.admits('interactive')).toBe(true);
    const interactive = pool.solve(fixtureDeal('solve').deal, LIMITS);
    await busy.free();
    expect(verdictOf(await interactive)).toEqual(['solved', null]);
    ac.abort();
    await Promise.all(background);
  });
});

describe('a bounded wait for interactive solves', () => {
  it('an interactive solve not started within startWaitMs is refused overloaded; background and batch work waits on', async () => {
    const pool = fixturePool({ startWaitMs: 300 });
    const busy = await occupy(pool);
    const t0 = Date.now();
    const interactive = pool.solve(fixtureDeal('solve').deal, LIMITS).catch((e: unknown) => e);
    const background = pool.solve(fixtureDeal('solve').deal, LIMITS, undefined, { priority: 'background' });
    const refused = await interactive;
    expect(refused).toBeInstanceOf(SolverError);
    expect(refused).toMatchObject({ code: 'overloaded', status: 503 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(Date.now() - t0).toBeLessThan(2000);
    await busy.free();
    expect(verdictOf(await background)).toEqual(['solved', null]);
  });
});

describe('the lane: one thread more for interactive solves while long searches hold every worker', () => {
  it('an interactive solve runs on the lane once every worker has been on its deal longer than laneAfterMs, while the long search runs on', async () => {
    const pool = fixturePool({ lane: true, laneAfterMs: 150, laneYieldMs: 100, startWaitMs: 5000 });
    // the lane thread is started with the others (warm): one solve there and one on the worker proves both up
    const busy = await occupy(pool, 'batch');
    const t0 = Date.now();
    const quick = await pool.solve(fixtureDeal('solve').deal, LIMITS);
    expect(quick.verdict).toBe('solved');
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(threadOf(quick)).not.toBe(threadOf(await busy.free()));
    // a worker busy for less than laneAfterMs is not yet long: the solve waits until it is before it takes the lane
    const again = await occupy(pool, 'batch');
    const since = Date.now();
    expect((await pool.solve(fixtureDeal('solve').deal, LIMITS)).verdict).toBe('solved');
    expect(Date.now() - since).toBeGreaterThanOrEqual(100);
    await again.free();
  });

  it('a lane job that has run laneYieldMs while another interactive solve waits is refused (503), and the waiting one runs', async () => {
    const pool = fixturePool({ lane: true, laneAfterMs: 50, laneYieldMs: 200, startWaitMs: 5000 });
    const busy = await occupy(pool, 'batch');
    // a long interactive search takes the lane
    const long = fixtureDeal('wait');
    const held = pool.solve(long.deal, LIMITS).catch((e: unknown) => e);
    await long.whenStarted();
    const t0 = Date.now();
    const next: Promise<SolveOutcome> = pool.solve(fixtureDeal('solve').deal, LIMITS);
    expect((await next).verdict).toBe('solved');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    expect(await held).toMatchObject({ code: 'overloaded', status: 503 });
    await busy.free();
  });
});
